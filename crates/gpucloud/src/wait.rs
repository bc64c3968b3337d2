//! [`ClusterClient::wait`]: the one way to wait for a cluster, as smithy-rs's waiters are
//! built: an acceptor says what ends the wait, options say how patiently, a callback sees each
//! change, and the end is the acceptor's output or a typed [`WaitError`], each with the
//! timeline of the phases the cluster went through.

use crate::client::ClusterClient;
use crate::cluster::ClusterId;
use crate::waiter::{self, Acceptor, Progress, WaitError, WaitOptions, Waited};

/// A wait for one cluster, built by [`ClusterClient::wait`]; nothing is sent until
/// [`Wait::run`].
#[derive(Debug)]
#[must_use = "a wait does nothing until it is run"]
pub struct Wait<'a, A: ?Sized> {
    client: &'a ClusterClient,
    id: &'a ClusterId,
    acceptor: &'a A,
    options: WaitOptions,
}

impl ClusterClient {
    /// A wait for cluster `id` until `acceptor` ends it: [`crate::Ready`] (the ready cluster),
    /// [`crate::SizeReached`] (ready at a size), [`crate::Deleted`] (gone), or your own
    /// ([`Acceptor`], or a closure over each [`crate::Observation`]).
    ///
    /// ```no_run
    /// # async fn run(client: gpucloud::ClusterClient, id: gpucloud::ClusterId) -> Result<(), gpucloud::Error> {
    /// use std::time::Duration;
    /// use gpucloud::{Ready, WaitError, WaitOptions};
    ///
    /// let waited = client
    ///     .wait(&id, &Ready)
    ///     .with_options(WaitOptions::up_to(Duration::from_secs(30 * 60)))
    ///     .run(|p| println!("{} after {:?}", p.cluster.state, p.elapsed))
    ///     .await;
    /// match waited {
    ///     Ok(ready) => println!("{} nodes", ready.output.nodes.len()),
    ///     Err(WaitError::ExceededMaxWait { last, .. }) => println!("still {:?}", last.map(|c| c.state)),
    ///     Err(WaitError::FailureState { cluster, timeline, .. }) => {
    ///         println!("{} failed; slowest phase {:?}", cluster.id, timeline.slowest())
    ///     }
    ///     Err(other) => return Err(other.into()),
    /// }
    /// # Ok(()) }
    /// ```
    pub fn wait<'a, A: Acceptor + ?Sized>(
        &'a self,
        id: &'a ClusterId,
        acceptor: &'a A,
    ) -> Wait<'a, A> {
        Wait {
            client: self,
            id,
            acceptor,
            options: WaitOptions::default(),
        }
    }
}

impl<A: Acceptor + ?Sized> Wait<'_, A> {
    /// How patiently to wait (default: [`WaitOptions::default`]).
    pub fn with_options(mut self, options: WaitOptions) -> Self {
        self.options = options;
        self
    }

    /// Polls until the acceptor ends the wait or the maximum wait passes; `on_progress` is
    /// called whenever the phase, the state or the number of reachable nodes changes.
    ///
    /// # Errors
    /// [`WaitError`]: the maximum wait passed (with the last cluster seen), the cluster failed
    /// (with the cluster), or a poll failed; each with its [`crate::Error`] and timeline.
    pub async fn run(
        self,
        on_progress: impl FnMut(&Progress),
    ) -> Result<Waited<A::Output>, WaitError> {
        let pacing = self.client.settings().pacing();
        let client = self.client;
        let id = self.id;
        waiter::run(
            pacing,
            &self.options,
            self.acceptor,
            || client.get(id),
            on_progress,
        )
        .await
    }
}
