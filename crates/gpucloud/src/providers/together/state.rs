//! Together's statuses and phases in neutral words: one explicit row per value of the spec's
//! enums, so a value added to the spec fails the table's test until it has a row.

use chrono::{DateTime, Utc};
use gpucloud_together::types::{self, ClusterPhase, ClusterStatus};

use crate::cluster::ClusterState;

/// Together's `status` in neutral words. Every value of the spec's `ClusterStatus` is listed.
pub fn status_state(status: &ClusterStatus) -> ClusterState {
    match status {
        ClusterStatus::WaitingForControlPlaneNodes
        | ClusterStatus::WaitingForDataPlaneNodes
        | ClusterStatus::WaitingForSubnet
        | ClusterStatus::WaitingForSharedVolume
        | ClusterStatus::InstallingDrivers
        | ClusterStatus::RunningAcceptanceTests => ClusterState::Provisioning,
        ClusterStatus::Paused | ClusterStatus::OnDemandComputePaused => ClusterState::Paused,
        // Waiting for its reserved start, like `CLUSTER_PHASE_SCHEDULED`.
        ClusterStatus::Scheduled => ClusterState::Pending,
        ClusterStatus::Ready => ClusterState::Ready,
        ClusterStatus::Degraded => ClusterState::Degraded,
        ClusterStatus::Deleting => ClusterState::Deleting,
        ClusterStatus::Unknown(raw) => ClusterState::Unknown(raw.clone()),
    }
}

/// Together's cluster phase in neutral words. Every value of the spec's `ClusterPhase` is listed.
pub fn phase_state(phase: &ClusterPhase) -> ClusterState {
    match phase {
        ClusterPhase::ClusterPhaseQueued | ClusterPhase::ClusterPhaseScheduled => {
            ClusterState::Pending
        }
        ClusterPhase::ClusterPhaseWaitingForControlPlaneNodes
        | ClusterPhase::ClusterPhaseWaitingForDataPlaneNodes
        | ClusterPhase::ClusterPhaseWaitingForSubnet
        | ClusterPhase::ClusterPhaseWaitingForSharedVolume
        | ClusterPhase::ClusterPhaseWaitingForAutoScaler
        | ClusterPhase::ClusterPhaseInstallingDrivers
        | ClusterPhase::ClusterPhaseRunningAcceptanceTests
        | ClusterPhase::ClusterPhaseRunningNcclTests => ClusterState::Provisioning,
        ClusterPhase::ClusterPhaseAcceptanceTestsFailed
        | ClusterPhase::ClusterPhaseNcclTestsFailed => {
            ClusterState::Failed(phase.as_str().to_string())
        }
        ClusterPhase::ClusterPhaseReady => ClusterState::Ready,
        ClusterPhase::ClusterPhasePaused | ClusterPhase::ClusterPhaseOnDemandComputePaused => {
            ClusterState::Paused
        }
        ClusterPhase::ClusterPhaseDegraded => ClusterState::Degraded,
        ClusterPhase::ClusterPhaseDeleting => ClusterState::Deleting,
        ClusterPhase::Unknown(raw) => ClusterState::Unknown(raw.clone()),
    }
}

/// The latest phase transition (by time; list order breaks ties and fills gaps).
pub(super) fn latest_phase(info: &types::GpuClusterInfo) -> Option<&ClusterPhase> {
    let mut latest: Option<(&Option<DateTime<Utc>>, &ClusterPhase)> = None;
    for transition in &info.phase_transitions {
        let Some(phase) = &transition.phase else {
            continue;
        };
        if latest.is_none_or(|(time, _)| transition.transition_time >= *time) {
            latest = Some((&transition.transition_time, phase));
        }
    }
    latest.map(|(_, phase)| phase)
}

/// The neutral state: a failed-tests phase wins (the status may still say
/// `RunningAcceptanceTests`), then the status, then the phase.
pub fn state_of(info: &types::GpuClusterInfo) -> ClusterState {
    let phase = latest_phase(info).map(phase_state);
    if let Some(failed @ ClusterState::Failed(_)) = &phase {
        return failed.clone();
    }
    match (&info.status, phase) {
        (Some(status), _) => status_state(status),
        (None, Some(phase)) => phase,
        (None, None) => ClusterState::Unknown(String::new()),
    }
}
