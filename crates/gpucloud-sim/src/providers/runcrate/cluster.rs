//! A Runcrate cluster through time. It is `provisioning` from the create; its machines are
//! allocated, start (instance ids and public IPs) after 20 simulated seconds, and are all up
//! and joined after 60 (`up_at`: overlay addresses, SSH commands, and billing for every machine
//! at once). The stack is ready after 90 (`ready_at`, `ready`, connection details). On an offer
//! that fails, one machine fails to start after 45 seconds and, all-or-nothing, every machine
//! is released: `failed` with a `failure_reason`, never `up_at`, nothing billed. A create hit
//! by a `fail_provisioning` fault fails the same way on any offer.

use std::time::Duration;

use serde_json::{Value, json};

use super::offers::Offer;
use crate::clock::{SimClock, rfc3339};
use crate::ids::Ids;

const STARTED_AFTER: Duration = Duration::from_secs(20);
const FAILS_AFTER: Duration = Duration::from_secs(45);
const UP_AFTER: Duration = Duration::from_secs(60);
pub(crate) const READY_AFTER: Duration = Duration::from_secs(90);

/// One machine's identity, decided at create.
#[derive(Debug, Clone)]
pub(crate) struct Machine {
    pub(crate) instance_id: String,
    pub(crate) ip: String,
    pub(crate) overlay: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) environment: String,
    pub(crate) offer: &'static Offer,
    pub(crate) stack: String,
    pub(crate) storage_id: Option<String>,
    pub(crate) created: Duration,
    pub(crate) machines: Vec<Machine>,
    /// Provisioning will fail (the offer always fails, or a fault said so).
    pub(crate) fails: bool,
}

/// Where a cluster is at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Allocating,
    Started,
    Failed,
    Up,
    Ready,
}

impl Cluster {
    pub(crate) fn machines(ids: &mut Ids, count: i64) -> Vec<Machine> {
        (0..count)
            .map(|_| Machine {
                instance_id: ids.uuid(),
                ip: ids.public_ipv4(),
                overlay: ids.private_ipv4(),
            })
            .collect()
    }

    fn stage(&self, now: Duration) -> Stage {
        let age = now.saturating_sub(self.created);
        match () {
            _ if self.fails && age >= FAILS_AFTER => Stage::Failed,
            _ if self.fails && age >= STARTED_AFTER => Stage::Started,
            _ if self.fails => Stage::Allocating,
            _ if age >= READY_AFTER => Stage::Ready,
            _ if age >= UP_AFTER => Stage::Up,
            _ if age >= STARTED_AFTER => Stage::Started,
            _ => Stage::Allocating,
        }
    }

    /// Whether its machines are still held: always, except once an all-or-nothing start has
    /// failed and released every one of them.
    pub(crate) fn holds_machines(&self, now: Duration) -> bool {
        self.stage(now) != Stage::Failed
    }

