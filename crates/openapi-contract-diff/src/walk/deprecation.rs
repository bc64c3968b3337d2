//! Deprecation and stability, as oasdiff's policy has them: `x-sunset` (an RFC 3339 date, the
//! day a deprecated operation or parameter may go), `x-stability-level` (`draft` < `alpha` <
//! `beta` < `stable`) and a minimum deprecation period per level.
//!
//! - Deprecating with a period configured for the operation's level needs an `x-sunset` at
//!   least that many days away (`api-deprecated-sunset-missing`, `api-sunset-date-too-small`,
//!   `api-deprecated-sunset-parse`: ERR, a policy violation).
//! - Removing a deprecated operation or parameter before its sunset is ERR
//!   (`api-removed-before-sunset`, `request-parameter-removed-before-sunset`); after it, or
//!   with no sunset, the announced removal is INFO.
//! - Moving a sunset earlier or deleting it while still deprecated is ERR.
//! - A stability level lowered is ERR, raised INFO; an unknown level is ERR. Changes to an
//!   operation that was `draft` or `alpha` in BASE are not breaking (the guard `Unstable`).
//!
//! The periods and "today" come in [`Lifecycle`], so the verdict is reproducible (the command
//! reads today's date from the clock unless `--today` gives one).

use chrono::NaiveDate;
use serde_json::{Map, Value};

use crate::judge::levels::Guard;
use crate::judge::rules::Rule;
use crate::walk::emitter::{Emitter, Loc};
use crate::walk::operation::Operation;

/// The deprecation policy and the date it is applied on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifecycle {
    /// Minimum days between deprecating a `stable` operation (or one with no level) and its
    /// sunset; 0 means no sunset is required.
    pub days_stable: u32,
    /// The same for `beta`; `draft` and `alpha` need none.
    pub days_beta: u32,
    /// The day the policy is judged on.
    pub today: NaiveDate,
}

impl Default for Lifecycle {
    /// No minimum period, judged today (UTC).
    fn default() -> Lifecycle {
        Lifecycle {
            days_stable: 0,
            days_beta: 0,
            today: today_utc(),
        }
    }
}

/// Today's date in UTC, from the system clock.
pub fn today_utc() -> NaiveDate {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    epoch
        .checked_add_days(chrono::Days::new(days))
        .unwrap_or(epoch)
}

/// `x-stability-level`, ordered from the least to the most stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stability {
    Draft,
    Alpha,
    Beta,
    Stable,
}

/// The level of a node: `Ok(None)` when it has none, `Err(text)` when it is not a level.
fn stability(node: &Map<String, Value>) -> Result<Option<Stability>, String> {
    match node.get("x-stability-level") {
        None => Ok(None),
        Some(Value::String(s)) => match s.as_str() {
            "draft" => Ok(Some(Stability::Draft)),
            "alpha" => Ok(Some(Stability::Alpha)),
            "beta" => Ok(Some(Stability::Beta)),
            "stable" => Ok(Some(Stability::Stable)),
            _ => Err(s.clone()),
        },
        Some(other) => Err(other.to_string()),
    }
}

/// `x-sunset` as a date: `None` when absent, `Err(text)` when it is not an RFC 3339 date (a
/// full date-time counts by its date).
fn sunset(node: &Map<String, Value>) -> Option<Result<NaiveDate, String>> {
    let raw = node.get("x-sunset")?;
    let text = raw.as_str().unwrap_or_default();
    let date = text.get(..10).and_then(|d| {
        let mut parts = d.split('-').map(str::parse::<u32>);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(Ok(y)), Some(Ok(m)), Some(Ok(day))) => {
                NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, day)
            }
            _ => None,
        }
    });
    Some(date.ok_or_else(|| raw.to_string()))
}

fn deprecated(node: &Map<String, Value>) -> bool {
    node.get("deprecated").and_then(Value::as_bool) == Some(true)
}

/// Whether changes to `op` cannot break its clients: it was `draft` or `alpha`.
pub fn unstable(op: &Operation) -> bool {
    matches!(
        stability(op.node),
        Ok(Some(Stability::Draft | Stability::Alpha))
    )
}

