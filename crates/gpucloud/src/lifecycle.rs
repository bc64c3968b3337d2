//! Compositions over the neutral API that keep money from leaking after the create: a delete
//! verified until the provider no longer has the cluster, and a create that waits for the
//! cluster and deletes it again when it fails, so nothing is left billing unseen.

use std::time::Duration;

use crate::client::ClusterClient;
use crate::cluster::{Cluster, ClusterId, Created};
use crate::deletion::Deletion;
use crate::error::{Cleanup, Error, NotReady};
use crate::providers::profile::FailedStart;
use crate::spec::ClusterSpec;
use crate::waiter::{Deleted, Progress, Ready, Timeline, WaitOptions};

/// What [`ClusterClient::create_and_wait`] does when the wait does not end in a ready cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CreateAndWait {
    /// How long and how often to wait for the cluster to be ready.
    pub wait: WaitOptions,
    /// Delete (and verify the delete of) a cluster that ends in a failed state. Default: yes.
    pub delete_on_failure: bool,
    /// Delete a cluster that is not ready when the wait times out. Default: no (it may still
    /// become ready; it is reported with its id).
    pub delete_on_timeout: bool,
    /// How long to wait for a cleanup delete to finish.
    pub delete_wait: WaitOptions,
}

impl Default for CreateAndWait {
    fn default() -> Self {
        Self {
            wait: WaitOptions::default(),
            delete_on_failure: true,
            delete_on_timeout: false,
            delete_wait: WaitOptions {
                max_wait: Duration::from_secs(30 * 60),
                ..WaitOptions::default()
            },
        }
    }
}

impl CreateAndWait {
    /// How long and how often to wait for the cluster to be ready.
    #[must_use]
    pub fn with_wait(mut self, wait: WaitOptions) -> Self {
        self.wait = wait;
        self
    }

    /// Whether to delete (and verify the delete of) a cluster that ends in a failed state.
    #[must_use]
    pub fn with_delete_on_failure(mut self, delete: bool) -> Self {
        self.delete_on_failure = delete;
        self
    }

    /// Whether to delete a cluster that is not ready when the wait times out.
    #[must_use]
    pub fn with_delete_on_timeout(mut self, delete: bool) -> Self {
        self.delete_on_timeout = delete;
        self
    }

    /// How long and how often to wait for a cleanup delete to finish.
    #[must_use]
    pub fn with_delete_wait(mut self, wait: WaitOptions) -> Self {
        self.delete_wait = wait;
        self
    }
}

/// A cluster created (or found) and ready.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedReady {
    /// What the create said.
    pub created: Created,
    /// The cluster as the last poll saw it.
    pub cluster: Cluster,
    /// How long each phase took until it was ready.
    pub timeline: Timeline,
}

impl ClusterClient {
    /// Deletes a cluster and waits until the provider no longer has it (a 404 or a deleted
    /// state). A cluster that is already gone is a success with `already_gone` set.
    pub async fn delete_and_wait(
        &self,
        id: &ClusterId,
        options: &WaitOptions,
        on_progress: impl FnMut(&Progress),
    ) -> Result<Deletion, Error> {
        let clock = self.settings().clock.clone();
        let started = clock.now();
        let (already_gone, deleted_by) = match self.delete_claimed(id).await {
            Ok(deleted_by) => (false, deleted_by),
            Err(Error::NotFound(_)) => (true, None),
            Err(error) => return Err(error),
        };
        let timeline = if already_gone {
            None
        } else {
            let waited = self
                .wait(id, &Deleted)
                .with_options(options.clone())
                .run(on_progress)
                .await?;
            Some(waited.timeline)
        };
        Ok(Deletion {
            id: id.clone(),
            already_gone,
            deleted_by,
            took: clock.now().saturating_sub(started),
            timeline,
        })
    }

