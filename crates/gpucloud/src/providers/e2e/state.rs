//! E2E's cluster statuses in neutral words.

use crate::cluster::ClusterState;

/// E2E's cluster `status` in neutral words. The docs show only `Creating`; the other rows are
/// the status words TIR uses elsewhere and are inferred. Anything else is `Unknown`.
pub fn status_state(status: &str) -> ClusterState {
    match status {
        "Creating" | "Pending" | "Scaling" => ClusterState::Provisioning,
        "Running" | "Active" | "Ready" => ClusterState::Ready,
        "Failed" | "Error" => ClusterState::Failed(status.to_string()),
        "Stopped" => ClusterState::Paused,
        "Deleting" | "Terminating" => ClusterState::Deleting,
        "Deleted" | "Terminated" => ClusterState::Deleted,
        other => ClusterState::Unknown(other.to_string()),
    }
}