/// Marks every change of an unstable operation (except the policy's own findings) with the
/// `Unstable` guard.
pub fn guard_unstable(out: &mut Emitter, from: usize) {
    const POLICY: [Rule; 2] = [Rule::StabilityDecreased, Rule::InvalidStability];
    for change in &mut out.changes[from..] {
        if !POLICY.iter().any(|r| r.id() == change.id) {
            change.guard = Some(Guard::Unstable);
        }
    }
}

impl Lifecycle {
    fn days_for(&self, level: Option<Stability>) -> u32 {
        match level {
            None | Some(Stability::Stable) => self.days_stable,
            Some(Stability::Beta) => self.days_beta,
            Some(Stability::Draft | Stability::Alpha) => 0,
        }
    }

    /// Whether `node` (deprecated in BASE) is removed before its sunset.
    pub fn before_sunset(&self, node: &Map<String, Value>) -> Option<NaiveDate> {
        if !deprecated(node) {
            return None;
        }
        match sunset(node) {
            Some(Ok(date)) if self.today < date => Some(date),
            _ => None,
        }
    }

    /// The `x-sunset` text of `node` (deprecated in BASE) where it is not a date: whether its
    /// removal comes before the announced day cannot be told.
    pub fn unreadable_sunset(&self, node: &Map<String, Value>) -> Option<String> {
        if !deprecated(node) {
            return None;
        }
        sunset(node)?.err()
    }

    /// An operation removed whose `x-stability-level` is not a level: whether its clients were
    /// told it may change cannot be told.
    pub fn removed_stability(&self, out: &mut Emitter, b: &Operation) {
        if let Err(text) = stability(b.node) {
            let message = format!(
                "{}: x-stability-level {text} is not draft, alpha, beta or stable",
                b.label()
            );
            let loc = Loc::Base(format!("{}/x-stability-level", b.ptr));
            out.rule(Rule::InvalidStability, None, loc, "", message);
        }
    }

    /// Deprecation, sunset and stability of a matched operation; `modified`: the operation
    /// differs, so an invalid stability level, even unchanged, leaves its verdict unknown.
    pub fn operation(&self, out: &mut Emitter, b: &Operation, r: &Operation, modified: bool) {
        let label = r.label();
        let at = |key: &str| Loc::Rev(format!("{}/{key}", r.ptr));
        let rules = Rules {
            deprecated: Rule::Deprecated,
            with_sunset: Rule::DeprecatedWithSunset,
            reactivated: Rule::Reactivated,
            missing: Rule::DeprecatedSunsetMissing,
            too_small: Rule::SunsetTooSmall,
            parse: Rule::SunsetParse,
        };
        self.deprecation(out, &rules, (b.node, r.node), &r.ptr, &label, "");
        let moved = (Rule::SunsetChangedTooSmall, Rule::SunsetDeleted);
        sunset_moved(out, moved, (b.node, r.node), (&b.ptr, &r.ptr), &label, "");
        let unchanged = b.node.get("x-stability-level") == r.node.get("x-stability-level");
        match (stability(b.node), stability(r.node)) {
            // An operation that did not change reports nothing, even a level already invalid.
            (_, Err(text)) if !unchanged || modified => out.rule(
                Rule::InvalidStability,
                None,
                at("x-stability-level"),
                "",
                format!("{label}: x-stability-level {text} is not draft, alpha, beta or stable"),
            ),
            (Err(text), Ok(_)) if modified => out.rule(
                Rule::InvalidStability,
                None,
                Loc::Base(format!("{}/x-stability-level", b.ptr)),
                "",
                format!("{label}: x-stability-level {text} is not draft, alpha, beta or stable"),
            ),
            (Ok(x), Ok(y)) if x != y => {
                let (x, y) = (
                    x.unwrap_or(Stability::Stable),
                    y.unwrap_or(Stability::Stable),
                );
                let rule = match y.cmp(&x) {
                    std::cmp::Ordering::Less => Rule::StabilityDecreased,
                    std::cmp::Ordering::Greater => Rule::StabilityIncreased,
                    std::cmp::Ordering::Equal => return,
                };
                let message = format!("{label}: stability changed from {x:?} to {y:?}");
                out.rule(rule, None, at("x-stability-level"), "", message);
            }
            _ => {}
        }
    }