    /// Creates the cluster `spec` describes and waits until it is ready. A cluster that ends
    /// in a failed state is deleted (and the delete verified) unless `options` say otherwise;
    /// one still not ready when the wait times out is kept unless they ask for its delete; an
    /// adopted one ([`crate::CreateOutcome::Adopted`]) is always kept.
    ///
    /// A create that fails returns its own error (so `Error::NoCapacity` matches as on
    /// [`Self::create`]); a cluster that was made but did not become ready is
    /// [`Error::NotReady`], naming the cluster and what was done about it.
    pub async fn create_and_wait(
        &self,
        spec: &ClusterSpec,
        options: &CreateAndWait,
        on_progress: impl FnMut(&Progress),
    ) -> Result<CreatedReady, Error> {
        let created = self.create(spec).await?;
        self.wait_or_clean_up(created, options, on_progress).await
    }

    /// The second half of [`Self::create_and_wait`], for a caller that shows the create's
    /// result before waiting: waits until `created`'s cluster is ready, and deletes it (or
    /// keeps it) as `options` say when it is not.
    pub async fn wait_or_clean_up(
        &self,
        created: Created,
        options: &CreateAndWait,
        on_progress: impl FnMut(&Progress),
    ) -> Result<CreatedReady, Error> {
        let id = created.cluster.id.clone();
        let waited = self
            .wait(&id, &Ready)
            .with_options(options.wait.clone())
            .run(on_progress)
            .await;
        let (error, timeline) = match waited {
            Ok(ready) => {
                return Ok(CreatedReady {
                    created,
                    cluster: ready.output,
                    timeline: ready.timeline,
                });
            }
            Err(failed) => {
                let timeline = failed.timeline().clone();
                (failed.into_error(), timeline)
            }
        };
        let released = self.provider().profile().failed_start == FailedStart::Released;
        let delete = match &error {
            // Someone else started it: their clean-up, not this create's.
            _ if !created.outcome.made_by_us() => false,
            Error::ClusterFailed { .. } if released => {
                let provider = self.provider();
                let failed = NotReady::new(error, provider, id, Cleanup::NotNeeded, timeline);
                return Err(Error::NotReady(Box::new(failed)));
            }
            Error::ClusterFailed { .. } => options.delete_on_failure,
            Error::Timeout { .. } => options.delete_on_timeout,
            _ => false,
        };
        let cleanup = if delete {
            match self
                .delete_and_wait(&id, &options.delete_wait, |_| {})
                .await
            {
                Ok(deletion) => Cleanup::Deleted(deletion),
                // The provider's API cannot delete it: it is where it was.
                Err(Error::Unsupported { .. }) => Cleanup::Kept,
                Err(e) => Cleanup::DeleteFailed(Box::new(e)),
            }
        } else {
            Cleanup::Kept
        };
        let failed = NotReady::new(error, self.provider(), id, cleanup, timeline);
        Err(Error::NotReady(Box::new(failed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_builders_set_their_fields_and_only_those() {
        let wait = WaitOptions::up_to(Duration::from_secs(60))
            .with_intervals(Duration::from_secs(1), Duration::from_secs(8));
        let expected = WaitOptions {
            max_wait: Duration::from_secs(60),
            initial_interval: Duration::from_secs(1),
            max_interval: Duration::from_secs(8),
        };
        assert_eq!(wait, expected);
        assert_eq!(
            WaitOptions::default().with_max_wait(Duration::from_secs(7)),
            WaitOptions {
                max_wait: Duration::from_secs(7),
                ..WaitOptions::default()
            }
        );

        let short = WaitOptions::up_to(Duration::from_secs(5));
        let built = CreateAndWait::default()
            .with_wait(wait.clone())
            .with_delete_on_failure(false)
            .with_delete_on_timeout(true)
            .with_delete_wait(short.clone());
        let expected = CreateAndWait {
            wait,
            delete_on_failure: false,
            delete_on_timeout: true,
            delete_wait: short,
        };
        assert_eq!(built, expected);
    }
}
