//! An E2E training cluster through time: `Creating` with no worker nodes and an empty
//! `ssh_public_ip`, then `Running` two simulated minutes later with its workers, login IP and
//! totals. `scale_cluster` adds workers that show `Creating` for a minute and a half, while
//! the cluster shows `Scaling` (with the new `no_of_nodes`), then `Running` again. A create hit
//! by a `fail_provisioning` fault shows `Failed` a minute after the create and never runs. A
//! delete shows `Deleting` for half a minute, then the cluster is gone (404). Status words:
//! `Creating` is documented; `Running`, `Scaling`, `Failed` and `Deleting` are the words TIR
//! uses elsewhere, and the ones the facade maps.

use std::time::Duration;

use serde_json::{Value, json};

use super::catalog::{Image, Plan, Sku};
use crate::clock::{SimClock, rfc3339};
use crate::ids::Ids;

pub(crate) const READY_AFTER: Duration = Duration::from_secs(120);
const WORKER_READY_AFTER: Duration = Duration::from_secs(90);
pub(crate) const DELETE_TAKES: Duration = Duration::from_secs(30);
/// When a doomed cluster (`fail_provisioning`) shows `Failed`, after the create.
const FAILS_AFTER: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub(crate) struct Worker {
    pub(crate) name: String,
    pub(crate) private_ip: String,
    pub(crate) born: Duration,
}

#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) location: String,
    pub(crate) sku: &'static Sku,
    pub(crate) plan: &'static Plan,
    pub(crate) image: &'static Image,
    /// The create body plus `project_id`, echoed as `clone_data`.
    pub(crate) clone_data: Value,
    pub(crate) ssh_key_ids: Vec<i64>,
    pub(crate) reserved_ips: Vec<Value>,
    pub(crate) public_ip: String,
    pub(crate) workers: Vec<Worker>,
    pub(crate) created: Duration,
    pub(crate) deleted: Option<Duration>,
    /// Provisioning will fail (a `fail_provisioning` fault).
    pub(crate) fails: bool,
}

impl Cluster {
    /// Adds `count` workers born at `born`.
    pub(crate) fn add_workers(&mut self, ids: &mut Ids, count: i64, born: Duration) {
        for _ in 0..count {
            let index = self.workers.len();
            self.workers.push(Worker {
                name: format!("{}-worker-{index}", self.name),
                private_ip: ids.private_ipv4(),
                born,
            });
        }
    }

    pub(crate) fn gone(&self, now: Duration) -> bool {
        self.deleted.is_some_and(|d| now >= d + DELETE_TAKES)
    }

    fn running(&self, now: Duration) -> bool {
        !self.fails && now >= self.created + READY_AFTER
    }

    /// Whether workers added by a scale are still coming up.
    fn scaling(&self, now: Duration) -> bool {
        self.workers
            .iter()
            .any(|w| w.born > self.created && now < w.born + WORKER_READY_AFTER)
    }

    pub(crate) fn status(&self, now: Duration) -> &'static str {
        match self.deleted {
            Some(d) if d <= now => "Deleting",
            _ if self.fails && now >= self.created + FAILS_AFTER => "Failed",
            _ if self.running(now) && self.scaling(now) => "Scaling",
            _ if self.running(now) => "Running",
            _ => "Creating",
        }
    }

    /// The cluster as `TrainingCluster` at `now`.
    pub(crate) fn render(&self, now: Duration) -> Value {
        let running = self.running(now);
        let nodes = self.workers.len() as i64;
        let workers: Vec<Value> = if running {
            self.workers
                .iter()
                .map(|w| {
                    let up = now >= w.born + WORKER_READY_AFTER;
                    json!({
                        "name": w.name,
                        "hostname": w.name,
                        "private_ip": w.private_ip,
                        "status": if up { "Running" } else { "Creating" },
                        "gpu": self.sku.gpu,
                        "cpu": self.sku.cpu,
                        "memory": format!("{} GB", self.sku.memory),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let (total_gpu, total_cpu, total_memory) = if running {
            (
                self.sku.gpu * nodes,
                self.sku.cpu * nodes,
                self.sku.memory * nodes,
            )
        } else {
            (0, 0, 0)
        };
        let ssh_keys: Vec<Value> = self
            .ssh_key_ids
            .iter()
            .map(|pk| json!({"pk": pk, "label": format!("sim-key-{pk}"), "ssh_key": format!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeSimulatorKey{pk} sim@gpucloud")}))
            .collect();
        json!({
            "id": self.id,
            "name": self.name,
            "created_by": {
                "id": 1001, "name": "Sim User", "email": "sim@example.com",
                "username": "sim@example.com", "is_primary_contact": true,
                "currency": "INR", "is_suspended": false,
            },
            "no_of_nodes": nodes,
            "created_at": rfc3339(SimClock::at(self.created)),
            "private_cloud_id": null,
            "private_cloud_name": null,
            "sku_details": { "specs": self.sku.specs(nodes), "plan": self.plan.render() },
            "total_gpu": total_gpu,
            "total_cpu": total_cpu,
            "total_memory": format!("{total_memory} GB"),
            "available_gpu": total_gpu,
            "available_cpu": total_cpu,
            "available_memory": format!("{total_memory} GB"),
            "worker_nodes": workers,
            "has_local_storage": false,
            "local_storage_per_node": null,
            "status": self.status(now),
            "image_pull_policy": "IfNotPresent",
            "image_version": self.image.render(),
            "ssh_keys": ssh_keys,
            "ssh_public_ip": if running { self.public_ip.as_str() } else { "" },
            "has_floating_ip": true,
            "reserve_ip": self.reserved_ips,
            "clone_data": self.clone_data,
        })
    }
}
