//! `gpucloud clusters sweep`: the clusters gpucloud created that are still alive after a while
//! (or past their `--ttl`), found through the ledger, and with `--delete` deleted, each delete
//! verified.

use std::time::Duration;

use chrono::Utc;
use clap::Args;
use gpucloud::ProviderKind;
use gpucloud_ledger::ClusterEntry;
use gpucloud_ledger::sweep::{SweepAction, SweepEvent, SweepPolicy, SweepReport, Swept};
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
    /// Run as a reaper: one sweep every DURATION (1s to 24h) until SIGTERM, SIGINT or
    /// SIGHUP, which ends it after the sweep in progress (exit 0). Never asks; a sweep that
    /// fails is logged and the next one runs. With --json, one JSON line per sweep.
    #[arg(long, value_name = "DURATION", value_parser = bounds::watch_interval)]
    pub watch: Option<Duration>,
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
    let ledger = required_ledger(ctx)?;
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
    let report = sweep_once(ctx, args, &ledger, &policy).await?;
    let rows = rows(&report);
    if ctx.output().is_json() {
        output::json(&rows)?;
    } else {
        print_table(args, &report, &rows);
    }
    verdict(args, &report)
}

/// `--watch`: one sweep every `every` until a signal, each logged (a JSON line with `--json`),
/// a failed one included; the signal ends it after the sweep in progress. A second signal
/// exits at once.
pub async fn watch(ctx: &Context, args: &SweepArgs, every: Duration) -> Result<(), CliError> {
    let ledger = required_ledger(ctx)?;
    let policy = policy(args);
    let mut signal = Box::pin(crate::interrupt::next());
    let mut number: u64 = 0;
    loop {
        number = number.saturating_add(1);
        let started = Utc::now();
        let mut work = Box::pin(sweep_once(ctx, args, &ledger, &policy));
        let mut stopping = None;
        let result = tokio::select! {
            result = &mut work => result,
            received = &mut signal => {
                tell!(
                    "{}: stopping after the sweep in progress (a second signal stops at once)",
                    received.name()
                );
                stopping = Some(received);
                tokio::spawn(async {
                    let again = crate::interrupt::next().await;
                    std::process::exit(i32::from(again.exit_code()));
                });
                work.await
            }
        };
        log_sweep(ctx, args, number, started, &result);
        if stopping.is_some() {
            return Ok(());
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            received = &mut signal => {
                tell!("{}: the reaper stops", received.name());
                return Ok(());
            }
        }
    }
}

/// One line (text or JSON) of what one sweep of the reaper did.
fn log_sweep(
    ctx: &Context,
    args: &SweepArgs,
    number: u64,
    started: chrono::DateTime<Utc>,
    result: &Result<SweepReport, CliError>,
) {
    let (rows, problem) = match result {
        Ok(report) => (
            rows(report),
            verdict(args, report).err().map(|e| e.to_string()),
        ),
        Err(error) => (Vec::new(), Some(error.to_string())),
    };
    if ctx.output().is_json() {
        let line = WatchLine {
            sweep: number,
            started_at: started,
            finished_at: Utc::now(),
            complete: problem.is_none(),
            problem,
            clusters: rows,
        };
        match serde_json::to_string(&line) {
            Ok(text) => crate::terminal::stdout_line(&text),
            Err(error) => tell!("error: cannot encode the sweep's JSON line: {error}"),
        }
        return;
    }
    let acted: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r.provider,
                r.cluster_id.as_deref().map_or_else(|| cell(&r.name), cell),
                r.action
            )
        })
        .collect();
    say!(
        "{} sweep {number}: {}{}",
        started.format("%Y-%m-%dT%H:%M:%SZ"),
        if acted.is_empty() {
            "nothing due".to_string()
        } else {
            acted.join(", ")
        },
        problem.map_or_else(String::new, |p| format!("; error: {}", flatten(&p)))
    );
}

/// One sweep of `clusters sweep --watch --json`: a line of its own.
#[derive(Serialize)]
struct WatchLine {
    sweep: u64,
    started_at: chrono::DateTime<Utc>,
    finished_at: chrono::DateTime<Utc>,
    /// Everything due was acted on, no create left unknown, no provider skipped.
    complete: bool,
    /// Why not, when not.
    problem: Option<String>,
    /// Each cluster looked at, as `clusters sweep --json` prints it.
    clusters: Vec<SweptRow>,
}

fn required_ledger(ctx: &Context) -> Result<std::sync::Arc<gpucloud_ledger::Ledger>, CliError> {
    ctx.ledger(LedgerUse::Required("sweep"))?.ok_or_else(|| {
        CliError::Usage("--no-ledger: the sweep finds clusters through the ledger".into())
    })
}

fn read(e: gpucloud_ledger::LedgerError) -> CliError {
    CliError::Other(format!("reading the ledger: {e}"))
}

/// One sweep: each cluster as it is looked at and its delete as it goes on a terminal, quiet
/// elsewhere; then what it settled, what is still unknown and which providers it skipped, on
/// stderr.
async fn sweep_once(
    ctx: &Context,
    args: &SweepArgs,
    ledger: &std::sync::Arc<gpucloud_ledger::Ledger>,
    policy: &SweepPolicy,
) -> Result<SweepReport, CliError> {
    let on_terminal = crate::terminal::stderr_is_terminal();
    let mut display: Option<crate::progress::ProgressDisplay> = None;
    let clients = clients(ctx, ledger, args.request_timeout);
    let report = ledger
        .sweep(&clients, policy, |event| {
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
    Ok(report)
}

/// The rows of `report`: each cluster looked at, then each create of unknown outcome.
fn rows(report: &SweepReport) -> Vec<SweptRow> {
    let now = Utc::now();
    report
        .swept
        .iter()
        .map(SweptRow::of)
        .chain(report.unknown.iter().map(|u| SweptRow::unknown(u, now)))
        .collect()
}

/// The table (or the line that says nothing was due), the clusters alive where no API can
/// delete them apart.
fn print_table(args: &SweepArgs, report: &SweepReport, swept: &[SweptRow]) {
    if swept.is_empty() {
        let which = match (args.older_than, args.expired) {
            (Some(age), true) => format!("created more than {} ago and expired", elapsed(age)),
            (Some(age), false) => format!("created more than {} ago", elapsed(age)),
            (None, _) => "past its deadline".to_string(),
        };
        say!("No cluster gpucloud {which} is alive.");
        return;
    }
    let mut by_hand: Vec<&SweptRow> = Vec::new();
    let mut through_api: Vec<&SweptRow> = Vec::new();
    for (i, row) in swept.iter().enumerate() {
        match report.swept.get(i).map(|s| &s.action) {
            Some(SweepAction::StopByHand { .. }) => by_hand.push(row),
            // The rest, and the creates of unknown outcome after them.
            _ => through_api.push(row),
        }
    }
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

/// The sweep's error, if it did not do all it was asked: a cluster it could not act on, a
/// create of unknown outcome, a provider skipped, or (with `--delete`) clusters only a person
/// can stop.
fn verdict(args: &SweepArgs, report: &SweepReport) -> Result<(), CliError> {
    let failed = report.failed().count();
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
    let by_hand: Vec<&Swept> = report.stop_by_hand().collect();
    if args.delete && !by_hand.is_empty() {
        let consoles: std::collections::BTreeSet<&str> = by_hand
            .iter()
            .map(|s| s.provider.profile().console)
            .collect();
        return Err(CliError::StillBilling(format!(
            "{} of {} clusters cannot be deleted through their provider's API and are still \
             billing: stop them in {}",
            by_hand.len(),
            report.swept.len(),
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
