//! The three simulated control planes. Each provider module answers in that provider's own
//! envelopes and error shapes and keeps its clusters; this module only dispatches to them, and
//! `capacity` holds the one handle that reads and sets the offerings of all three.
//!
//! A cluster's visible state is computed from simulated time at every read (created at T, so
//! at T+x it is in this phase): nothing runs in the background and a test that moves the clock
//! sees the cluster move with it.

pub(crate) mod capacity;
pub(crate) mod e2e;
pub(crate) mod runcrate;
pub(crate) mod together;

use std::time::Duration;

use serde_json::{Map, Value};

use crate::exchange::ClusterSummary;
use crate::faults::FaultKind;
use crate::ids::Ids;
use crate::openapi::request::FieldError;
use crate::provider::Provider;
use crate::reply::Reply;

/// A validated request, as a handler sees it.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    /// The spec's operationId.
    pub(crate) operation: &'a str,
    /// Path, query and header parameters by their documented names, typed.
    pub(crate) params: &'a Map<String, Value>,
    /// The JSON body, when the operation has one.
    pub(crate) body: Option<&'a Value>,
    /// Simulated time since the simulator started.
    pub(crate) now: Duration,
    /// A create hit by [`FaultKind::FailProvisioning`]: the cluster is doomed.
    pub(crate) fail_provisioning: bool,
    /// A remediation create hit by [`FaultKind::AutomatedRemediation`]: Together's own.
    pub(crate) automated: bool,
}

impl Call<'_> {
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).and_then(Value::as_str)
    }

    pub(crate) fn param_i64(&self, name: &str) -> Option<i64> {
        self.params.get(name).and_then(Value::as_i64)
    }

    pub(crate) fn field(&self, name: &str) -> Option<&Value> {
        self.body.and_then(|b| b.get(name)).filter(|v| !v.is_null())
    }

    pub(crate) fn field_str(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }

    pub(crate) fn field_i64(&self, name: &str) -> Option<i64> {
        self.field(name).and_then(Value::as_i64)
    }

    pub(crate) fn field_bool(&self, name: &str) -> Option<bool> {
        self.field(name).and_then(Value::as_bool)
    }
}

/// Every provider's clusters and the shared id source.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) ids: Ids,
    pub(crate) together: together::State,
    pub(crate) runcrate: runcrate::State,
    pub(crate) e2e: e2e::State,
}

impl State {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            ids: Ids::new(seed),
            together: together::State::default(),
            runcrate: runcrate::State::default(),
            e2e: e2e::State::new(seed),
        }
    }
}

/// Checks the credentials the way `provider` does.
pub(crate) fn authenticate(
    provider: Provider,
    headers: &http::HeaderMap,
    query: &[(String, String)],
) -> Result<(), Reply> {
    match provider {
        Provider::Together => together::errors::authenticate(headers),
        Provider::Runcrate => runcrate::errors::authenticate(headers),
        Provider::E2e => e2e::errors::authenticate(headers, query),
    }
}

/// The answer to a request that breaks the spec.
pub(crate) fn invalid(provider: Provider, operation: &str, errors: &[FieldError]) -> Reply {
    match provider {
        Provider::Together => together::errors::invalid(operation, errors),
        Provider::Runcrate => runcrate::errors::invalid(errors),
        Provider::E2e => e2e::errors::invalid(errors),
    }
}

/// The answer to an undocumented path (or method, when `path_exists`).
pub(crate) fn no_route(provider: Provider, path_exists: bool) -> Reply {
    match provider {
        Provider::Together => together::errors::no_route(path_exists),
        Provider::Runcrate => runcrate::errors::no_route(path_exists),
        Provider::E2e => e2e::errors::no_route(path_exists),
    }
}

/// The 405 to a method the path does not document, in the provider's error shape, with the
/// `Allow` header listing the methods it does (RFC 9110 §15.5.6).
pub(crate) fn method_not_allowed(provider: Provider, allow: &str) -> Reply {
    no_route(provider, true).with_header(http::header::ALLOW, allow)
}

