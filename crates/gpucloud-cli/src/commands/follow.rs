//! Following a cluster after a command starts it: the client that records what it sees into
//! the ledger, and the waits with their progress display, shared by every command that waits.

use gpucloud::{Cluster, ClusterClient, ClusterId, Error, Ready, WaitOptions};

use crate::cli::{TargetArgs, WaitArgs};
use crate::connect;
use crate::error::CliError;
use crate::ledger::Ledgers;
use crate::output;
use crate::progress::ProgressDisplay;

/// A client for `target`, recording into the ledger when it opens.
pub fn follower(target: &TargetArgs, ledgers: &Ledgers) -> Result<ClusterClient, CliError> {
    let journal = ledgers.best_effort().map(|l| l as _);
    Ok(connect::client(target, journal)?)
}

/// The facade's wait options from the flags.
pub fn wait_options(args: &WaitArgs) -> WaitOptions {
    WaitOptions {
        max_wait: args.timeout,
        initial_interval: args.interval,
        max_interval: args.max_interval.max(args.interval),
    }
}

/// Waits until `id` is ready, showing progress on stderr and, when it ends, how long each
/// phase took.
pub async fn wait_with_progress(
    client: &ClusterClient,
    id: &ClusterId,
    args: &WaitArgs,
    display: ProgressDisplay,
) -> Result<Cluster, Error> {
    let report = client
        .wait_for_cluster_report(id, &wait_options(args), &Ready, |p| display.update(p))
        .await;
    display.finish();
    if display.shows_timeline() {
        output::timeline(&report.timeline, report.result.is_ok());
    }
    report.result
}
