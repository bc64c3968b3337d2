//! `gpucloud ledger` and `gpucloud clusters sweep`: what gpucloud created, read from the local
//! ledger — for Runcrate, which lets nobody list clusters, the only list there is — and the
//! clusters still alive after a while, deleted (and the deletes verified) on request.

use chrono::{DateTime, Utc};
use gpucloud::{Error, ProviderKind};
use gpucloud_ledger::sweep::{SweepAction, SweepEvent, SweepPolicy, Swept};
use gpucloud_ledger::{ClusterEntry, IntentState, Provenance};
use serde::Serialize;

use super::wait::wait_options;
use crate::cli::{ConnectionArgs, LedgerArgs, SweepArgs, TargetArgs};
use crate::context::{Context, LedgerUse};
use crate::error::CliError;
use crate::output;
use crate::output::elapsed;
use crate::sanitize::cell;
use crate::table::{render, table};

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

/// The error a refresh that could not read every cluster ends with (none when it could).
fn unrefreshed_error(unrefreshed: usize) -> Result<(), CliError> {
    match unrefreshed {
        0 => Ok(()),
        n => Err(CliError::Other(format!(
            "{n} clusters could not be refreshed: their state is the last one recorded"
        ))),
    }
}

/// A client for each provider, configured from the environment with the ledger as its
/// journal: what the ledger's refresh and sweep reach clusters through.
fn clients<'a>(
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
/// each that could not be read is said on stderr and left as it was recorded. Returns how
/// many were, so that the run fails after the table instead of passing in silence.
async fn refresh(
    ctx: &Context,
    ledger: &std::sync::Arc<gpucloud_ledger::Ledger>,
) -> Result<usize, CliError> {
    let clients = clients(ctx, ledger, std::time::Duration::from_secs(30));
    let unrefreshed = ledger
        .refresh(&clients)
        .await
        .map_err(|e| CliError::Other(format!("reading the ledger: {e}")))?;
    for not_read in &unrefreshed {
        tell!(
            "{} {}: not refreshed: {}",
            not_read.provider,
            cell(&not_read.cluster_id),
            one_line_text(&not_read.reason)
        );
    }
    Ok(unrefreshed.len())
}

