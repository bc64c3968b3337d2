//! `gpucloud ledger`: what gpucloud created, read from the local ledger — for Runcrate, which
//! lets nobody list clusters, the only list there is — with `--refresh` first asking each
//! provider for the current state.

use chrono::{DateTime, Utc};
use clap::Args;
use gpucloud::{Error, ProviderKind};
use gpucloud_ledger::{ClusterEntry, IntentState, Provenance};
use serde::Serialize;

use crate::context::Context;
use crate::error::{CliError, flatten};
use crate::flags::{ConnectionArgs, TargetArgs};
use crate::output;
use crate::output::elapsed;
use crate::sanitize::cell;
use crate::table::{render, table};

#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// Also show creates that made nothing, and clusters known to be gone.
    #[arg(long)]
    pub all: bool,
    /// Ask each provider for the current state of every cluster that may be alive first
    /// (one get each, through the endpoint and account that created it), and record it;
    /// without it, the ledger shows the last state a command saw and sends nothing.
    #[arg(long)]
    pub refresh: bool,
}

/// One row of `gpucloud ledger --json`: the entry, its age and its cost so far.
#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    entry: &'a ClusterEntry,
    age_secs: i64,
    may_be_alive: bool,
    /// Seconds until the deadline (negative once passed), for a cluster that has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_left_secs: Option<i64>,
    cost_so_far: Option<Cost<'a>>,
}

#[derive(Serialize)]
struct Cost<'a> {
    amount: f64,
    currency: &'a str,
}

fn row(entry: &ClusterEntry, now: DateTime<Utc>) -> Row<'_> {
    Row {
        entry,
        age_secs: (now - entry.created_at).num_seconds().max(0),
        may_be_alive: entry.may_be_alive(),
        time_left_secs: entry.deadline.map(|d| (d - now).num_seconds()),
        cost_so_far: entry
            .cost_so_far(now)
            .map(|(amount, currency)| Cost { amount, currency }),
    }
}

/// What a refresh could not do: clusters not read, creates whose outcome is still unknown.
#[derive(Default)]
struct NotRefreshed {
    unread: usize,
    unknown: usize,
}

/// The error a refresh that could not read every cluster, or settle every create, ends with
/// (none when it could).
fn unrefreshed_error(not: &NotRefreshed) -> Result<(), CliError> {
    let mut parts = Vec::new();
    if not.unread > 0 {
        parts.push(format!(
            "{} clusters could not be refreshed: their state is the last one recorded",
            not.unread
        ));
    }
    if not.unknown > 0 {
        parts.push(format!(
            "{} creates have an unknown outcome: each may have made a cluster that bills",
            not.unknown
        ));
    }
    if parts.is_empty() {
        Ok(())
    } else {
        Err(CliError::Other(parts.join("; ")))
    }
}

/// Says on stderr each create whose outcome is still unknown, why, and from when a sweep can
/// settle it.
pub(super) fn say_unknown(unknown: &[gpucloud_ledger::Unknown]) {
    for u in unknown {
        let when = u.settles_after.map_or_else(
            || "no sweep settles it by itself".to_string(),
            |at| {
                format!(
                    "a sweep can settle it from {}",
                    at.format("%Y-%m-%d %H:%M:%S UTC")
                )
            },
        );
        tell!(
            "{} {:?} (create #{}): outcome unknown, a cluster may be billing: {}; {when}",
            u.provider,
            cell(&u.name),
            u.intent,
            flatten(&u.reason)
        );
    }
}

/// A client for each provider, configured from the environment with the ledger as its
/// journal: what the ledger's refresh and sweep reach clusters through.
pub(super) fn clients<'a>(
    ctx: &'a Context,
    ledger: &'a std::sync::Arc<gpucloud_ledger::Ledger>,
    request_timeout: std::time::Duration,
) -> impl Fn(ProviderKind) -> Result<gpucloud::ClusterClient, Error> + Sync + 'a {
    move |provider| {
        let target = TargetArgs {
            provider,
            connection: ConnectionArgs::defaults(request_timeout),
        };
        ctx.connect(&target, Some(ledger))
    }
}

/// Reads every cluster the ledger says may be alive ([`gpucloud_ledger::Ledger::refresh`]);
/// the creates of unknown outcome are settled first. Each cluster that could not be read,
/// and each create still unknown, is said on stderr; the counts are returned so that the run
/// fails after the table instead of passing in silence.
async fn refresh(
    ctx: &Context,
    ledger: &std::sync::Arc<gpucloud_ledger::Ledger>,
) -> Result<NotRefreshed, CliError> {
    let clients = clients(ctx, ledger, std::time::Duration::from_secs(30));
    let report = ledger
        .refresh(&clients)
        .await
        .map_err(|e| CliError::Other(format!("reading the ledger: {e}")))?;
    crate::ledger::say_settled(&report.settled);
    say_unknown(&report.unknown);
    for not_read in &report.unrefreshed {
        tell!(
            "{} {}: not refreshed: {}",
            not_read.provider,
            cell(&not_read.cluster_id),
            flatten(&not_read.reason)
        );
    }
    Ok(NotRefreshed {
        unread: report.unrefreshed.len(),
        unknown: report.unknown.len(),
    })
}

