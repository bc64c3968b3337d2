//! The neutral view of a Together cluster.

use chrono::{DateTime, Utc};
use gpucloud_together::types;

use super::PROVIDER;
use super::state::{latest_phase, state_of};
use crate::cluster::{Cluster, ClusterId, Node, ProviderCluster};

/// The neutral view of a Together cluster.
pub fn view(info: types::GpuClusterInfo) -> Cluster {
    let node = |id: &str,
                host: &Option<String>,
                ip: &Option<String>,
                gpus: Option<i64>,
                status: &Option<String>| Node {
        id: id.to_string(),
        hostname: host.clone(),
        private_ip: None,
        public_ip: ip.clone(),
        ssh_command: None,
        gpus: gpus.and_then(|g| u32::try_from(g).ok()),
        status: status.clone(),
    };
    let control = info
        .control_plane_nodes
        .iter()
        .map(|n| node(&n.node_id, &n.host_name, &n.public_ipv4, None, &n.status));
    let workers = info.gpu_worker_nodes.iter().map(|n| {
        node(
            &n.node_id,
            &n.host_name,
            &n.public_ipv4,
            n.num_gpus,
            &n.status,
        )
    });
    Cluster {
        id: ClusterId::new(info.cluster_id.clone()),
        name: info.cluster_name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state: state_of(&info),
        phase: latest_phase(&info)
            .map(|p| p.as_str().to_string())
            .or_else(|| info.status.as_ref().map(|s| s.as_str().to_string())),
        nodes: control.chain(workers).collect(),
        gpu_count: info.num_gpus.and_then(|g| u32::try_from(g).ok()),
        created_at: info.created_at,
        ready_at: info.first_ready_at,
        price: None,
        raw: ProviderCluster::Together(Box::new(info)),
    }
}

/// The kubeconfig in Together's cluster object (`kube_config`), as sent.
pub(crate) fn kubeconfig(info: &types::GpuClusterInfo) -> Option<&str> {
    info.kube_config.as_deref()
}

/// The phase changes Together's cluster object records (`phase_transitions`), as listed:
/// entries without a phase or a time are left out, and the order is the provider's.
pub(crate) fn phase_changes(info: &types::GpuClusterInfo) -> Vec<(DateTime<Utc>, String)> {
    info.phase_transitions
        .iter()
        .filter_map(|t| Some((t.transition_time?, t.phase.as_ref()?.as_str().to_string())))
        .collect()
}