    pub(crate) fn status(&self, now: Duration) -> &'static str {
        match self.stage(now) {
            Stage::Failed => "failed",
            Stage::Ready => "ready",
            _ => "provisioning",
        }
    }

    /// The cluster as the spec's `Cluster` at `now`.
    pub(crate) fn render(&self, now: Duration) -> Value {
        let stage = self.stage(now);
        let up = matches!(stage, Stage::Up | Stage::Ready);
        let count = self.machines.len();
        let rate = self.offer.hourly_rate_per_node;
        let up_at = up.then(|| at(self.created + UP_AFTER));
        let (failure_reason, failure_detail) = if stage == Stage::Failed {
            (
                Some("machine_failed_to_start"),
                Some(format!(
                    "machine {}-{} failed to start; all {count} machines were released (all-or-nothing) and nothing was billed",
                    self.name,
                    count.saturating_sub(1)
                )),
            )
        } else {
            (None, None)
        };
        json!({
            "id": self.id,
            "name": self.name,
            "status": self.status(now),
            "stack": self.stack,
            "stack_status": match stage {
                Stage::Ready => "ready",
                Stage::Up => "installing",
                Stage::Failed => "failed",
                _ => "pending",
            },
            "stack_detail": (stage == Stage::Up).then(|| format!("installing {}", self.stack)),
            "node_count": count,
            "gpu_type": self.offer.gpu_type,
            "gpus_per_node": self.offer.gpus_per_node,
            "deployment_type": self.offer.deployment_type,
            "host_tier": self.offer.host_tier,
            "location": self.offer.location,
            "country_code": self.offer.country_code,
            "interconnect": {
                "kind": self.offer.interconnect.0,
                "label": self.offer.interconnect.1,
                "rate_gbps": self.offer.interconnect.2,
                "note": null,
            },
            "hourly_rate_per_node": rate,
            "hourly_rate": (rate * count as f64 * 100.0).round() / 100.0,
            "created_at": at(self.created),
            "up_at": up_at,
            "ready_at": (stage == Stage::Ready).then(|| at(self.created + READY_AFTER)),
            "terminated_at": null,
            "nodes": self.nodes(stage),
            "connection": (stage == Stage::Ready).then(|| self.connection()),
            "shared": self.shared(),
            "events": self.events(stage),
            "last_test": null,
            "billing": {
                "billed_since": up_at,
                "nodes_billed": if up { count } else { 0 },
            },
            "resize": false,
            "failure_reason": failure_reason,
            "failure_detail": failure_detail,
        })
    }

    fn nodes(&self, stage: Stage) -> Vec<Value> {
        let started = stage != Stage::Allocating && stage != Stage::Failed;
        let up = matches!(stage, Stage::Up | Stage::Ready);
        self.machines
            .iter()
            .enumerate()
            .map(|(rank, m)| {
                let (status, phase) = match stage {
                    Stage::Allocating => ("pending", "allocating"),
                    Stage::Started => ("starting", "booting"),
                    Stage::Failed => ("released", "released"),
                    Stage::Up | Stage::Ready => ("running", "joined"),
                };
                json!({
                    "rank": rank,
                    "role": if rank == 0 { "head" } else { "worker" },
                    "instance_id": started.then_some(&m.instance_id),
                    "name": format!("{}-{rank}", self.name),
                    "status": status,
                    "stage": phase,
                    "overlay_address": up.then_some(&m.overlay),
                    "gpus": self.offer.gpus_per_node,
                    "ip": started.then_some(&m.ip),
                    "ssh_command": up.then(|| format!("ssh ubuntu@{}", m.ip)),
                })
            })
            .collect()
    }

    fn connection(&self) -> Value {
        let head = self.machines.first();
        let head_ip = head.map(|m| m.ip.clone()).unwrap_or_default();
        let gpus = self.offer.gpus_per_node;
        let nodes = self.machines.len();
        let hostfile: String = self
            .machines
            .iter()
            .map(|m| format!("{} slots={gpus}\n", m.overlay))
            .collect();
        let stack_snippet = |stack: &str, text: String| (self.stack == stack).then_some(text);
        json!({
            "head_ssh": format!("ssh ubuntu@{head_ip}"),
            "hostfile": hostfile,
            "env": {
                "MASTER_ADDR": head.map(|m| m.overlay.clone()),
                "MASTER_PORT": "29500",
                "NCCL_SOCKET_IFNAME": if self.offer.interconnect.0 == "infiniband" { "ib0" } else { "eth0" },
            },
            "snippets": {
                "torchrun": format!("torchrun --nnodes={nodes} --nproc-per-node={gpus} --rdzv-backend=c10d --rdzv-endpoint=$MASTER_ADDR:$MASTER_PORT train.py"),
                "mpirun": format!("mpirun -np {} --hostfile /shared/hostfile python train.py", nodes as i64 * gpus),
                "deepspeed": "deepspeed --hostfile /shared/hostfile train.py",
                "sbatch": stack_snippet("slurm", format!("sbatch --nodes={nodes} --gpus-per-node={gpus} job.sh")),
                "kubectl_tunnel": stack_snippet("kubernetes", format!("ssh -N -L 6443:localhost:6443 ubuntu@{head_ip}")),
                "ray_tunnel": stack_snippet("ray", format!("ssh -N -L 8265:localhost:8265 ubuntu@{head_ip}")),
            },
        })
    }

    fn shared(&self) -> Value {
        let vm = self.offer.deployment_type == "vm";
        json!({
            "path": "/shared",
            "available": vm,
            "detail": (!vm).then_some("container machines do not get /shared"),
            "volume": self.storage_id.as_ref().map(|id| json!({
                "id": id,
                "name": format!("volume-{}", id.chars().take(8).collect::<String>()),
                "path": "/shared/volume",
            })),
        })
    }

    fn events(&self, stage: Stage) -> Vec<Value> {
        let count = self.machines.len();
        let mut events = vec![(
            self.created,
            "cluster.requested",
            None,
            format!("{count} × {} requested", self.offer.gpu_type),
        )];
        if stage != Stage::Allocating {
            for rank in 0..count {
                events.push((
                    self.created + STARTED_AFTER,
                    "machine.started",
                    Some(rank),
                    "machine started".into(),
                ));
            }
        }
        match stage {
            Stage::Failed => events.push((
                self.created + FAILS_AFTER,
                "cluster.failed",
                Some(count.saturating_sub(1)),
                "machine failed to start; releasing every machine".into(),
            )),
            Stage::Up | Stage::Ready => events.push((
                self.created + UP_AFTER,
                "cluster.up",
                None,
                format!("all {count} machines up and joined; billing started"),
            )),
            _ => {}
        }
        if stage == Stage::Ready {
            events.push((
                self.created + READY_AFTER,
                "cluster.ready",
                None,
                format!("stack {} ready", self.stack),
            ));
        }
        events
            .into_iter()
            .enumerate()
            .map(|(i, (when, kind, rank, message))| {
                json!({"id": i + 1, "at": at(when), "kind": kind, "rank": rank, "message": message})
            })
            .collect()
    }
}

fn at(elapsed: Duration) -> String {
    rfc3339(SimClock::at(elapsed))
}
