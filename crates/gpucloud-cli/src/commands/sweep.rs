//! `gpucloud clusters sweep`: the clusters gpucloud created that are still alive after a while
//! (or past their `--ttl`), found through the ledger, and with `--delete` deleted, each delete
//! verified.

use std::time::Duration;

use chrono::Utc;
use clap::Args;
use gpucloud::ProviderKind;
use gpucloud_ledger::ClusterEntry;
use gpucloud_ledger::sweep::{SweepAction, SweepEvent, SweepPolicy, Swept};
use serde::Serialize;

use super::ledger::{age, clients};
use super::progress_waits::wait_options;
use crate::context::{Context, LedgerUse};
use crate::error::{CliError, flatten};
use crate::flags::{WaitArgs, bounds};
use crate::output;
use crate::output::elapsed;
use crate::sanitize::cell;
use crate::table::{render, table};

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Only clusters created longer ago than this (for example 4h).
    #[arg(long, value_name = "DURATION", value_parser = bounds::age, required_unless_present = "expired")]
    pub older_than: Option<Duration>,
    /// Only clusters past the deadline their create's --ttl set (with --older-than: both).
    #[arg(long)]
    pub expired: bool,
    /// Delete what is found, and verify each delete; without it, only list.
    #[arg(long)]
    pub delete: bool,
    /// With --delete: do not ask first. On a terminal (stdin and stderr both) the sweep lists
    /// what it would delete and asks; without a terminal it never asks.
    #[arg(long, short = 'y', requires = "delete")]
    pub yes: bool,
    /// Only this provider's clusters (default: every provider in the ledger).
    #[arg(long, short = 'p', value_enum)]
    pub provider: Option<ProviderKind>,
    /// Give up on one HTTP request after this long (1s to 1h).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// `clusters sweep --json`: one per cluster looked at, and one per create whose outcome is
/// still unknown.
#[derive(Serialize)]
struct SweptRow {
    provider: ProviderKind,
    name: String,
    /// `null` for a create of unknown outcome.
    cluster_id: Option<String>,
    age_secs: u64,
    /// `alive` (listed, not deleted), `deleted`, `deleted_by_another` (another sweep held
    /// its delete: this one sent none), `gone` (the provider no longer had it),
    /// `stop_by_hand` (alive on a provider whose API cannot delete it: `detail` says where
    /// it is stopped), `error`, or `unknown` (a create whose outcome is unknown: it may have
    /// made a cluster; `detail` says why and `settles_after` from when a sweep can settle it).
    action: &'static str,
    detail: Option<String>,
    /// For `unknown`: the create's intent in the ledger.
    #[serde(skip_serializing_if = "Option::is_none")]
    intent: Option<u64>,
    /// For `unknown`: from when a sweep can settle it (`null`: no sweep will by itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    settles_after: Option<Option<chrono::DateTime<Utc>>>,
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
            SweepAction::DeletedByAnother { by, took } => Some(format!(
                "deleted by another sweep ({}); gone after {}",
                flatten(by),
                elapsed(*took)
            )),
            SweepAction::Gone { released: true } => {
                Some("failed to start; released by the provider".into())
            }
            SweepAction::Gone { released: false } => None,
            SweepAction::StopByHand { state, console } => {
                Some(format!("{state}; stop it in {console}"))
            }
            SweepAction::Failed { reason } => Some(flatten(reason)),
        };
        Self {
            provider: swept.provider,
            name: swept.name.clone(),
            cluster_id: Some(swept.cluster_id.to_string()),
            age_secs: swept.age.as_secs(),
            action: swept.action.as_str(),
            detail,
            intent: None,
            settles_after: None,
        }
    }

    fn unknown(unknown: &gpucloud_ledger::Unknown, now: chrono::DateTime<Utc>) -> Self {
        Self {
            provider: unknown.provider,
            name: unknown.name.clone(),
            cluster_id: None,
            age_secs: (now - unknown.created_at)
                .to_std()
                .unwrap_or_default()
                .as_secs(),
            action: "unknown",
            detail: Some(flatten(&unknown.reason)),
            intent: Some(unknown.intent),
            settles_after: Some(unknown.settles_after),
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

pub async fn run(ctx: &Context, args: &SweepArgs) -> Result<(), CliError> {
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
        tell!("warning: skipping {provider}: {}", flatten(why));
    }
    crate::ledger::say_settled(&report.settled);
    super::ledger::say_unknown(&report.unknown);
    let mut swept: Vec<SweptRow> = report.swept.iter().map(SweptRow::of).collect();
    let failed = report.failed().count();
    let now = Utc::now();
    swept.extend(report.unknown.iter().map(|u| SweptRow::unknown(u, now)));
    // Alive where no API can delete them, as the report says, apart from the rest.
    let mut by_hand: Vec<&SweptRow> = Vec::new();
    let mut through_api: Vec<&SweptRow> = Vec::new();
    for (i, row) in swept.iter().enumerate() {
        match report.swept.get(i).map(|s| &s.action) {
            Some(SweepAction::StopByHand { .. }) => by_hand.push(row),
            // The rest, and the creates of unknown outcome after them.
            _ => through_api.push(row),
        }
    }
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
    if !report.is_complete() {
        let mut parts = Vec::new();
        if failed > 0 {
            parts.push(format!(
                "{failed} of {} clusters could not be swept: they may still be billing",
                report.swept.len()
            ));
        }
        if !report.unknown.is_empty() {
            parts.push(format!(
                "{} creates have an unknown outcome: each may have made a cluster that bills \
                 and that this sweep could not see",
                report.unknown.len()
            ));
        }
        if !report.skipped.is_empty() {
            parts.push(format!(
                "{} providers with clusters in the ledger were not swept",
                report.skipped.len()
            ));
        }
        return Err(CliError::Other(parts.join("; ")));
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

fn swept_table(rows: &[&SweptRow]) -> comfy_table::Table {
    let mut list = table(&["provider", "name", "cluster", "age", "action", "detail"]);
    for s in rows {
        list.add_row([
            s.provider.to_string(),
            cell(&s.name),
            s.cluster_id.as_deref().map_or_else(|| "-".into(), cell),
            elapsed(std::time::Duration::from_secs(s.age_secs)),
            s.action.to_string(),
            s.detail.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    list
}