/// What the ledger knows of an entry's state, in a word or two, and how it came to be ours
/// where not by our create.
fn state(entry: &ClusterEntry) -> String {
    match entry.provenance {
        Provenance::Created => known_state(entry),
        Provenance::Adopted => format!("{} (adopted)", known_state(entry)),
        Provenance::Found => format!("{} (found, not ours: never swept)", known_state(entry)),
    }
}

fn known_state(entry: &ClusterEntry) -> String {
    if entry.released {
        return "failed to start; released by the provider (nothing bills)".into();
    }
    match (entry.state, &entry.last_seen, &entry.error) {
        (IntentState::Pending | IntentState::FailedAmbiguous, _, _) => {
            "unknown (create unanswered)".into()
        }
        (IntentState::Failed, _, Some(error)) => format!("create failed: {}", error.kind),
        (IntentState::Failed, _, None) => "create failed".into(),
        (IntentState::Completed, Some(seen), _) => cell(&seen.state),
        (IntentState::Completed, None, _) => "created".into(),
    }
}

/// [`deadline_left`], and when the provider itself ends the cluster where it does (a
/// Together reservation): `7h59m; Together ends it in 1day 7h59m`.
fn time_left(entry: &ClusterEntry, now: DateTime<Utc>) -> String {
    let left = deadline_left(entry, now);
    match entry.provider_ends_at {
        Some(at) if entry.may_be_alive() || entry.state.is_unsettled() => format!(
            "{left}; {} ends it in {}",
            entry.provider.profile().display_name,
            elapsed((at - now).to_std().unwrap_or_default())
        ),
        _ => left,
    }
}

/// Until the entry's deadline (`7h59m`), `expired 3m ago`, or `-` without one (or once the
/// cluster is gone). A create of unknown outcome shows its deadline too: its cluster may exist.
fn deadline_left(entry: &ClusterEntry, now: DateTime<Utc>) -> String {
    match (
        entry.deadline,
        entry.may_be_alive() || entry.state.is_unsettled(),
    ) {
        (Some(deadline), true) if deadline > now => {
            elapsed((deadline - now).to_std().unwrap_or_default())
        }
        (Some(deadline), true) => format!(
            "EXPIRED {} ago",
            elapsed((now - deadline).to_std().unwrap_or_default())
        ),
        _ => "-".into(),
    }
}

pub(super) fn age(entry: &ClusterEntry, now: DateTime<Utc>) -> String {
    elapsed((now - entry.created_at).to_std().unwrap_or_default())
}

pub async fn run(ctx: &Context, args: &LedgerArgs) -> Result<(), CliError> {
    let Some(ledger) = ctx.readable_ledger()? else {
        return Err(CliError::Usage(
            "--no-ledger: there is no ledger to show".into(),
        ));
    };
    let unrefreshed = if args.refresh {
        refresh(ctx, &ledger).await?
    } else {
        NotRefreshed::default()
    };
    let now = Utc::now();
    let entries: Vec<_> = ledger
        .clusters()
        .map_err(|e| CliError::Other(format!("reading the ledger: {e}")))?
        .into_iter()
        .filter(|e| args.all || e.may_be_alive() || e.state.is_unsettled())
        .collect();
    if ctx.output().is_json() {
        output::json(&entries.iter().map(|e| row(e, now)).collect::<Vec<_>>())?;
        return unrefreshed_error(&unrefreshed);
    }
    if entries.is_empty() {
        say!(
            "No clusters {}in the ledger at {}.",
            if args.all { "" } else { "that may be alive " },
            cell(ledger.location())
        );
        return unrefreshed_error(&unrefreshed);
    }
    let mut list = table(&[
        "provider",
        "name",
        "cluster",
        "state",
        "age",
        "time left",
        "cost so far",
    ]);
    for entry in &entries {
        let cost = entry.cost_so_far(now).map_or_else(
            || "-".to_string(),
            |(amount, currency)| format!("{amount:.2} {}", cell(currency)),
        );
        list.add_row([
            entry.provider.to_string(),
            cell(&entry.name),
            entry.cluster_id.as_ref().map_or_else(|| "-".into(), cell),
            state(entry),
            age(entry, now),
            time_left(entry, now),
            cost,
        ]);
    }
    say!("{}", render(&mut list));
    unrefreshed_error(&unrefreshed)
}
