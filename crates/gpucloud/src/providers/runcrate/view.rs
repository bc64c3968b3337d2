//! The neutral view of a Runcrate cluster.

use gpucloud_runcrate::types;

use super::PROVIDER;
use super::state::state_of;
use crate::cluster::{Cluster, ClusterId, Node, Price, ProviderCluster};

/// The neutral view of a Runcrate cluster.
pub(crate) fn view(cluster: types::Cluster) -> Cluster {
    let nodes = cluster
        .nodes
        .iter()
        .map(|n| Node {
            id: n
                .name
                .clone()
                .or_else(|| n.instance_id.map(|i| i.to_string()))
                .unwrap_or_default(),
            hostname: n.name.clone(),
            private_ip: n.overlay_address.clone(),
            public_ip: n.ip.clone(),
            ssh_command: n.ssh_command.clone(),
            gpus: n.gpus.and_then(|g| u32::try_from(g).ok()),
            status: n.status.clone(),
        })
        .collect();
    let gpu_count = match (cluster.node_count, cluster.gpus_per_node) {
        // Checked: both numbers are the provider's, and their product may not fit.
        (Some(nodes), Some(per_node)) if nodes >= 0 && per_node >= 0 => nodes
            .checked_mul(per_node)
            .and_then(|gpus| u32::try_from(gpus).ok()),
        _ => None,
    };
    Cluster {
        id: ClusterId::new(cluster.id.to_string()),
        name: cluster.name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state: state_of(&cluster),
        phase: cluster.status.clone(),
        nodes,
        gpu_count,
        created_at: cluster.created_at,
        ready_at: cluster.ready_at,
        // Runcrate prices in US dollars ("never less than $10"); a rate no bill could have
        // (negative, not a number) is no price at all.
        price: cluster
            .hourly_rate
            .filter(|rate| rate.is_finite() && *rate >= 0.0)
            .map(|per_hour| Price {
                per_hour,
                currency: "USD".into(),
            }),
        raw: ProviderCluster::Runcrate(Box::new(cluster)),
    }
}

/// A Runcrate cluster as the generated client decoded it (from a call the neutral API does not make),
/// in the neutral shape.
impl From<types::Cluster> for Cluster {
    fn from(raw: types::Cluster) -> Self {
        view(raw)
    }
}

/// The node count the cluster object states (`node_count`); `None` when it states none, or one
/// no machine could have.
pub(crate) fn stated_node_count(cluster: &types::Cluster) -> Option<usize> {
    cluster.node_count.and_then(|n| usize::try_from(n).ok())
}