fn one_line_text(text: &str) -> String {
    crate::error::flatten(text)
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

/// Until the entry's deadline (`7h59m`), `expired 3m ago`, or `-` without one.
fn time_left(entry: &ClusterEntry, now: DateTime<Utc>) -> String {
    match (entry.deadline, entry.may_be_alive()) {
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

fn age(entry: &ClusterEntry, now: DateTime<Utc>) -> String {
    elapsed((now - entry.created_at).to_std().unwrap_or_default())
}

pub async fn show(ctx: &Context, args: &LedgerArgs) -> Result<(), CliError> {
    let Some(ledger) = ctx.readable_ledger()? else {
        return Err(CliError::Usage(
            "--no-ledger: there is no ledger to show".into(),
        ));
    };
    let unrefreshed = if args.refresh {
        refresh(ctx, &ledger).await?
    } else {
        0
    };
    let now = Utc::now();
    let entries: Vec<_> = ledger
        .clusters()
        .map_err(|e| CliError::Other(format!("reading the ledger: {e}")))?
        .into_iter()
        .filter(|e| args.all || e.may_be_alive() || e.state.is_unresolved())
        .collect();
    if ctx.output().is_json() {
        output::json(&entries.iter().map(|e| row(e, now)).collect::<Vec<_>>())?;
        return unrefreshed_error(unrefreshed);
    }
    if entries.is_empty() {
        say!(
            "No clusters {}in the ledger at {}.",
            if args.all { "" } else { "that may be alive " },
            cell(ledger.location())
        );
        return unrefreshed_error(unrefreshed);
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
    unrefreshed_error(unrefreshed)
}

/// `clusters sweep --json`: one per cluster looked at.
#[derive(Serialize)]
struct SweptRow {
    provider: ProviderKind,
    name: String,
    cluster_id: String,
    age_secs: u64,
    /// `alive` (listed, not deleted), `deleted`, `gone` (the provider no longer had it),
    /// `stop_by_hand` (alive on a provider whose API cannot delete it: `detail` says where
    /// it is stopped), or `error`.
    action: &'static str,
    detail: Option<String>,
}

impl SweptRow {
    fn of(swept: &Swept) -> Self {
        let detail = match &swept.action {
            SweepAction::Alive {
                state,
                not_deleted: None,
            } => Some(state.clone()),
            SweepAction::Alive {
                state,
                not_deleted: Some(why),
            } => Some(format!("{state}; {why}")),
            SweepAction::Deleted { took } => Some(format!("gone after {}", elapsed(*took))),
            SweepAction::Gone { released: true } => {
                Some("failed to start; released by the provider".into())
            }
            SweepAction::Gone { released: false } => None,
            SweepAction::StopByHand { state, console } => {
                Some(format!("{state}; stop it in {console}"))
            }
            SweepAction::Failed { reason } => Some(one_line_text(reason)),
        };
        Self {
            provider: swept.provider,
            name: swept.name.clone(),
            cluster_id: swept.cluster_id.to_string(),
            age_secs: swept.age.as_secs(),
            action: swept.action.as_str(),
            detail,
        }
    }
}

/// The sweep `args` ask for.
fn policy(args: &SweepArgs) -> SweepPolicy {
    let mut policy = SweepPolicy::new().for_providers(args.provider);
    if let Some(age) = args.older_than {
        policy = policy.older_than(age);
    }
    if args.expired {
        policy = policy.expired();
    }
    if args.delete {
        policy = policy.deleting(wait_options(&args.wait));
    }
    policy
}

pub async fn sweep(ctx: &Context, args: &SweepArgs) -> Result<(), CliError> {
    let Some(ledger) = ctx.ledger(LedgerUse::Required("sweep"))? else {
        return Err(CliError::Usage(
            "--no-ledger: the sweep finds clusters through the ledger".into(),
        ));
    };
    let read =
        |e: gpucloud_ledger::LedgerError| CliError::Other(format!("reading the ledger: {e}"));
    let mut policy = policy(args);
    // On a terminal, what would be deleted, and the question, before any delete: only the
    // clusters listed then are deleted (one that became due meanwhile is listed as alive).
    if args.delete && !args.yes && crate::confirm::interactive() {
        let now = Utc::now();
        let due: Vec<ClusterEntry> = ledger
            .due(&policy, now)
            .map_err(read)?
            .into_iter()
            .filter(|e| e.provider.profile().deletes_clusters)
            .collect();
        policy = policy.confirmed(
            due.iter()
                .filter_map(|e| Some((e.provider, e.cluster_id.clone()?)))
                .collect(),
        );
        if due.is_empty() {
            tell!("Nothing to delete through a provider's API.");
        } else {
            tell!("About to delete (each delete verified):");
            for entry in &due {
                tell!(
                    "  {} {} ({}), age {}",
                    entry.provider,
                    entry.cluster_id.as_ref().map_or_else(|| "-".into(), cell),
                    cell(&entry.name),
                    age(entry, now)
                );
            }
            crate::confirm::ask(&format!("Delete these {} clusters?", due.len())).await?;
        }
    }
    // On a terminal, each cluster as it is looked at and its delete as it goes; quiet
    // elsewhere (the table or JSON at the end says it all).
    let on_terminal = crate::terminal::stderr_is_terminal();
    let mut display: Option<crate::progress::ProgressDisplay> = None;
    let clients = clients(ctx, &ledger, args.request_timeout);
    let report = ledger
        .sweep(&clients, &policy, |event| {
            if !on_terminal {
                return;
            }
            match event {
                SweepEvent::LookingUp { provider, id } => {
                    tell!("{provider} {}: looking it up", cell(id));
                    display = Some(crate::progress::ProgressDisplay::new(
                        format!("{provider} {}: ", cell(id)),
                        1.0,
                    ));
                }
                SweepEvent::Deleting { progress, .. } => {
                    if let Some(display) = &display {
                        display.update(progress);
                    }
                }
                _ => {}
            }
        })
        .await
        .map_err(read)?;
    for (provider, why) in &report.skipped {
        tell!("warning: skipping {provider}: {}", one_line_text(why));
    }
    for (_, why) in &report.unsettled {
        tell!(
            "warning: could not settle earlier unresolved creates: {}",
            one_line_text(why)
        );
    }
    crate::ledger::say_settled(&report.settled);
    let swept: Vec<SweptRow> = report.swept.iter().map(SweptRow::of).collect();
    let failed = report.failed().count();
    let by_hand: Vec<&SweptRow> = swept.iter().filter(|s| s.action == STOP_BY_HAND).collect();
    if ctx.output().is_json() {
        output::json(&swept)?;
    } else if swept.is_empty() {
        let which = match (args.older_than, args.expired) {
            (Some(age), true) => format!("created more than {} ago and expired", elapsed(age)),
            (Some(age), false) => format!("created more than {} ago", elapsed(age)),
            (None, _) => "past its deadline".to_string(),
        };
        say!("No cluster gpucloud {which} is alive.");
    } else {
        let through_api: Vec<&SweptRow> =
            swept.iter().filter(|s| s.action != STOP_BY_HAND).collect();
        if !through_api.is_empty() {
            say!("{}", render(&mut swept_table(&through_api)));
        }
        if !by_hand.is_empty() {
            say!(
                "{}Alive, and not deletable through the provider's API (they bill until stopped \
                 by hand where `detail` says):\n{}",
                if through_api.is_empty() { "" } else { "\n" },
                render(&mut swept_table(&by_hand))
            );
        }
    }
    if failed > 0 {
        return Err(CliError::Other(format!(
            "{failed} of {} clusters could not be swept: they may still be billing",
            swept.len()
        )));
    }
    if args.delete && !by_hand.is_empty() {
        let consoles: std::collections::BTreeSet<&str> = by_hand
            .iter()
            .map(|s| s.provider.profile().console)
            .collect();
        return Err(CliError::StillBilling(format!(
            "{} of {} clusters cannot be deleted through their provider's API and are still \
             billing: stop them in {}",
            by_hand.len(),
            swept.len(),
            consoles.into_iter().collect::<Vec<_>>().join(" and ")
        )));
    }
    Ok(())
}

/// `action` of a cluster alive on a provider whose API cannot delete it.
const STOP_BY_HAND: &str = "stop_by_hand";

fn swept_table(rows: &[&SweptRow]) -> comfy_table::Table {
    let mut list = table(&["provider", "name", "cluster", "age", "action", "detail"]);
    for s in rows {
        list.add_row([
            s.provider.to_string(),
            cell(&s.name),
            cell(&s.cluster_id),
            elapsed(std::time::Duration::from_secs(s.age_secs)),
            s.action.to_string(),
            s.detail.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    list
}
