//! `gpucloud clusters create`: a cluster from flags or a request file, through a placement
//! (`placement`), and with `--wait` until it is ready or cleaned up.

use clap::Args;
use gpucloud::{Attempt, Cleanup, CreateAndWait, Created, Error, NotReady, PriceCheck};
use serde::Serialize;

use super::progress_waits::{ready_or_clean_up, wait_options};
use crate::context::{Context, LedgerUse};
use crate::error::{CleanedUp, CliError};
use crate::flags::request::RequestArgs;
use crate::flags::{PlacementTargetArgs, TargetArgs, WaitArgs};
use crate::output::elapsed;
use crate::sanitize::cell;
use crate::{output, request};

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub target: PlacementTargetArgs,
    /// After creating, wait until the cluster is ready. A cluster that fails meanwhile is
    /// deleted (and the delete verified); one not ready in time is kept.
    #[arg(long)]
    pub wait: bool,
    /// With --wait: keep a cluster that fails instead of deleting it.
    #[arg(long, requires = "wait")]
    pub keep_on_failure: bool,
    /// With --wait: delete a cluster that is not ready when --timeout passes.
    #[arg(long, requires = "wait")]
    pub delete_on_timeout: bool,
    /// Do not ask before creating. On a terminal (stdin and stderr both), create first shows
    /// where the cluster would go and what it costs per hour and for its --ttl, and asks;
    /// without a terminal it never asks.
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub request: RequestArgs,
    #[command(flatten)]
    pub wait_options: WaitArgs,
}

/// Creates the cluster `args` describe; with `--wait`, waits until it is ready (or cleans it up).
pub async fn run(ctx: &Context, args: &CreateArgs) -> Result<(), CliError> {
    // The request is read (and flags checked) before credentials; the facade validates it
    // against the provider's rules before anything is sent.
    let spec = request::spec(&args.target.provider.0, &args.request)?;
    let ledger = ctx.ledger(LedgerUse::Required("create"))?;
    // A time limit is kept only by the ledger's sweep: without one it would bind nothing.
    if spec.ttl.is_some() && ledger.is_none() {
        return Err(CliError::Usage(
            "--ttl (or a request file's ttl) needs the ledger, which records the deadline for \
             `clusters sweep --expired`; it cannot be kept with --no-ledger"
                .into(),
        ));
    }
    // A request resolved from the catalog that pins no region goes through a placement even
    // on one provider: each region that fits is tried in turn while the ones before have no
    // capacity. A request that names its ids (or region) has one place to go.
    let pinned = |target: &TargetArgs| {
        spec.region.is_some()
            || !gpucloud::catalog::consults_catalog(
                target.provider.profile().catalog,
                &spec,
                &gpucloud::catalog::Constraints::default(),
            )
    };
    // On a terminal, where it would go and what it costs, before anything is sent; then
    // exactly that plan is executed.
    let stakes = ctx.at_stake();
    let single = args.target.single().filter(pinned).is_some();
    let way = super::placement::CreateWay {
        ask: !args.yes && crate::confirm::interactive(),
        single,
    };
    let placed = super::placement::create(ctx, &args.target, &spec, ledger.clone(), way, || {
        stakes.creating(&spec.name);
    })
    .await?;
    let client = placed.client;
    let created = placed.created;
    // A create with one place to go reports no placement (it had no choice to make).
    let (placement, price_check) = if single {
        (None, None)
    } else {
        (Some(placed.attempts), Some(placed.price_check))
    };
    stakes.created(&spec.name, client.provider(), created.cluster.id.as_str());
    let out = ctx.output();
    if out.is_human() {
        output::created_headline(&created);
    }
    if !args.wait {
        let report = CreateReport {
            created: &created,
            placement: placement.as_deref(),
            price_check: price_check.as_ref(),
        };
        return out.result(&report, |report| {
            say!();
            output::cluster(&report.created.cluster);
        });
    }
    let options = CreateAndWait::default()
        .with_wait(wait_options(&args.wait_options))
        .with_delete_on_failure(!args.keep_on_failure)
        .with_delete_on_timeout(args.delete_on_timeout);
    match ready_or_clean_up(&client, created, &options).await {
        Ok(ready) => {
            // The cluster as the wait left it (ready, its nodes addressed), not as the create
            // answered: scripts read addresses from it.
            let mut waited = ready.created;
            waited.cluster = ready.cluster;
            let report = CreateReport {
                created: &waited,
                placement: placement.as_deref(),
                price_check: price_check.as_ref(),
            };
            out.result(&report, |report| {
                say!();
                output::cluster(&report.created.cluster);
                output::next_steps(&report.created.cluster);
            })
        }
        Err(error) => {
            if let Error::NotReady(failed) = &error {
                if !failed.cleanup.may_be_billing() {
                    stakes.settled(&spec.name);
                }
                say_cleanup(failed);
            }
            Err(wait_failed(error, placement))
        }
    }
}

/// What `clusters create --json` prints: the create's result (`cluster`, `outcome`,
/// `attempts`, the POSTs sent, and `deadline`, the one the create recorded from `--ttl`), what
/// happened at each place a placement tried and what its price ceiling made of the cluster's
/// own price (`placement` and `price_check`, when one ran).
#[derive(Serialize)]
struct CreateReport<'a> {
    #[serde(flatten)]
    created: &'a Created,
    #[serde(skip_serializing_if = "Option::is_none")]
    placement: Option<&'a [Attempt]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    price_check: Option<&'a PriceCheck>,
}

/// The failure of a create whose wait failed: its error, and (for `--json`) what became of
/// the cluster and what the placement tried.
fn wait_failed(error: Error, placement: Option<Vec<Attempt>>) -> CliError {
    let Error::NotReady(failed) = error else {
        return CliError::Cloud(error);
    };
    let cleanup = match &failed.cleanup {
        Cleanup::Deleted(_) => CleanedUp::Deleted,
        Cleanup::NotNeeded => CleanedUp::Released,
        Cleanup::DeleteFailed(_) => CleanedUp::DeleteFailed,
        _ => CleanedUp::Kept,
    };
    let cluster = crate::error::LeftBehind::new(failed.provider, failed.cluster.as_str(), cleanup);
    CliError::WaitFailed(Box::new(crate::error::WaitFailed {
        error: failed.error,
        placement,
        cluster,
    }))
}

/// What became of a cluster whose wait failed, on stderr, with its id.
fn say_cleanup(failed: &NotReady) {
    let provider = failed.provider;
    let id = cell(&failed.cluster);
    let stop = crate::shell::how_to_stop(provider, failed.cluster.as_str());
    match &failed.cleanup {
        Cleanup::Deleted(deletion) => tell!(
            "{provider} cluster {id} was deleted; the provider confirmed it gone after {}.",
            elapsed(deletion.took)
        ),
        Cleanup::DeleteFailed(error) => tell!(
            "{provider} cluster {id} MAY STILL BE BILLING: deleting it failed ({}). {stop}",
            crate::error::one_line(error.as_ref())
        ),
        Cleanup::NotNeeded => tell!(
            "{provider} cluster {id} failed to start; {} releases every machine of a failed \
             start, so nothing bills (and there is nothing to delete).",
            provider.profile().display_name
        ),
        _ => {
            tell!("{provider} cluster {id} was kept and may be billing. {stop}");
        }
    }
}
