//! The Together AI Instant Clusters API (`/compute/...`): clusters through their phases,
//! regions, shared volumes, and the add-on, remediation and health-alert operations.

mod capacity;
pub(crate) mod catalog;
mod cluster;
mod create;
pub(crate) mod errors;
mod extras;
mod volumes;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::exchange::ClusterSummary;
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;
use cluster::Cluster;
use volumes::Volume;

/// Together's clusters, volumes, remediations and capacity.
#[derive(Debug, Default)]
pub(crate) struct State {
    clusters: Vec<Cluster>,
    volumes: Vec<Volume>,
    remediations: Vec<Value>,
    /// Totals set through the capacity API, per (region, GPU type); the rest have the default.
    capacity: BTreeMap<(String, String), u32>,
}

impl State {
    fn live(&self, id: &str, now: Duration) -> Option<&Cluster> {
        self.clusters.iter().find(|c| c.id == id && !c.gone(now))
    }

    fn render(&self, cluster: &Cluster, now: Duration) -> Value {
        cluster.render(now, self.cluster_volumes(&cluster.volume_ids, now))
    }

    pub(crate) fn summaries(&self, now: Duration) -> Vec<ClusterSummary> {
        self.clusters
            .iter()
            .filter(|c| !c.gone(now))
            .map(|c| ClusterSummary {
                id: c.id.clone(),
                name: c.name.clone(),
                status: c.status(now).to_string(),
            })
            .collect()
    }
}

pub(crate) fn handle(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Reply {
    let now = call.now;
    let id = call.param("cluster_id").unwrap_or_default().to_string();
    match call.operation {
        "list_clusters" => {
            let project = call.param("projectId");
            let clusters: Vec<Value> = state
                .clusters
                .iter()
                .filter(|c| !c.gone(now) && project.is_none_or(|p| p == c.project_id))
                .map(|c| state.render(c, now))
                .collect();
            Reply::json(200, json!({ "clusters": clusters }))
        }
        "create_cluster" => match create::create(state, ids, call) {
            Ok(cluster) => {
                state.clusters.push(cluster);
                let body = state.clusters.last().map(|c| state.render(c, now));
                Reply::json(200, body.unwrap_or_default())
            }
            Err(reply) => reply,
        },
        "get_cluster" => match state.live(&id, now) {
            Some(cluster) => Reply::json(200, state.render(cluster, now)),
            None => errors::not_found("cluster", &id),
        },
        "update_cluster" => {
            let Some(index) = state
                .clusters
                .iter()
                .position(|c| c.id == id && !c.gone(now))
            else {
                return errors::not_found("cluster", &id);
            };
            let cluster = &state.clusters[index];
            let available = state.gpus_available(&cluster.region, &cluster.gpu_type, now);
            if let Err(reply) = create::update(&mut state.clusters[index], ids, call, available) {
                return reply;
            }
            Reply::json(200, state.render(&state.clusters[index], now))
        }
        "delete_cluster" => {
            let Some(cluster) = state
                .clusters
                .iter_mut()
                .find(|c| c.id == id && !c.gone(now))
            else {
                return errors::not_found("cluster", &id);
            };
            cluster.deleted.get_or_insert(now);
            Reply::json(200, json!({ "cluster_id": id }))
        }
        "list_regions" => Reply::json(200, catalog::regions_body()),
        op if op.ends_with("_volume") || op == "list_volumes" => volumes::handle(state, ids, call),
        _ => extras::handle(state, ids, call),
    }
}
