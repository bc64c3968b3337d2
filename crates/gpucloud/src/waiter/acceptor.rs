//! Acceptors: what a waiter's poll means — success, failure, or poll again — as smithy-rs's
//! waiters judge each response.

use crate::cluster::{Cluster, ClusterState};
use crate::error::Error;

/// What one poll saw: the cluster, or the error the get ended with (after its own retries).
#[derive(Debug, Clone, Copy)]
pub enum Observation<'a> {
    /// The provider answered with the cluster.
    Cluster(&'a Cluster),
    /// The get failed.
    Error(&'a Error),
}

/// An acceptor's verdict on one poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The wait is over: what the caller waited for happened.
    Success,
    /// The wait is over: it cannot happen any more. A cluster observation ends in
    /// [`Error::ClusterFailed`]; an error observation ends in that error.
    Failure,
    /// Poll again.
    KeepPolling,
}

/// Judges each poll of a waiter.
pub trait Acceptor {
    /// The verdict on `seen`.
    fn judge(&self, seen: Observation<'_>) -> Verdict;

    /// What is waited for, for messages: "waiting for … cluster 42 {goal}".
    fn goal(&self) -> &str {
        "to meet the condition"
    }
}

impl<F: Fn(Observation<'_>) -> Verdict> Acceptor for F {
    fn judge(&self, seen: Observation<'_>) -> Verdict {
        self(seen)
    }
}

/// Ready: [`ClusterState::Ready`] is success; a state the cluster will not leave by itself
/// ([`ClusterState::is_terminal_failure`]) and every error are failures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ready;

impl Acceptor for Ready {
    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state == ClusterState::Ready => Verdict::Success,
            Observation::Cluster(c) if c.state.is_terminal_failure() => Verdict::Failure,
            Observation::Cluster(_) => Verdict::KeepPolling,
            Observation::Error(_) => Verdict::Failure,
        }
    }

    fn goal(&self) -> &str {
        "to be ready"
    }
}

/// Deleted: a 404 or [`ClusterState::Deleted`] is success; any other error is a failure; every
/// other state (deleting, still running, failed) keeps polling.
#[derive(Debug, Clone, Copy, Default)]
pub struct Deleted;

impl Acceptor for Deleted {
    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state == ClusterState::Deleted => Verdict::Success,
            Observation::Cluster(_) => Verdict::KeepPolling,
            Observation::Error(Error::NotFound(_)) => Verdict::Success,
            Observation::Error(_) => Verdict::Failure,
        }
    }

    fn goal(&self) -> &str {
        "to be deleted"
    }
}

/// Ready at a size: [`Ready`]'s verdict, except that a ready cluster of another size keeps
/// polling. GPUs are compared with the cluster's GPU count, nodes with its GPU-bearing nodes
/// (E2E's login node and Together's control plane do not count).
#[derive(Debug, Clone, Copy)]
pub struct SizeReached(pub crate::spec::ClusterSize);

impl Acceptor for SizeReached {
    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match (Ready.judge(seen), seen) {
            (Verdict::Success, Observation::Cluster(c)) if !has_size(c, self.0) => {
                Verdict::KeepPolling
            }
            (verdict, _) => verdict,
        }
    }

    fn goal(&self) -> &str {
        "to be ready at the new size"
    }
}

fn has_size(cluster: &Cluster, size: crate::spec::ClusterSize) -> bool {
    match size {
        crate::spec::ClusterSize::Gpus(gpus) => cluster.gpu_count == Some(gpus),
        crate::spec::ClusterSize::Nodes(nodes) => {
            let workers = cluster
                .nodes
                .iter()
                .filter(|n| n.gpus.is_some_and(|g| g > 0))
                .count();
            let counted = cluster.raw.stated_node_count();
            counted.unwrap_or(workers) == nodes as usize
        }
    }
}
