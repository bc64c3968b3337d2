//! The Runcrate clusters API: create (with `Idempotency-Key`), get, and the offers list. The
//! docs name no list, delete or resize of clusters, so neither does the simulator.

mod capacity;
mod cluster;
pub(crate) mod errors;
mod idempotency;
mod offers;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use crate::exchange::ClusterSummary;
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;
use cluster::Cluster;
use idempotency::{Keys, Lookup};
use offers::Offer;

/// The simulated account's balance in US dollars. A create needs at least one hour of the
/// whole cluster and never less than $10 (docs page); 62 H100 machines fit, 64 do not.
const BALANCE_USD: f64 = 1500.0;
/// The environment used when a request names none.
const DEFAULT_ENVIRONMENT: &str = "default";

#[derive(Debug, Default)]
pub(crate) struct State {
    clusters: Vec<Cluster>,
    keys: Keys,
    /// Totals set through the capacity API, per offer id; the rest have the default.
    capacity: BTreeMap<&'static str, u32>,
}

impl State {
    pub(crate) fn summaries(&self, now: Duration) -> Vec<ClusterSummary> {
        self.clusters
            .iter()
            .map(|c| ClusterSummary {
                id: c.id.clone(),
                name: c.name.clone(),
                status: c.status(now).to_string(),
            })
            .collect()
    }

    fn find(&self, id: &str, environment: &str) -> Option<&Cluster> {
        self.clusters
            .iter()
            .find(|c| c.id == id && c.environment == environment)
    }
}

pub(crate) fn handle(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Reply {
    let environment = call.param("environment").unwrap_or(DEFAULT_ENVIRONMENT);
    match call.operation {
        "list_offers" => Reply::json(
            200,
            offers::list(call.params.get("volume") == Some(&json!(true))),
        ),
        "get_cluster" => {
            let id = call.param("id").unwrap_or_default();
            match state.find(id, environment) {
                Some(cluster) => Reply::json(200, json!({ "data": cluster.render(call.now) })),
                None => errors::not_found("cluster", id),
            }
        }
        _ => create(state, ids, call, environment),
    }
}

fn create(state: &mut State, ids: &mut Ids, call: &Call<'_>, environment: &str) -> Reply {
    let key = call.param("Idempotency-Key");
    if let Some(key) = key {
        match state.keys.lookup(environment, key) {
            Lookup::Done(id) => {
                if let Some(cluster) = state.find(&id, environment) {
                    return Reply::json(200, json!({ "data": cluster.render(call.now) }));
                }
            }
            Lookup::InFlight => {
                return errors::error(
                    409,
                    "conflict",
                    "A request with this Idempotency-Key is still in progress.",
                    json!({ "reason": "idempotency_in_progress" }),
                );
            }
            Lookup::New => {}
        }
    }
    let offer = match check(call) {
        Ok(offer) => offer,
        Err(reply) => return reply,
    };
    let node_count = call.field_i64("node_count").unwrap_or(0);
    // After the account's checks, as a launch would be: refused whole, nothing created, and
    // the Idempotency-Key left unused so a retry later may still create.
    let available = state.machines_available(offer.id, call.now);
    if let Err(refused) = capacity::fits(offer, node_count, available) {
        return refused;
    }
    let cluster = Cluster {
        id: ids.uuid(),
        name: call.field_str("name").unwrap_or_default().to_string(),
        environment: environment.to_string(),
        offer,
        stack: call.field_str("stack").unwrap_or("none").to_string(),
        storage_id: call.field_str("storage_id").map(str::to_string),
        created: call.now,
        machines: Cluster::machines(ids, node_count),
        fails: offer.fails || call.fail_provisioning,
    };
    let reply = Reply::json(201, json!({ "data": cluster.render(call.now) }));
    let reply = match key {
        Some(key) => reply.holding(state.keys.begin(environment, key, &cluster.id)),
        None => reply,
    };
    state.clusters.push(cluster);
    reply
}

/// The offer's own limits (node counts, stacks, community hosts, volumes) and the balance rule.
fn check(call: &Call<'_>) -> Result<&'static Offer, Reply> {
    let offer_id = call.field_str("offer_id").unwrap_or_default();
    let offer = offers::offer(offer_id).ok_or_else(|| errors::not_found("offer", offer_id))?;
    let nodes = call.field_i64("node_count").unwrap_or(0);
    if !(offer.min_nodes..=offer.max_nodes).contains(&nodes) {
        return Err(errors::bad_field(
            "node_count",
            format!(
                "offer {} takes {}..={} machines, not {nodes}",
                offer.id, offer.min_nodes, offer.max_nodes
            ),
        ));
    }
    if let Some(allowed) = offer.allowed_node_counts
        && !allowed.contains(&nodes)
    {
        return Err(errors::bad_field(
            "node_count",
            format!("offer {} takes only {allowed:?} machines", offer.id),
        ));
    }
    let stack = call.field_str("stack").unwrap_or("none");
    if !offer.stacks.contains(&stack) {
        return Err(errors::bad_field(
            "stack",
            format!(
                "offer {} supports the stacks {}",
                offer.id,
                offer.stacks.join(", ")
            ),
        ));
    }
    if offer.host_tier == "community" && call.field_bool("include_community") != Some(true) {
        return Err(errors::bad_field(
            "include_community",
            format!(
                "offer {} runs on community hosts: set include_community to true",
                offer.id
            ),
        ));
    }
    if call.field("storage_id").is_some() && !offer.accepts_volume {
        return Err(errors::bad_field(
            "storage_id",
            format!(
                "offer {} cannot take a storage volume (list offers with volume=true)",
                offer.id
            ),
        ));
    }
    let hour = (nodes as f64 * offer.hourly_rate_per_node).max(10.0);
    if hour > BALANCE_USD {
        return Err(errors::error(
            402,
            "insufficient_balance",
            format!(
                "The balance (${BALANCE_USD:.2}) must cover one hour of the cluster (${hour:.2})."
            ),
            json!({ "required_usd": hour, "balance_usd": BALANCE_USD }),
        ));
    }
    Ok(offer)
}
