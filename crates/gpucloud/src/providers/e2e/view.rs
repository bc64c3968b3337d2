//! The neutral view of an E2E training cluster.

use gpucloud_e2e::types;

use super::PROVIDER;
use super::state::status_state;
use crate::cluster::{Cluster, ClusterId, ClusterState, Node, Price, ProviderCluster};

/// The neutral view of an E2E training cluster.
pub(crate) fn view(cluster: types::TrainingCluster) -> Cluster {
    let public_ip = cluster.ssh_public_ip.clone().filter(|ip| !ip.is_empty());
    let mut nodes: Vec<Node> = cluster
        .worker_nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let text = |key: &str| node.get(key).and_then(|v| v.as_str()).map(str::to_string);
            Node {
                id: text("name")
                    .or_else(|| node.get("id").map(|v| v.to_string()))
                    .unwrap_or_else(|| format!("worker-{i}")),
                hostname: text("hostname").or_else(|| text("name")),
                private_ip: text("private_ip").or_else(|| text("ip")),
                public_ip: text("public_ip"),
                ssh_command: None,
                gpus: node
                    .get("gpu")
                    .and_then(|v| v.as_u64())
                    .and_then(|g| u32::try_from(g).ok()),
                status: text("status"),
            }
        })
        .collect();
    if let Some(ip) = &public_ip {
        // The login node: the one address E2E documents (the SSH user is not documented).
        nodes.insert(
            0,
            Node {
                id: "login".into(),
                public_ip: Some(ip.clone()),
                ..Node::default()
            },
        );
    }
    let plan = cluster.sku_details.as_ref().and_then(|d| d.plan.as_ref());
    // A price only from a stated node count and a sane unit price: an unstated count read as
    // 0 would make a billing cluster look free (and pass any price ceiling).
    let nodes_count = cluster
        .no_of_nodes
        .filter(|n| (1..=i64::from(u32::MAX)).contains(n));
    let price = plan.and_then(|p| {
        match (
            p.sku_type.as_ref(),
            p.unit_price,
            p.currency.clone(),
            nodes_count,
        ) {
            (Some(types::PlanSkuType::Hourly), Some(unit), Some(currency), Some(nodes))
                if unit.is_finite() && unit >= 0.0 =>
            {
                #[allow(clippy::cast_precision_loss)] // at most u32::MAX: exact in an f64
                let nodes = nodes as f64;
                let per_hour = unit * nodes;
                // The product of two stated numbers may still overflow to infinity.
                per_hour.is_finite().then_some(Price { per_hour, currency })
            }
            _ => None,
        }
    });
    let state = cluster
        .status
        .as_deref()
        .map(status_state)
        .unwrap_or(ClusterState::Unknown(String::new()));
    Cluster {
        id: ClusterId::new(cluster.id.map(|i| i.to_string()).unwrap_or_default()),
        name: cluster.name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state,
        phase: cluster.status.clone(),
        nodes,
        gpu_count: cluster.total_gpu.and_then(|g| u32::try_from(g).ok()),
        created_at: cluster.created_at,
        ready_at: None,
        price,
        raw: ProviderCluster::E2e(Box::new(cluster)),
    }
}

/// A E2E training cluster as the generated client decoded it (from a call the neutral API does not make),
/// in the neutral shape.
impl From<types::TrainingCluster> for Cluster {
    fn from(raw: types::TrainingCluster) -> Self {
        view(raw)
    }
}

/// The node count the cluster object states (`no_of_nodes`); `None` when it states none, or one
/// no machine could have.
pub(crate) fn stated_node_count(cluster: &types::TrainingCluster) -> Option<usize> {
    cluster.no_of_nodes.and_then(|n| usize::try_from(n).ok())
}
