//! `gpucloud ledger` and `gpucloud clusters sweep`: what gpucloud created, read from the local
//! ledger — for Runcrate, which lets nobody list clusters, the only list there is — and the
//! clusters still alive after a while, deleted (and the deletes verified) on request.

use chrono::{DateTime, Utc};
use gpucloud::{ClusterId, ClusterState, Error, ProviderKind};
use gpucloud_ledger::{ClusterEntry, IntentState, Provenance};
use serde::Serialize;

use super::wait::wait_options;
use crate::cli::{ConnectionArgs, LedgerArgs, SweepArgs, TargetArgs};
use crate::context::{Context, LedgerUse};
use crate::error::{CliError, one_line};
use crate::ledger::resolve_earlier;
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

/// One get of every cluster the ledger says may be alive, through a client of its own origin
/// (the get records what it saw, or that it is gone). A provider without credentials, or a
/// cluster that could not be read, is said on stderr and left as it was recorded; returns how
/// many were, so that the run fails after the table instead of passing in silence.
async fn refresh(
    ctx: &Context,
    ledger: &std::sync::Arc<gpucloud_ledger::Ledger>,
) -> Result<usize, CliError> {
    let mut unrefreshed = 0;
    let entries: Vec<ClusterEntry> = ledger
        .clusters()
        .map_err(|e| CliError::Other(format!("reading the ledger: {e}")))?
        .into_iter()
        .filter(ClusterEntry::may_be_alive)
        .collect();
    for entry in entries {
        let Some(id) = &entry.cluster_id else {
            continue;
        };
        let target = TargetArgs {
            provider: entry.provider,
            connection: ConnectionArgs::defaults(std::time::Duration::from_secs(30)),
        };
        let client = match ctx.connect(&target, Some(ledger)) {
            Ok(client) => client,
            Err(error) => {
                tell!(
                    "{} {}: not refreshed: {}",
                    entry.provider,
                    cell(id),
                    one_line(&error)
                );
                continue;
            }
        };
        let Some(here) = crate::ledger::client_for(&client, &entry) else {
            tell!(
                "{} {}: not refreshed: created through another endpoint or account",
                entry.provider,
                cell(id)
            );
            unrefreshed += 1;
            continue;
        };
        if let Err(error) = here.get(id).await
            && !matches!(error, Error::NotFound(_))
        {
            tell!(
                "{} {}: not refreshed: {}",
                entry.provider,
                cell(id),
                one_line(&error)
            );
            unrefreshed += 1;
        }
    }
    Ok(unrefreshed)
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
struct Swept {
    provider: ProviderKind,
    name: String,
    cluster_id: String,
    age_secs: i64,
    /// `alive` (listed, not deleted), `deleted`, `gone` (the provider no longer had it),
    /// `stop_by_hand` (alive on a provider whose API cannot delete it: `detail` says where
    /// it is stopped), or `error`.
    action: &'static str,
    detail: Option<String>,
}

pub async fn sweep(ctx: &Context, args: &SweepArgs) -> Result<(), CliError> {
    let Some(ledger) = ctx.ledger(LedgerUse::Required("sweep"))? else {
        return Err(CliError::Usage(
            "--no-ledger: the sweep finds clusters through the ledger".into(),
        ));
    };
    let read =
        |e: gpucloud_ledger::LedgerError| CliError::Other(format!("reading the ledger: {e}"));
    let providers: Vec<_> = ProviderKind::ALL
        .into_iter()
        .filter(|p| args.provider.is_none_or(|only| only == *p))
        .collect();
    // On a terminal, what would be deleted, and the question, before any delete: only the
    // clusters listed then are deleted (one that became due meanwhile is listed as alive).
    let mut confirmed: Option<Vec<(ProviderKind, ClusterId)>> = None;
    if args.delete && !args.yes && crate::confirm::interactive() {
        let now = Utc::now();
        let due: Vec<ClusterEntry> = ledger
            .clusters()
            .map_err(read)?
            .into_iter()
            .filter(|e| providers.contains(&e.provider) && is_due(e, args, now))
            .filter(|e| e.provider.profile().deletes_clusters)
            .collect();
        confirmed = Some(
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
    let mut swept = Vec::new();
    for provider in providers {
        let has_entries = ledger
            .clusters()
            .map_err(read)?
            .iter()
            .any(|e| e.provider == provider && (e.may_be_alive() || e.state.is_unresolved()));
        if !has_entries {
            continue;
        }
        let target = TargetArgs {
            provider,
            connection: ConnectionArgs::defaults(args.request_timeout),
        };
        // A provider without credentials is skipped: the others are still swept.
        let client = match ctx.connect(&target, Some(&ledger)) {
            Ok(client) => client,
            Err(error) => {
                tell!("warning: skipping {provider}: {}", one_line(&error));
                continue;
            }
        };
        resolve_earlier(&ledger, &client).await;
        let now = Utc::now();
        let due: Vec<_> = ledger
            .clusters()
            .map_err(read)?
            .into_iter()
            .filter(|e| e.provider == provider && is_due(e, args, now))
            .collect();
        for entry in due {
            let Some(id) = entry.cluster_id.clone() else {
                continue;
            };
            let asked = confirmed
                .as_ref()
                .is_none_or(|listed| listed.contains(&(provider, id.clone())));
            // The same id at another endpoint or account is another cluster: looked up only
            // through a client of the cluster's own scope (E2E's location), never through
            // this one, and never passed over in silence either.
            let here = crate::ledger::client_for(&client, &entry);
            let (action, detail) = match &here {
                None => (
                    "error",
                    Some(format!(
                        "created through another endpoint or account ({}); not looked up \
                         here: sweep with that one's settings",
                        cell(entry.origin.as_deref().unwrap_or_default())
                    )),
                ),
                Some(here) => sweep_one(here, (&ledger, entry.intent), &id, args, asked).await,
            };
            swept.push(Swept {
                provider,
                name: entry.name.clone(),
                cluster_id: id.to_string(),
                age_secs: (now - entry.created_at).num_seconds().max(0),
                action,
                detail,
            });
        }
    }
    let failed = swept.iter().filter(|s| s.action == "error").count();
    let by_hand: Vec<&Swept> = swept.iter().filter(|s| s.action == STOP_BY_HAND).collect();
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
        let through_api: Vec<&Swept> = swept.iter().filter(|s| s.action != STOP_BY_HAND).collect();
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

/// Whether the sweep `args` describe looks at `entry` at `now`: ours (never a cluster only
/// found under a name), alive as far as the ledger knows, old enough, and past its deadline
/// if asked.
fn is_due(entry: &ClusterEntry, args: &SweepArgs, now: DateTime<Utc>) -> bool {
    entry.is_ours()
        && entry.may_be_alive()
        && args.older_than.is_none_or(|older_than| {
            (now - entry.created_at).to_std().unwrap_or_default() >= older_than
        })
        && (!args.expired || entry.is_expired(now))
}

/// `action` of a cluster alive on a provider whose API cannot delete it.
const STOP_BY_HAND: &str = "stop_by_hand";

fn swept_table(rows: &[&Swept]) -> comfy_table::Table {
    let mut list = table(&["provider", "name", "cluster", "age", "action", "detail"]);
    for s in rows {
        list.add_row([
            s.provider.to_string(),
            cell(&s.name),
            cell(&s.cluster_id),
            elapsed(std::time::Duration::from_secs(s.age_secs.unsigned_abs())),
            s.action.to_string(),
            s.detail.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    list
}

/// Looks one cluster up and, with `--delete` (and `confirmed`: it was in the list the
/// person said yes to), deletes it and waits until it is gone.
async fn sweep_one(
    client: &gpucloud::ClusterClient,
    (ledger, intent): (&gpucloud_ledger::Ledger, gpucloud::journal::IntentId),
    id: &ClusterId,
    args: &SweepArgs,
    confirmed: bool,
) -> (&'static str, Option<String>) {
    // On a terminal, each cluster as it is looked at and its delete as it goes; quiet
    // elsewhere (the table or JSON at the end says it all).
    let display = crate::terminal::stderr_is_terminal().then(|| {
        tell!("{} {}: looking it up", client.provider(), cell(id));
        crate::progress::ProgressDisplay::new(format!("{} {}: ", client.provider(), cell(id)), 1.0)
    });
    let cluster = match client.get(id).await {
        Ok(cluster) => cluster,
        // Gone if the ledger took the 404 as proof: it does only from the endpoint and
        // account that created the cluster.
        Err(Error::NotFound(_)) if ledger.entry(intent).is_ok_and(|e| !e.may_be_alive()) => {
            return ("gone", None);
        }
        Err(Error::NotFound(_)) => {
            return (
                "error",
                Some(
                    "not found here, but it was created through another endpoint or account, \
                     which may still have it billing: sweep with that one's settings"
                        .into(),
                ),
            );
        }
        Err(error) => return ("error", Some(one_line(&error))),
    };
    let profile = client.provider().profile();
    // Gone already (stopped in a console), or a failed start the provider released: the
    // ledger's verdict on what the get just recorded, the one rule for both.
    let settled = ledger.entry(intent).ok().filter(|e| !e.may_be_alive());
    if cluster.state == ClusterState::Deleted || settled.is_some() {
        let released = settled.is_some_and(|e| e.released);
        return (
            "gone",
            released.then(|| "failed to start; released by the provider".into()),
        );
    }
    if !profile.deletes_clusters {
        return (
            STOP_BY_HAND,
            Some(format!("{}; stop it in {}", cluster.state, profile.console)),
        );
    }
    if !args.delete {
        return ("alive", Some(cluster.state.to_string()));
    }
    if !confirmed {
        return (
            "alive",
            Some(format!("{}; not in the list confirmed", cluster.state)),
        );
    }
    match client
        .delete_and_wait(id, &wait_options(&args.wait), |progress| {
            if let Some(display) = &display {
                display.update(progress);
            }
        })
        .await
    {
        Ok(deletion) if deletion.already_gone => ("gone", None),
        Ok(deletion) => (
            "deleted",
            Some(format!("gone after {}", elapsed(deletion.took))),
        ),
        Err(error) => ("error", Some(one_line(&error))),
    }
}
