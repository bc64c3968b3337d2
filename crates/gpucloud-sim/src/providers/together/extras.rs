//! Together's operations around a cluster that the facade does not use: add-ons, node
//! remediations and passive health-check alerts. They keep just enough state to answer
//! consistently (an add-on added can be read back; a remediation moves through the states the
//! reference allows), with realistic bodies.

use serde_json::{Value, json};

use super::State;
use super::cluster::at;
use super::create::add_on;
use super::errors::{self, FAILED_PRECONDITION};
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;

pub(crate) fn handle(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Reply {
    if call.operation == "list_passive_health_check_alerts" {
        return Reply::json(200, json!({"alerts": [], "next_page_token": ""}));
    }
    let now = call.now;
    let cluster_id = call.param("cluster_id").unwrap_or_default().to_string();
    let Some(index) = state
        .clusters
        .iter()
        .position(|c| c.id == cluster_id && !c.gone(now))
    else {
        return errors::not_found("cluster", &cluster_id);
    };
    if call.operation.contains("add_on") {
        return add_ons(&mut state.clusters[index].add_ons, call);
    }
    let cluster = &state.clusters[index];
    let instance = call.param("instance_id").unwrap_or("-").to_string();
    let known = instance == "-"
        || cluster
            .workers
            .iter()
            .any(|n| n.instance_id == instance || n.id == instance);
    if !known {
        return errors::not_found("instance", &instance);
    }
    remediations(&mut state.remediations, ids, call, &cluster_id, &instance)
}

fn add_ons(add_ons: &mut Vec<Value>, call: &Call<'_>) -> Reply {
    let name = call.param("addon_id").unwrap_or_default();
    let position = add_ons
        .iter()
        .position(|a| a.get("name").and_then(Value::as_str) == Some(name));
    match (call.operation, position) {
        ("list_add_ons", _) => Reply::json(200, json!({ "add_ons": add_ons })),
        ("create_add_on", _) => {
            let created = add_on(call.body.unwrap_or(&Value::Null));
            add_ons.push(created.clone());
            Reply::json(200, created)
        }
        ("get_add_on", Some(i)) => Reply::json(200, add_ons[i].clone()),
        ("update_add_on", Some(i)) => {
            if let Some(config) = call.field("config") {
                add_ons[i]["config"] = config.clone();
            }
            Reply::json(200, add_ons[i].clone())
        }
        ("delete_add_on", Some(i)) => {
            add_ons.remove(i);
            Reply::json(200, json!({}))
        }
        _ => errors::not_found("add-on", name),
    }
}

fn remediations(
    all: &mut Vec<Value>,
    ids: &mut Ids,
    call: &Call<'_>,
    cluster_id: &str,
    instance: &str,
) -> Reply {
    let mine = |r: &Value| {
        r["cluster_id"] == cluster_id && (instance == "-" || r["instance_id"] == instance)
    };
    if call.operation == "list_remediations" {
        // Each array filter arrives typed, whether it was sent comma-joined (as Together's
        // SDKs do, and the spec declares) or with its key repeated.
        let wanted = |filter: &str, r: &Value| match call.params.get(filter) {
            Some(Value::Array(values)) if !values.is_empty() => values.contains(&r[filter]),
            _ => true,
        };
        let list: Vec<&Value> = all
            .iter()
            .filter(|r| mine(r) && ["state", "trigger", "mode"].iter().all(|f| wanted(f, r)))
            .collect();
        return Reply::json(
            200,
            json!({"remediations": list, "next_page_token": "", "has_next": false}),
        );
    }
    if call.operation == "create_remediation" {
        let id = call
            .param("remediation_id")
            .map(str::to_string)
            .unwrap_or_else(|| ids.uuid());
        // The client-chosen id makes the create idempotent (Together's document of 2026-08-19;
        // its Python SDK 3.1.1 no longer sends one, and then every create is a new one).
        if let Some(existing) = all.iter().find(|r| r["id"] == id.as_str()) {
            return Reply::json(200, existing.clone());
        }
        let remediation = json!({
            "id": id,
            "cluster_id": cluster_id,
            "instance_id": instance,
            "mode": call.field("mode"),
            "reason": call.field("reason"),
            "trigger": if call.automated { "REMEDIATION_TRIGGER_AUTOMATED" } else { "REMEDIATION_TRIGGER_MANUAL" },
            "state": if call.automated { "PENDING_APPROVAL" } else { "PENDING" },
            "requested_by": if call.automated { "together-automation" } else { "sim-user" },
            "create_time": at(call.now),
            "update_time": at(call.now),
            "linked_alerts": [],
        });
        all.push(remediation.clone());
        return Reply::json(200, remediation);
    }
    let id = call.param("remediation_id").unwrap_or_default();
    let Some(remediation) = all.iter_mut().find(|r| r["id"] == id && mine(r)) else {
        return errors::not_found("remediation", id);
    };
    let state = remediation["state"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let (allowed, next): (&[&str], &str) = match call.operation {
        "approve_remediation" => (&["PENDING_APPROVAL"], "PENDING"),
        "cancel_remediation" => (&["PENDING_APPROVAL", "PENDING"], "CANCELLED"),
        "reject_remediation" => (&["PENDING_APPROVAL"], "CANCELLED"),
        _ => return Reply::json(200, remediation.clone()),
    };
    if !allowed.contains(&state.as_str()) {
        return errors::grpc(
            FAILED_PRECONDITION,
            format!(
                "remediation is {state}; {} needs {}",
                call.operation,
                allowed.join(" or ")
            ),
            Vec::new(),
        );
    }
    remediation["state"] = json!(next);
    remediation["update_time"] = json!(at(call.now));
    if call.operation != "cancel_remediation" {
        remediation["reviewed_by"] = json!("sim-user");
        remediation["review_time"] = json!(at(call.now));
        remediation["review_comment"] = call.field("comment").cloned().unwrap_or(Value::Null);
    }
    if let Some(mode) = call.field("mode") {
        remediation["mode"] = mode.clone();
    }
    Reply::json(200, remediation.clone())
}
