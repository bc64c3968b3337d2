//! `clusters create` and `plan` over several providers: a placement that tries each in turn
//! and fails over when one has no capacity, funds or matching offering.

use std::sync::Arc;
use std::time::Duration;

use gpucloud::CandidatePlan;
use gpucloud::{
    AttemptOutcome, Candidate, ClusterClient, ClusterSpec, ErrorKind, Placed, Placement,
    PriceCheck, ProviderKind,
};
use gpucloud_ledger::Ledger;
use serde::Serialize;

use crate::context::Context;
use crate::error::{CliError, flatten, one_line};
use crate::flags::PlacementTargetArgs;
use crate::ledger::settle_earlier;
use crate::output;
use crate::sanitize::cell;

/// The clients of a placement, and the providers left out (with why).
struct Clients {
    candidates: Vec<(ProviderKind, ClusterClient)>,
    left_out: Vec<(ProviderKind, String)>,
}

/// A provider whose client cannot be built (its credentials missing) is left out, not an
/// error: the placement goes on with the others. A create on one provider (`single`) has no
/// others: its client's error is the command's.
fn clients(
    ctx: &Context,
    target: &PlacementTargetArgs,
    ledger: Option<&Arc<Ledger>>,
    single: bool,
) -> Result<Clients, CliError> {
    if target.connection.base_url.is_some() && target.provider.0.len() > 1 {
        return Err(CliError::Usage(
            "--base-url takes a single provider; set <PROVIDER>_BASE_URL for each instead".into(),
        ));
    }
    let mut clients = Clients {
        candidates: Vec::new(),
        left_out: Vec::new(),
    };
    for provider in &target.provider.0 {
        match ctx.connect(&target.target(*provider), ledger) {
            Ok(client) => clients.candidates.push((*provider, client)),
            Err(error) if single => return Err(error.into()),
            Err(error) => clients.left_out.push((*provider, one_line(&error))),
        }
    }
    if clients.candidates.is_empty() {
        // Nothing to place on: a configuration error (exit 3) for `plan` and `create` alike,
        // naming why each provider was left out.
        let why: Vec<String> = clients
            .left_out
            .iter()
            .map(|(provider, why)| format!("{provider}: {why}"))
            .collect();
        return Err(CliError::Input(format!(
            "no provider can be used: {}",
            why.join("; ")
        )));
    }
    Ok(clients)
}

/// The placement of `spec` over `clients`: each candidate's request with its provider's
/// configuration file section applied (SSH keys in its own form, E2E's security group), and,
/// over several providers, without the SSH keys a provider takes none of (Together's
/// clusters are reached by kubeconfig), priced by `pricing`.
fn placement(
    ctx: &Context,
    target: &PlacementTargetArgs,
    spec: &ClusterSpec,
    clients: &Clients,
    pricing: &gpucloud::catalog::Pricing,
) -> Result<Placement, CliError> {
    let config = ctx.config()?;
    let several = clients.candidates.len() > 1;
    let mut placement = Placement::new(clients.candidates.iter().map(|(provider, client)| {
        Candidate::new(
            client.clone(),
            candidate_spec(config, *provider, spec, several),
        )
    }))
    .with_pricing(pricing.clone());
    if target.cheapest_first {
        placement = placement.cheapest_first();
    }
    if let Some(amount) = target.max_price_per_hour {
        placement = placement.with_max_price_per_hour(amount, target.currency.to_ascii_uppercase());
    }
    if target.allow_unpriced {
        placement = placement.allow_unpriced();
    }
    if target.allow_no_delete {
        placement = placement.allow_undeletable();
    }
    Ok(placement)
}

/// `spec` as `provider`'s candidate: the configuration file's section applied where the
/// request sets nothing, and (`several` providers) no SSH keys where the provider takes none.
pub fn candidate_spec(
    config: Option<&gpucloud::config_file::ConfigFile>,
    provider: ProviderKind,
    spec: &ClusterSpec,
    several: bool,
) -> ClusterSpec {
    let mut spec = spec.clone();
    if let Some(config) = config {
        config.apply(provider, &mut spec);
    }
    if several && !provider.profile().takes_ssh_keys {
        spec.ssh_keys.clear();
    }
    spec
}

