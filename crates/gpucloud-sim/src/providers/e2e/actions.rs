//! `PUT /distributed_jobs_v2/cluster/{id}/`: one action per call, each reading only its own
//! fields (E2E's "Update" page). `scale_cluster` adds nodes to a running cluster (not to one
//! still scaling); the others, which also work while it scales, answer as documented (the
//! cluster, a reserved IP, an empty object or a confirmation).

use serde_json::{Value, json};

use super::capacity;
use super::catalog;
use super::cluster::Cluster;
use super::errors::{self, bad_field};
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;

const REQUIRED: &str = "This field is required.";

/// Runs the action; `available` is how many nodes a `scale_cluster` may still add.
pub(crate) fn run(cluster: &mut Cluster, ids: &mut Ids, call: &Call<'_>, available: u32) -> Reply {
    let now = call.now;
    let action = call.field_str("action").unwrap_or_default();
    let status = cluster.status(now);
    if status != "Running" && (status != "Scaling" || action == "scale_cluster") {
        return errors::error(
            400,
            json!({}),
            format!(
                "Cluster is {}; {action} needs it Running.",
                cluster.status(now)
            ),
        );
    }
    match action {
        "scale_cluster" => {
            let Some(added) = call.field_i64("additional_nodes") else {
                return bad_field("additional_nodes", REQUIRED);
            };
            let total = cluster.workers.len() as i64 + added;
            if added < 1 || total > 64 {
                return bad_field(
                    "additional_nodes",
                    "Add at least 1 node and at most 64 in all.",
                );
            }
            let location = &cluster.location;
            if let Err(refused) = capacity::fits(cluster.sku, location, added, true, available) {
                return refused;
            }
            cluster.add_workers(ids, added, now);
            errors::ok(200, cluster.render(now), "Cluster scaled successfully")
        }
        "update_ssh_keys" => {
            let keys: Option<Vec<i64>> = call
                .field("ssh_key_ids")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_i64).collect());
            match keys.filter(|k| !k.is_empty()) {
                Some(keys) => {
                    cluster.ssh_key_ids = keys;
                    errors::ok(200, cluster.render(now), "SSH keys updated successfully")
                }
                None => bad_field("ssh_key_ids", REQUIRED),
            }
        }
        "update_image" => match call.field_i64("image_version_id").map(catalog::image) {
            Some(Some(image)) => {
                cluster.image = image;
                errors::ok(200, cluster.render(now), "Image updated successfully")
            }
            Some(None) => bad_field("image_version_id", "Invalid image version."),
            None => bad_field("image_version_id", REQUIRED),
        },
        "restart_workers" | "restart_cluster" => {
            errors::ok(200, cluster.render(now), "Restart initiated successfully")
        }
        "attach_ip" => {
            let Some(reserved) = call.field_i64("reserved_ip_id") else {
                return bad_field("reserved_ip_id", REQUIRED);
            };
            let ip = json!({"reserved_ip_id": reserved, "ip_address": ids.public_ipv4(), "status": "Attached"});
            cluster.reserved_ips.push(ip.clone());
            errors::ok(200, ip, "IP attached successfully")
        }
        "detach_ip" => {
            let Some(reserved) = call.field_i64("reserved_ip_id") else {
                return bad_field("reserved_ip_id", REQUIRED);
            };
            cluster
                .reserved_ips
                .retain(|ip| ip["reserved_ip_id"] != reserved);
            errors::ok(200, json!({}), "IP detached successfully")
        }
        "add_security_group" => match call.field("security_groups_ids") {
            Some(_) => errors::ok(200, json!("Security group added successfully"), "Success"),
            None => bad_field("security_groups_ids", REQUIRED),
        },
        _ => match call.field("security_group_id") {
            Some(_) => errors::ok(200, json!("Security group removed successfully"), "Success"),
            None => bad_field("security_group_id", REQUIRED),
        },
    }
}
