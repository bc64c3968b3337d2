//! Runcrate's cluster statuses in neutral words.

use gpucloud_runcrate::types;

use crate::cluster::ClusterState;

/// Runcrate's cluster `status` in neutral words. The docs show `provisioning` and tell callers
/// to poll for `ready`; `failed` (all-or-nothing start), `terminating` and `terminated` follow
/// the page's prose and are inferred. Anything else is `Unknown`.
pub fn status_state(status: &str, failure_reason: Option<&str>) -> ClusterState {
    match status {
        "provisioning" => ClusterState::Provisioning,
        "ready" => ClusterState::Ready,
        "failed" => ClusterState::Failed(failure_reason.unwrap_or("failed").to_string()),
        "terminating" => ClusterState::Deleting,
        "terminated" => ClusterState::Deleted,
        other => ClusterState::Unknown(other.to_string()),
    }
}

/// The neutral state; a `terminated_at` or a `failure_reason` settles it whatever the status.
pub fn state_of(cluster: &types::Cluster) -> ClusterState {
    if cluster.terminated_at.is_some() {
        return ClusterState::Deleted;
    }
    match (&cluster.status, &cluster.failure_reason) {
        (_, Some(reason)) => ClusterState::Failed(reason.clone()),
        (Some(status), None) => status_state(status, None),
        (None, None) => ClusterState::Unknown(String::new()),
    }
}