/// How a candidate on `provider` would be reached, for the plan.
pub fn access(provider: ProviderKind, spec: &ClusterSpec) -> String {
    let profile = provider.profile();
    if !profile.takes_ssh_keys {
        "reached by kubeconfig (`gpucloud clusters kubeconfig`); SSH keys are not sent".into()
    } else if spec.ssh_keys.is_empty() {
        "no SSH key given".into()
    } else {
        format!(
            "SSH keys {}",
            spec.ssh_keys
                .iter()
                .map(cell)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The variable that names a price book when `--price-book` names none (`gpucloud sim`
/// exports it for the simulator's price list).
pub const PRICE_BOOK_ENV: &str = "GPUCLOUD_PRICE_BOOK";

/// The price book and rates a run uses, and where its entries came from.
pub(super) struct Prices {
    pub(super) pricing: gpucloud::catalog::Pricing,
    /// The price book file read besides the configuration file, and what named it.
    pub(super) book_file: Option<(std::path::PathBuf, &'static str)>,
    /// Entries older than their file's `stale_after_days` (`path:line`).
    pub(super) stale: Vec<String>,
}

/// The price book and rates: `--price-book`'s (else `$GPUCLOUD_PRICE_BOOK`'s) entries first,
/// then the configuration file's. Warns of each stale entry.
pub(super) fn pricing(
    config: Option<&gpucloud::config_file::ConfigFile>,
    price_book: Option<&std::path::Path>,
) -> Result<gpucloud::catalog::Pricing, CliError> {
    let prices = prices(config, price_book)?;
    for at in &prices.stale {
        tell!(
            "warning: {}: a price book entry older than its file's stale_after_days: its \
             price is used, shown STALE",
            cell(at)
        );
    }
    Ok(prices.pricing)
}

/// [`pricing`], saying nothing.
pub(super) fn prices(
    config: Option<&gpucloud::config_file::ConfigFile>,
    price_book: Option<&std::path::Path>,
) -> Result<Prices, CliError> {
    let mut pricing = config.map(|c| c.pricing.clone()).unwrap_or_default();
    let mut stale = config.map(|c| c.stale.clone()).unwrap_or_default();
    let book_file = match price_book {
        Some(path) => Some((path.to_path_buf(), "--price-book")),
        None => std::env::var_os(PRICE_BOOK_ENV)
            .filter(|v| !v.is_empty())
            .map(|v| (std::path::PathBuf::from(v), PRICE_BOOK_ENV)),
    };
    if let Some((path, named_by)) = &book_file {
        let book = gpucloud::config_file::ConfigFile::load(path)
            .map_err(|e| CliError::Input(format!("price book ({named_by}): {e}")))?;
        let mut entries = book.pricing.book;
        entries.append(&mut pricing.book);
        pricing.book = entries;
        pricing.rates.extend(book.pricing.rates);
        stale.extend(book.stale);
    }
    Ok(Prices {
        pricing,
        book_file,
        stale,
    })
}

/// How a create goes through its placement.
pub struct CreateWay {
    /// On a terminal without `--yes`: show where it would go and what it costs, and ask.
    pub ask: bool,
    /// One provider and a request with one place to go: no attempt lines, and the create's own
    /// error rather than the placement's.
    pub single: bool,
}

/// Creates through a placement, one provider being a placement of one: plans it, shows the
/// plan and asks when `way.ask`, then executes that plan (nothing is resolved twice);
/// `confirmed` runs once the create is decided, before anything is sent. Says on stderr what
/// happened at each provider.
pub async fn create(
    ctx: &Context,
    target: &PlacementTargetArgs,
    spec: &ClusterSpec,
    ledger: Option<Arc<Ledger>>,
    way: CreateWay,
    confirmed: impl FnOnce(),
) -> Result<Placed, CliError> {
    let clients = clients(ctx, target, ledger.as_ref(), way.single)?;
    let pricing = pricing(ctx.config()?, target.price_book.as_deref())?;
    let placement = placement(ctx, target, spec, &clients, &pricing)?;
    let plans = placement.plan().await;
    if way.ask {
        let ceiling = target
            .max_price_per_hour
            .map(|_| (&pricing, target.currency.as_str()));
        show_plans(spec, &plans, ceiling);
        crate::confirm::ask("Create it?").await?;
    }
    confirmed();
    for (provider, why) in &clients.left_out {
        tell!("{provider}: left out: {why}");
    }
    if let Some(ledger) = &ledger {
        for (_, client) in &clients.candidates {
            settle_earlier(ledger, client).await;
        }
    }
    let mut attempts = Vec::new();
    let result = placement
        .execute(plans, |attempt| attempts.push(attempt.clone()))
        .await;
    for attempt in &mut attempts {
        if let AttemptOutcome::Skipped { kind, reason }
        | AttemptOutcome::Refused { kind, reason }
        | AttemptOutcome::Failed { kind, reason } = &mut attempt.outcome
        {
            crate::request::reason_in_users_words(attempt.provider, *kind, reason);
        }
    }
    for attempt in attempts.iter().filter(|_| !way.single) {
        let line = match &attempt.outcome {
            AttemptOutcome::Skipped { kind, reason } => {
                format!("skipped: {}{}", flatten(reason), hint(*kind))
            }
            AttemptOutcome::Refused { reason, .. } => {
                format!("refused: {}", flatten(reason))
            }
            AttemptOutcome::Failed { reason, .. } => format!("failed: {}", flatten(reason)),
            AttemptOutcome::NotTried => "not tried".into(),
            // Created, found or adopted, as it happened (the headline on stdout says the same).
            made => made.describe(),
        };
        tell!("{}: {line}", attempt.place());
    }
    if let Ok(placed) = &result
        && let PriceCheck::Unchecked { reason } = &placed.price_check
    {
        tell!(
            "warning: {} cluster {}: its own price could not be checked against the ceiling \
             ({}); the catalog's price for it was within it",
            placed.provider,
            cell(placed.created.cluster.id.as_str()),
            flatten(reason)
        );
    }
    match result {
        // The attempts as said on stderr (reasons in the user's words).
        Ok(mut placed) => {
            placed.attempts = attempts;
            Ok(placed)
        }
        Err(error) if way.single => Err(error.into()),
        Err(error) => Err(CliError::Placement(Box::new(
            crate::error::PlacementFailed { error, attempts },
        ))),
    }
}

/// What the user can do about a candidate skipped for a reason of this kind, if a flag of
/// ours decides it.
pub fn hint(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Undeletable => " (--allow-no-delete takes it anyway)",
        _ => "",
    }
}

/// What a resolved request would cost: per hour for the whole cluster, and for its `ttl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Per hour, where the offering states a price.
    pub per_hour: Option<f64>,
    /// Its currency.
    pub currency: Option<String>,
    /// For the request's `ttl` (per hour times its hours), where both are known and something
    /// ends the cluster at its ttl (`null` on a provider whose API cannot delete it).
    pub for_ttl: Option<f64>,
    /// Who ends the cluster at its ttl: `provider` (Together, asked with `--ttl-by-provider`),
    /// `sweep` (`clusters sweep --expired --delete`, where one runs) or `nothing`; `null`
    /// without a ttl.
    pub ended_by: Option<&'static str>,
    /// Whether the catalog was read for it (not for a request that names every id).
    pub looked_up: bool,
    /// Where the price comes from: the provider's answer, or a price book entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<gpucloud::catalog::PriceSource>,
    /// The price per hour in the ceiling's currency, where it is another and a rate converts
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converted: Option<gpucloud::catalog::Converted>,
    /// The currency of `converted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converted_into: Option<String>,
}

impl Estimate {
    /// The estimate of `resolution` for `spec` (its ttl) on `provider`.
    pub fn of(
        resolution: &gpucloud::catalog::Resolution,
        spec: &ClusterSpec,
        provider: gpucloud::ProviderKind,
    ) -> Self {
        let price = resolution.price_per_hour();
        let ended_by = spec.ttl.map(|_| ended_by(spec, provider));
        Self {
            per_hour: price.map(|(amount, _)| amount),
            currency: price.map(|(_, currency)| currency.to_string()),
            for_ttl: price
                .zip(spec.ttl)
                .filter(|_| ended_by != Some(NOTHING))
                .map(|((amount, _), ttl)| amount * ttl.as_secs_f64() / 3600.0),
            ended_by,
            looked_up: resolution.offering.is_some(),
            source: resolution
                .offering
                .as_ref()
                .and_then(|o| o.price.as_ref())
                .map(|p| p.source.clone()),
            converted: None,
            converted_into: None,
        }
    }

    /// This estimate with its price per hour in `currency` too, where it is another and
    /// `pricing` has a rate for it.
    #[must_use]
    pub fn in_currency(mut self, pricing: &gpucloud::catalog::Pricing, currency: &str) -> Self {
        if let (Some(amount), Some(from)) = (self.per_hour, &self.currency)
            && !from.eq_ignore_ascii_case(currency)
        {
            self.converted = pricing.convert(amount, from, currency).ok();
            self.converted_into = self
                .converted
                .is_some()
                .then(|| currency.to_ascii_uppercase());
        }
        self
    }

    /// `47.84 USD/h (382.72 USD for 8h)`, or `price not stated`, then who ends the cluster
    /// at its ttl on `provider` (see [`who_ends_it`]).
    pub fn describe(&self, spec: &ClusterSpec, provider: gpucloud::ProviderKind) -> String {
        let mut cost = self.cost(spec.ttl);
        if let (Some(converted), Some(into)) = (&self.converted, &self.converted_into) {
            cost.push_str(&format!(
                " = {:.2} {}/h (rate {}, as of {})",
                converted.amount,
                cell(into),
                converted.rate.unwrap_or_default(),
                converted
                    .as_of
                    .map_or_else(|| "-".to_string(), |d| d.to_string())
            ));
        }
        if let Some(source) = &self.source {
            cost.push_str(&format!(" [{}]", cell(source.describe())));
        }
        match who_ends_it(spec, provider) {
            Some(who) => format!("{cost}; {who}"),
            None => cost,
        }
    }

    fn cost(&self, ttl: Option<Duration>) -> String {
        let (Some(per_hour), Some(currency)) = (self.per_hour, &self.currency) else {
            return if self.looked_up {
                "price not stated by the provider".into()
            } else {
                "not looked up: the request names its ids (`gpucloud catalog` lists prices)".into()
            };
        };
        let currency = cell(currency);
        match (self.for_ttl, ttl) {
            // Nothing ends it at its ttl: no total as if something did.
            (None, Some(_)) if self.ended_by == Some(NOTHING) => {
                format!("{per_hour:.2} {currency}/h (until stopped by hand)")
            }
            (Some(total), Some(ttl)) => format!(
                "{per_hour:.2} {currency}/h ({total:.2} {currency} for its ttl of {})",
                humantime::format_duration(ttl)
            ),
            _ => format!("{per_hour:.2} {currency}/h (no ttl: it bills until deleted)"),
        }
    }
}

/// [`Estimate::ended_by`]'s word for a cluster nothing ends at its ttl.
const NOTHING: &str = "nothing";

/// Who ends a cluster of `spec` (with a ttl) on `provider`: `provider`, `sweep` or `nothing`.
fn ended_by(spec: &ClusterSpec, provider: gpucloud::ProviderKind) -> &'static str {
    if !provider.profile().deletes_clusters {
        NOTHING
    } else if spec.ttl_by_provider && provider.profile().ends_clusters_itself.is_some() {
        "provider"
    } else {
        "sweep"
    }
}

/// Who ends a cluster of `spec` on `provider` at its ttl, said beside its cost: the provider
/// itself (a Together reservation of whole days, the rounding shown), a sweep someone runs, or
/// nothing (an API that cannot delete). `None` without a ttl.
pub fn who_ends_it(spec: &ClusterSpec, provider: gpucloud::ProviderKind) -> Option<String> {
    let ttl = spec.ttl?;
    let profile = provider.profile();
    let by = ended_by(spec, provider);
    if by == NOTHING {
        return Some(format!(
            "nothing ends it at its ttl of {}: {} cannot delete a cluster through its API, so \
             it bills until stopped in {}",
            humantime::format_duration(ttl),
            profile.display_name,
            profile.console
        ));
    }
    if let (true, Some(ends_after)) = (by == "provider", profile.ends_clusters_itself) {
        // The provider's own rounding, as its request is built: whole days.
        let days = ends_after(ttl).as_secs() / (24 * 3600);
        return Some(format!(
            "{} ends it itself when its reservation ends: the ttl of {} rounded up to \
             {days} day(s) (billed as a reservation); `gpucloud clusters sweep --expired \
             --delete` also deletes it at the ttl where one runs",
            profile.display_name,
            humantime::format_duration(ttl)
        ));
    }
    Some(format!(
        "its ttl of {} is kept by `gpucloud clusters sweep --expired --delete`: it ends at \
         the deadline only where that runs (a reaper: `--watch`, or deploy/)",
        humantime::format_duration(ttl)
    ))
}

/// Before a create on a terminal: where it would go, in order, with what each costs.
/// `in_currency`: the pricing and the ceiling's currency, each cost also shown converted into
/// it where it is in another.
fn show_plans(
    spec: &ClusterSpec,
    plans: &[CandidatePlan],
    in_currency: Option<(&gpucloud::catalog::Pricing, &str)>,
) {
    tell!("About to create {}; tried in this order:", cell(&spec.name));
    let mut i = 0;
    for plan in plans {
        let resolution = match &plan.resolution {
            Ok(resolution) => resolution,
            Err(error) => {
                tell!(
                    "  -  {}: skipped: {}{}",
                    plan.provider,
                    one_line(error),
                    hint(error.kind())
                );
                continue;
            }
        };
        for resolution in std::iter::once(resolution).chain(&plan.other_regions) {
            i += 1;
            let region = resolution
                .region()
                .map_or_else(String::new, |r| format!(" ({})", cell(r)));
            let mut estimate = Estimate::of(resolution, spec, plan.provider);
            if let Some((pricing, currency)) = in_currency {
                estimate = estimate.in_currency(pricing, currency);
            }
            tell!(
                "  {i}. {}{region}: {}",
                plan.provider,
                estimate.describe(spec, plan.provider)
            );
        }
    }
}

/// `plan --json` over several providers: one entry per candidate, in the order tried.
#[derive(Serialize)]
struct PlannedCandidate {
    provider: ProviderKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<gpucloud::PlannedRequest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    /// The regions tried in turn, in this order, when the plan's region has no capacity.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    other_regions: Vec<String>,
    /// What the plan's request would cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<Estimate>,
    /// How the cluster would be reached (SSH keys, or kubeconfig).
    #[serde(skip_serializing_if = "Option::is_none")]
    access: Option<String>,
    /// The candidate a create would make the cluster at first: the first not skipped.
    chosen: bool,
}

/// Prints, for each candidate in the order a create would try them, its resolved request or
/// why it would be skipped. Nothing is created.
pub async fn plan(
    ctx: &Context,
    target: &PlacementTargetArgs,
    spec: &ClusterSpec,
    ledger: Option<Arc<Ledger>>,
) -> Result<(), CliError> {
    let clients = clients(ctx, target, ledger.as_ref(), false)?;
    let pricing = pricing(ctx.config()?, target.price_book.as_deref())?;
    let plans: Vec<CandidatePlan> = placement(ctx, target, spec, &clients, &pricing)?
        .plan()
        .await;
    let mut out: Vec<PlannedCandidate> = clients
        .left_out
        .iter()
        .map(|(provider, why)| PlannedCandidate {
            provider: *provider,
            plan: None,
            skipped: Some(why.clone()),
            other_regions: Vec::new(),
            cost: None,
            access: None,
            chosen: false,
        })
        .collect();
    for candidate in plans {
        let other_regions: Vec<String> = candidate
            .other_regions
            .iter()
            .filter_map(|r| r.region().map(str::to_string))
            .collect();
        let client = clients.candidates.get(candidate.candidate).map(|(_, c)| c);
        let cost = candidate.resolution.as_ref().ok().map(|resolution| {
            let estimate = Estimate::of(resolution, spec, candidate.provider);
            match target.max_price_per_hour {
                Some(_) => estimate.in_currency(&pricing, &target.currency),
                None => estimate,
            }
        });
        let reached = candidate
            .resolution
            .as_ref()
            .ok()
            .map(|resolution| access(candidate.provider, &resolution.spec));
        let planned = match (candidate.resolution, client) {
            (Ok(resolution), Some(client)) => client.plan(&resolution.spec).await.map(|mut p| {
                p.resolved = resolution.choices;
                p
            }),
            (Err(error), _) => Err(error),
            (Ok(_), None) => continue,
        };
        out.push(match planned {
            Ok(plan) => PlannedCandidate {
                provider: candidate.provider,
                plan: Some(plan),
                skipped: None,
                other_regions,
                cost,
                access: reached,
                chosen: false,
            },
            Err(mut error) => PlannedCandidate {
                provider: candidate.provider,
                plan: None,
                skipped: Some({
                    crate::request::in_users_words(&mut error);
                    format!("{}{}", one_line(&error), hint(error.kind()))
                }),
                other_regions: Vec::new(),
                cost: None,
                access: None,
                chosen: false,
            },
        });
    }
    if let Some(first) = out.iter_mut().find(|c| c.plan.is_some()) {
        first.chosen = true;
    }
    if ctx.output().is_json() {
        output::json(&out)?;
        return nothing_to_create(&out);
    }
    for (i, candidate) in out.iter().enumerate() {
        match (&candidate.plan, &candidate.skipped) {
            (Some(plan), _) => {
                say!("== {}. {}", i + 1, candidate.provider);
                crate::terminal::stdout_text(&plan.to_string());
                if let Some(cost) = &candidate.cost {
                    say!("\nCost: {}", cost.describe(spec, candidate.provider));
                }
                if let Some(access) = &candidate.access {
                    say!("Access: {access}");
                }
                if !candidate.other_regions.is_empty() {
                    say!(
                        "\nIf that region has no capacity, the same request in: {}.",
                        cell(candidate.other_regions.join(", "))
                    );
                }
            }
            (None, Some(why)) => say!(
                "== {}. {}: skipped: {}",
                i + 1,
                candidate.provider,
                cell(why)
            ),
            (None, None) => {}
        }
    }
    if out.len() > 1 {
        say!(
            "\nConsidered, in the order a create tries them:\n{}",
            considered(&out)
        );
    }
    nothing_to_create(&out)
}

/// One table of every candidate: its price per hour (converted where it was), its source,
/// and CHOSEN, next, or why it was passed over.
fn considered(out: &[PlannedCandidate]) -> String {
    let mut list =
        crate::table::table(&["#", "provider", "region", "per hour", "source", "verdict"]);
    for (i, c) in out.iter().enumerate() {
        let per_hour = c.cost.as_ref().map_or_else(
            || "-".to_string(),
            |cost| match (
                &cost.converted,
                &cost.converted_into,
                cost.per_hour,
                &cost.currency,
            ) {
                (Some(converted), Some(into), _, _) => {
                    format!("{:.2} {}", converted.amount, cell(into))
                }
                (_, _, Some(amount), Some(currency)) => format!("{amount:.2} {}", cell(currency)),
                _ => "unpriced".to_string(),
            },
        );
        let source = c
            .cost
            .as_ref()
            .and_then(|cost| cost.source.as_ref())
            .map_or_else(|| "-".to_string(), |s| cell(s.describe()));
        let verdict = match (&c.skipped, c.chosen) {
            (Some(why), _) => format!("passed over: {}", cell(why)),
            (None, true) => "CHOSEN".to_string(),
            (None, false) => "next, if those before it have no capacity".to_string(),
        };
        let region = c
            .plan
            .as_ref()
            .and_then(|p| p.resolved.iter().find(|choice| choice.field == "region"))
            .map_or_else(|| "-".to_string(), |choice| cell(&choice.value));
        list.add_row([
            (i + 1).to_string(),
            c.provider.to_string(),
            region,
            per_hour,
            source,
            verdict,
        ]);
    }
    crate::table::render(&mut list)
}

/// `Ok` when some candidate of a plan can be created; the failure `create` would end with
/// when none can (every one skipped, or none with credentials).
fn nothing_to_create(planned: &[PlannedCandidate]) -> Result<(), CliError> {
    if planned.iter().any(|candidate| candidate.plan.is_some()) {
        return Ok(());
    }
    Err(CliError::NothingToCreate(format!(
        "no candidate can be created: {} of {} skipped",
        planned.len(),
        planned.len()
    )))
}