/// The answer of a refusing fault, in the provider's error shape.
pub(crate) fn refusal(provider: Provider, operation: &str, kind: &FaultKind) -> Reply {
    let (status, retry_after) = match kind {
        FaultKind::RateLimited { retry_after_secs } => (429, Some(*retry_after_secs)),
        FaultKind::ServerError { status } => (*status, None),
        FaultKind::OkWithErrorCode { code } => (*code, None),
        _ => (500, None),
    };
    let mut reply = match provider {
        Provider::Together => together::errors::status(status, operation),
        Provider::Runcrate => runcrate::errors::status(status),
        Provider::E2e => e2e::errors::status(status, retry_after),
    };
    if let FaultKind::OkWithErrorCode { .. } = kind {
        reply.status = 200;
    }
    match retry_after {
        Some(secs) => reply.with_header(http::header::RETRY_AFTER, secs.to_string()),
        None => reply,
    }
}

/// Runs the operation.
pub(crate) fn handle(provider: Provider, state: &mut State, call: &Call<'_>) -> Reply {
    match provider {
        Provider::Together => together::handle(&mut state.together, &mut state.ids, call),
        Provider::Runcrate => runcrate::handle(&mut state.runcrate, &mut state.ids, call),
        Provider::E2e => e2e::handle(&mut state.e2e, &mut state.ids, call),
    }
}

/// Shows `status` as the status of every cluster in a success body.
pub(crate) fn set_status(provider: Provider, body: &mut Value, status: &str) {
    for cluster in answered_clusters(provider, body) {
        if let Some(object) = cluster.as_object_mut()
            && object.contains_key("status")
            && (provider != Provider::Together || object.contains_key("cluster_id"))
        {
            object.insert("status".into(), Value::String(status.to_string()));
        }
    }
}

/// Makes every cluster in `body` (an answer of `provider`'s) state `per_hour` as its price
/// (see [`crate::FaultKind::StatedPrice`]).
pub(crate) fn set_price(provider: Provider, body: &mut Value, per_hour: f64) {
    for cluster in answered_clusters(provider, body) {
        match provider {
            Provider::Together => {}
            Provider::Runcrate => {
                if let Some(object) = cluster.as_object_mut() {
                    object.insert("hourly_rate".into(), per_hour.into());
                }
            }
            Provider::E2e => {
                let nodes = cluster
                    .get("no_of_nodes")
                    .and_then(Value::as_f64)
                    .filter(|n| *n >= 1.0)
                    .unwrap_or(1.0);
                if let Some(plan) = cluster
                    .pointer_mut("/sku_details/plan")
                    .and_then(Value::as_object_mut)
                {
                    plan.insert("unit_price".into(), (per_hour / nodes).into());
                }
            }
        }
    }
}

/// The cluster objects in an answer of `provider`'s: a list's, or the one answered.
fn answered_clusters(provider: Provider, body: &mut Value) -> Vec<&mut Value> {
    match provider {
        Provider::Together => {
            if body.get("clusters").is_some_and(Value::is_array) {
                body.get_mut("clusters")
                    .and_then(Value::as_array_mut)
                    .map(|list| list.iter_mut().collect())
                    .unwrap_or_default()
            } else {
                vec![body]
            }
        }
        Provider::Runcrate | Provider::E2e => match body.get_mut("data") {
            Some(Value::Array(list)) => list.iter_mut().collect(),
            Some(one) => vec![one],
            None => Vec::new(),
        },
    }
}

/// The clusters `provider` holds at `now`.
pub(crate) fn clusters(provider: Provider, state: &State, now: Duration) -> Vec<ClusterSummary> {
    match provider {
        Provider::Together => state.together.summaries(now),
        Provider::Runcrate => state.runcrate.summaries(now),
        Provider::E2e => state.e2e.summaries(now),
    }
}