    /// Deprecation and sunset of a matched parameter (`label` names it, `detail` keys it).
    pub fn parameter(
        &self,
        out: &mut Emitter,
        (b, r): (&Map<String, Value>, &Map<String, Value>),
        (bptr, ptr): (&str, &str),
        label: &str,
        detail: &str,
        op_level: Option<&Map<String, Value>>,
    ) {
        let rules = Rules {
            deprecated: Rule::ParameterDeprecated,
            with_sunset: Rule::ParameterDeprecated,
            reactivated: Rule::ParameterReactivated,
            missing: Rule::ParameterSunsetMissing,
            too_small: Rule::ParameterSunsetTooSmall,
            parse: Rule::ParameterSunsetParse,
        };
        // A parameter's period follows its operation's stability.
        let level = op_level.and_then(|op| stability(op).ok().flatten());
        self.deprecation_at(out, &rules, (b, r), ptr, label, detail, level);
        let moved = (
            Rule::ParameterSunsetChangedTooSmall,
            Rule::ParameterSunsetDeleted,
        );
        sunset_moved(out, moved, (b, r), (bptr, ptr), label, detail);
    }

    fn deprecation(
        &self,
        out: &mut Emitter,
        rules: &Rules,
        (b, r): (&Map<String, Value>, &Map<String, Value>),
        ptr: &str,
        label: &str,
        detail: &str,
    ) {
        let level = stability(r).ok().flatten();
        self.deprecation_at(out, rules, (b, r), ptr, label, detail, level);
    }

    #[allow(clippy::too_many_arguments)]
    fn deprecation_at(
        &self,
        out: &mut Emitter,
        rules: &Rules,
        (b, r): (&Map<String, Value>, &Map<String, Value>),
        ptr: &str,
        label: &str,
        detail: &str,
        level: Option<Stability>,
    ) {
        match (deprecated(b), deprecated(r)) {
            (true, false) => {
                let message = format!("{label} is no longer deprecated");
                out.rule(
                    rules.reactivated,
                    None,
                    Loc::Rev(ptr.to_string()),
                    detail,
                    message,
                );
            }
            (false, true) => {
                let days = self.days_for(level);
                let loc = |key: &str| Loc::Rev(format!("{ptr}/{key}"));
                let (rule, loc, message) = match sunset(r) {
                    None if days > 0 => (
                        rules.missing,
                        loc("deprecated"),
                        format!(
                            "{label} deprecated without an x-sunset; the policy needs one at least {days} days away"
                        ),
                    ),
                    None => (
                        rules.deprecated,
                        loc("deprecated"),
                        format!("{label} deprecated"),
                    ),
                    Some(Err(text)) => (
                        rules.parse,
                        loc("x-sunset"),
                        format!("{label}: x-sunset {text} is not an RFC 3339 date"),
                    ),
                    Some(Ok(date)) => {
                        let left = (date - self.today).num_days();
                        if left < i64::from(days) {
                            (
                                rules.too_small,
                                loc("x-sunset"),
                                format!(
                                    "{label}: sunset {date} is {left} days away, the policy needs at least {days}"
                                ),
                            )
                        } else {
                            (
                                rules.with_sunset,
                                loc("deprecated"),
                                format!("{label} deprecated, sunset {date}"),
                            )
                        }
                    }
                };
                out.rule(rule, None, loc, detail, message);
            }
            _ => {}
        }
    }
}

/// A sunset moved earlier, or deleted, while still deprecated: the announced date was what
/// clients planned by.
fn sunset_moved(
    out: &mut Emitter,
    (earlier, deleted): (Rule, Rule),
    (b, r): (&Map<String, Value>, &Map<String, Value>),
    (bptr, rptr): (&str, &str),
    label: &str,
    detail: &str,
) {
    if !(deprecated(b) && deprecated(r)) {
        return;
    }
    match (sunset(b), sunset(r)) {
        (Some(Ok(x)), Some(Ok(y))) if y < x => out.rule(
            earlier,
            None,
            Loc::Rev(format!("{rptr}/x-sunset")),
            detail,
            format!("{label}: sunset moved earlier, from {x} to {y}"),
        ),
        (Some(Ok(x)), None) => out.rule(
            deleted,
            None,
            Loc::Base(format!("{bptr}/x-sunset")),
            detail,
            format!("{label}: sunset {x} deleted while still deprecated"),
        ),
        _ => {}
    }
}

/// The ids of one subject's deprecation findings.
struct Rules {
    deprecated: Rule,
    with_sunset: Rule,
    reactivated: Rule,
    missing: Rule,
    too_small: Rule,
    parse: Rule,
}
