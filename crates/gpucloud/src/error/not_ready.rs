//! [`NotReady`]: a cluster was created (or found) but did not become ready, and what was done
//! about it, so that a failure after a create never hides a cluster that may be billing.

use std::fmt;

use super::Error;
use crate::cluster::{ClusterId, ProviderKind};
use crate::deletion::Deletion;
use crate::waiter::Timeline;

/// What happened to a cluster whose wait failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Cleanup {
    /// It was deleted, and the provider confirmed it is gone.
    Deleted(Deletion),
    /// It was left as it is (a timeout without `delete_on_timeout`, a failure with
    /// `delete_on_failure` off, an error that says nothing about the cluster, or a provider
    /// whose API cannot delete it): it may be billing.
    Kept,
    /// Nothing was needed: the cluster failed to start on a provider that releases every
    /// machine of a failed start itself ([`crate::FailedStart::Released`]), so nothing bills
    /// from then on and there is nothing to delete.
    NotNeeded,
    /// Deleting it failed: the cluster may still be billing.
    DeleteFailed(Box<Error>),
}

impl Cleanup {
    /// Whether the cluster may still be billing after this clean-up: it was kept, or its
    /// delete failed.
    pub fn may_be_billing(&self) -> bool {
        matches!(self, Self::Kept | Self::DeleteFailed(_))
    }
}

/// A cluster that a create made (or found) and that did not become ready: the wait's error,
/// the cluster, what was done about it, and the phases it went through.
#[derive(Debug)]
#[non_exhaustive]
pub struct NotReady {
    /// Why the wait ended: [`Error::ClusterFailed`], [`Error::Timeout`], or the error a poll
    /// ended with.
    pub error: Error,
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster.
    pub cluster: ClusterId,
    /// What was done about it.
    pub cleanup: Cleanup,
    /// The phases the cluster went through while it was waited for.
    pub timeline: Timeline,
}

impl NotReady {
    /// Assembles the failure.
    pub(crate) fn new(
        error: Error,
        provider: ProviderKind,
        cluster: ClusterId,
        cleanup: Cleanup,
        timeline: Timeline,
    ) -> Self {
        Self {
            error,
            provider,
            cluster,
            cleanup,
            timeline,
        }
    }
}

impl std::error::Error for NotReady {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl fmt::Display for NotReady {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = &self.cluster;
        write!(f, "{}", self.error)?;
        match &self.cleanup {
            Cleanup::Deleted(_) => write!(f, "; cluster {id} was deleted"),
            Cleanup::NotNeeded => {
                write!(
                    f,
                    "; cluster {id} released its machines itself: nothing bills"
                )
            }
            Cleanup::DeleteFailed(e) => {
                write!(
                    f,
                    "; deleting cluster {id} failed ({e}): it may still be billing"
                )
            }
            Cleanup::Kept => write!(f, "; cluster {id} was kept"),
        }
    }
}
