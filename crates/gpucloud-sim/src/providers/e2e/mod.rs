//! The E2E Networks TIR training-cluster API (`/distributed_jobs_v2/...`): all seven
//! documented operations, scoped by `project_id` and `location` as on the real API.

mod actions;
mod capacity;
mod catalog;
mod cluster;
pub(crate) mod errors;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::credentials::E2E_PROJECT_ID;
use crate::exchange::ClusterSummary;
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;
use cluster::Cluster;

/// Page size of `list_clusters` when the request names none.
const DEFAULT_PER_PAGE: i64 = 10;

#[derive(Debug)]
pub(crate) struct State {
    clusters: Vec<Cluster>,
    /// The first id handed out; E2E ids are small integers (the docs' example is 101).
    first_id: i64,
    /// Totals set through the capacity API, per (SKU id, location); the rest have the default.
    capacity: BTreeMap<(i64, String), u32>,
}

impl State {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            clusters: Vec::new(),
            first_id: 101 + i64::try_from(seed % 1000).unwrap_or(0) * 1000,
            capacity: BTreeMap::new(),
        }
    }

    pub(crate) fn summaries(&self, now: Duration) -> Vec<ClusterSummary> {
        self.clusters
            .iter()
            .filter(|c| !c.gone(now))
            .map(|c| ClusterSummary {
                id: c.id.to_string(),
                name: c.name.clone(),
                status: c.status(now).to_string(),
            })
            .collect()
    }

    fn position(&self, call: &Call<'_>) -> Option<usize> {
        let id = call.param_i64("cluster_id")?;
        let location = call.param("location")?;
        self.clusters
            .iter()
            .position(|c| c.id == id && c.location == location && !c.gone(call.now))
    }
}

pub(crate) fn handle(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Reply {
    if call.param_i64("project_id") != Some(E2E_PROJECT_ID) {
        return errors::error(
            403,
            json!({}),
            "You do not have permission to access this project.",
        );
    }
    let now = call.now;
    let location = call.param("location").unwrap_or_default().to_string();
    match call.operation {
        "create_cluster" => create(state, ids, call, &location),
        "list_clusters" => {
            let per_page = call
                .param_i64("per_page")
                .filter(|p| *p > 0)
                .unwrap_or(DEFAULT_PER_PAGE);
            let page = call.param_i64("page_no").filter(|p| *p > 0).unwrap_or(1);
            let skip = usize::try_from((page - 1).saturating_mul(per_page)).unwrap_or(usize::MAX);
            let clusters: Vec<Value> = state
                .clusters
                .iter()
                .rev()
                .filter(|c| c.location == location && !c.gone(now))
                .skip(skip)
                .take(usize::try_from(per_page).unwrap_or(usize::MAX))
                .map(|c| c.render(now))
                .collect();
            errors::ok(200, json!(clusters), "Success")
        }
        "list_plans" => errors::ok(200, json!(catalog::plans(&location)), "Success"),
        "list_images" => {
            let framework = call.param("framework").unwrap_or_default();
            if call.param("job_type") != Some(framework) {
                return errors::bad_field(
                    "job_type",
                    "Must be the same as the framework in the path.",
                );
            }
            errors::ok(200, json!(catalog::images(framework)), "Success")
        }
        "get_cluster" => match state.position(call) {
            Some(i) => errors::ok(200, state.clusters[i].render(now), "Success"),
            None => errors::not_found("Cluster"),
        },
        "delete_cluster" => match state.position(call) {
            Some(i) => {
                state.clusters[i].deleted.get_or_insert(now);
                errors::ok(200, json!("Cluster deleted successfully"), "Success")
            }
            None => errors::not_found("Cluster"),
        },
        _ => match state.position(call) {
            Some(i) => {
                let cluster = &state.clusters[i];
                let available = state.nodes_available(cluster.sku, &location, now);
                actions::run(&mut state.clusters[i], ids, call, available)
            }
            None => errors::not_found("Cluster"),
        },
    }
}

/// A create, with the rules the docs state: a known image, a known node type, a plan of that
/// node type in the requested location (plans are region-specific), at least one node and one
/// SSH key. Names need not be unique, so a blind retry shows up as a second cluster.
fn create(state: &mut State, ids: &mut Ids, call: &Call<'_>, location: &str) -> Reply {
    let image = call.field_i64("image_version_id").and_then(catalog::image);
    let Some(image) = image else {
        return errors::bad_field("image_version_id", "Invalid image version.");
    };
    let Some(sku) = call.field_i64("sku_id").and_then(catalog::sku) else {
        return errors::bad_field("sku_id", "Invalid SKU.");
    };
    let plan = call
        .field_i64("sku_item_price_id")
        .and_then(|id| sku.plan(id));
    let Some(plan) = plan.filter(|p| p.location == location) else {
        return errors::bad_field(
            "sku_item_price_id",
            format!("This plan is not available for {} in {location}.", sku.name),
        );
    };
    let nodes = call.field_i64("no_of_nodes").unwrap_or(0);
    if !(1..=64).contains(&nodes) {
        return errors::bad_field("no_of_nodes", "Ensure this value is between 1 and 64.");
    }
    let ssh_key_ids: Vec<i64> = call
        .field("ssh_key_ids")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    if ssh_key_ids.is_empty() {
        return errors::bad_field("ssh_key_ids", "This list may not be empty.");
    }
    let available = state.nodes_available(sku, location, call.now);
    if let Err(refused) = capacity::fits(sku, location, nodes, false, available) {
        return refused;
    }
    let mut clone_data = call.body.cloned().unwrap_or(json!({}));
    clone_data["project_id"] = json!(E2E_PROJECT_ID);
    let id = state.first_id + i64::try_from(state.clusters.len()).unwrap_or(0);
    let mut cluster = Cluster {
        id,
        name: call.field_str("name").unwrap_or_default().to_string(),
        location: location.to_string(),
        sku,
        plan,
        image,
        clone_data,
        ssh_key_ids,
        reserved_ips: Vec::new(),
        public_ip: ids.public_ipv4(),
        workers: Vec::new(),
        created: call.now,
        deleted: None,
        fails: call.fail_provisioning,
    };
    cluster.add_workers(ids, nodes, call.now);
    let body = cluster.render(call.now);
    state.clusters.push(cluster);
    errors::ok(201, body, "Cluster created successfully")
}
