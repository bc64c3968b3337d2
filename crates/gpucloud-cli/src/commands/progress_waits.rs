//! Every wait a command does, in one place: the facade's wait options from the flags, and the
//! waits with their progress on stderr and, when they end, how long each phase took. A
//! command that waits picks one of these, so all waits show the same spinner and timeline.

use gpucloud::{
    Acceptor, Cluster, ClusterClient, ClusterId, CreateAndWait, Created, CreatedReady, Deletion,
    Error, WaitOptions,
};

use crate::flags::WaitArgs;
use crate::output;
use crate::progress::ProgressDisplay;

/// The facade's wait options from the flags.
pub fn wait_options(args: &WaitArgs) -> WaitOptions {
    WaitOptions::up_to(args.timeout)
        .with_intervals(args.interval, args.max_interval.max(args.interval))
}

/// Waits until `id` is what `goal` accepts (ready, a size), showing progress on stderr and,
/// when it ends, how long each phase took.
pub async fn wait_with_progress(
    client: &ClusterClient,
    id: &ClusterId,
    args: &WaitArgs,
    goal: &dyn Acceptor<Output = Cluster>,
    display: ProgressDisplay,
) -> Result<Cluster, Error> {
    let waited = client
        .wait(id, goal)
        .with_options(wait_options(args))
        .run(|p| display.update(p))
        .await;
    display.finish();
    if display.shows_timeline() {
        let timeline = match &waited {
            Ok(ready) => &ready.timeline,
            Err(failed) => failed.timeline(),
        };
        output::timeline(timeline, waited.is_ok());
    }
    Ok(waited?.output)
}

/// Waits until a cluster just created is ready, deleting it on failure as `options` say, with
/// the same progress and timeline (the timeline also when the wait failed).
pub async fn ready_or_clean_up(
    client: &ClusterClient,
    created: Created,
    options: &CreateAndWait,
) -> Result<CreatedReady, Error> {
    let display = ProgressDisplay::new("", 1.0);
    let result = client
        .wait_or_clean_up(created, options, |p| display.update(p))
        .await;
    display.finish();
    match &result {
        Ok(ready) => output::timeline(&ready.timeline, true),
        Err(Error::NotReady(failed)) => output::timeline(&failed.timeline, false),
        Err(_) => {}
    }
    result
}

/// Deletes `id` and waits until the provider no longer has it, with the same progress and
/// (when there was a deletion to watch) timeline.
pub async fn delete_with_progress(
    client: &ClusterClient,
    id: &ClusterId,
    args: &WaitArgs,
) -> Result<Deletion, Error> {
    let display = ProgressDisplay::new("", 1.0);
    let deletion = client
        .delete_and_wait(id, &wait_options(args), |p| display.update(p))
        .await;
    display.finish();
    let deletion = deletion?;
    if let Some(timeline) = &deletion.timeline {
        output::timeline(timeline, true);
    }
    Ok(deletion)
}
