//! A Together cluster through time. After the create it is queued, then waits for its control
//! plane, its data plane (GPU workers), subnet and shared volume, installs drivers, runs
//! acceptance tests and is `Ready` five simulated minutes later; the phase list, the status
//! word and the nodes (gaining host names and public addresses) follow. A create hit by a
//! `fail_provisioning` fault fails its acceptance tests (`CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED`
//! half a minute into them; the status keeps `RunningAcceptanceTests`) and is never ready. A
//! resize of a ready cluster goes back to `WaitingForDataPlaneNodes` until the new workers run
//! (two minutes; half a minute when workers only leave), then `Ready` at the new size. A delete
//! shows `Deleting` for a minute, then the cluster is gone (404). The offsets are illustrative;
//! the phase and status words are the spec's.

use std::time::Duration;

use serde_json::{Value, json};

use super::catalog::{self, Driver};
use crate::clock::{SimClock, rfc3339};
use crate::ids::Ids;

/// (seconds after create, phase, status). `WAITING_FOR_SHARED_VOLUME` only with a volume.
const SCHEDULE: &[(u64, &str, &str)] = &[
    (0, "CLUSTER_PHASE_QUEUED", "WaitingForControlPlaneNodes"),
    (
        10,
        "CLUSTER_PHASE_WAITING_FOR_CONTROL_PLANE_NODES",
        "WaitingForControlPlaneNodes",
    ),
    (
        60,
        "CLUSTER_PHASE_WAITING_FOR_DATA_PLANE_NODES",
        "WaitingForDataPlaneNodes",
    ),
    (120, "CLUSTER_PHASE_WAITING_FOR_SUBNET", "WaitingForSubnet"),
    (
        150,
        "CLUSTER_PHASE_WAITING_FOR_SHARED_VOLUME",
        "WaitingForSharedVolume",
    ),
    (180, "CLUSTER_PHASE_INSTALLING_DRIVERS", "InstallingDrivers"),
    (
        240,
        "CLUSTER_PHASE_RUNNING_ACCEPTANCE_TESTS",
        "RunningAcceptanceTests",
    ),
    (300, "CLUSTER_PHASE_READY", "Ready"),
];

/// Simulated time from create to `Ready`.
pub(crate) const READY_AFTER: Duration = Duration::from_secs(300);
/// Simulated time a deleted cluster shows `Deleting` before it is gone.
pub(crate) const DELETE_TAKES: Duration = Duration::from_secs(60);
/// When a doomed cluster's acceptance tests fail, after the create.
const TESTS_FAIL_AFTER: Duration = Duration::from_secs(270);
/// Simulated time a resize takes: until the new workers run, or until removed ones are gone.
pub(crate) const GROW_TAKES: Duration = Duration::from_secs(120);
pub(crate) const SHRINK_TAKES: Duration = Duration::from_secs(30);
/// A node's phases: (seconds after it was born, node phase, status text); it gets its host name
/// and address at the third.
const NODE_SCHEDULE: &[(u64, &str, &str)] = &[
    (0, "NODE_PHASE_PENDING", "Pending"),
    (10, "NODE_PHASE_BOOTING", "Booting"),
    (60, "NODE_PHASE_BOOTSTRAPPING", "Bootstrapping"),
    (120, "NODE_PHASE_RUNNING", "Running"),
];
const NODE_ADDRESSED_AFTER: Duration = Duration::from_secs(60);
/// When the control-plane node and the first GPU workers are born, after the create.
const CONTROL_BORN: Duration = Duration::from_secs(10);
const WORKERS_BORN: Duration = Duration::from_secs(60);

/// One machine, with everything it will show once up decided at birth.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) id: String,
    pub(crate) instance_id: String,
    pub(crate) host_name: String,
    pub(crate) public_ipv4: String,
    pub(crate) born: Duration,
}

impl Node {
    pub(crate) fn new(ids: &mut Ids, kind: &str, region: &str, born: Duration) -> Self {
        let tag = ids.tag();
        Self {
            id: format!("{kind}-{tag}"),
            instance_id: ids.uuid(),
            host_name: format!("{kind}-{tag}.{region}.cloud.together.ai"),
            public_ipv4: ids.public_ipv4(),
            born,
        }
    }

    fn phases(&self, now: Duration) -> Vec<Value> {
        NODE_SCHEDULE
            .iter()
            .filter(|(after, _, _)| self.born + Duration::from_secs(*after) <= now)
            .map(|(after, phase, _)| {
                json!({"phase": phase, "transition_time": at(self.born + Duration::from_secs(*after))})
            })
            .collect()
    }

    fn status(&self, now: Duration) -> &'static str {
        NODE_SCHEDULE
            .iter()
            .rev()
            .find(|(after, _, _)| self.born + Duration::from_secs(*after) <= now)
            .map_or("Pending", |(_, _, status)| status)
    }

    fn addressed(&self, now: Duration) -> bool {
        now >= self.born + NODE_ADDRESSED_AFTER
    }

    /// The common fields of both node kinds.
    fn render(&self, now: Duration) -> serde_json::Map<String, Value> {
        let addressed = self.addressed(now);
        let mut node = serde_json::Map::new();
        node.insert("node_id".into(), json!(self.id));
        node.insert("status".into(), json!(self.status(now)));
        node.insert(
            "host_name".into(),
            json!(addressed.then_some(&self.host_name)),
        );
        node.insert(
            "public_ipv4".into(),
            json!(addressed.then_some(&self.public_ipv4)),
        );
        node.insert("phase_transitions".into(), json!(self.phases(now)));
        node
    }
}

/// A cluster as created, plus what happened to it since.
#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) project_id: String,
    pub(crate) region: String,
    pub(crate) gpu_type: String,
    pub(crate) num_gpus: i64,
    pub(crate) cluster_type: String,
    pub(crate) billing_type: String,
    pub(crate) driver: Driver,
    /// The create body with later updates merged in, for the fields echoed back as sent.
    pub(crate) request: Value,
    pub(crate) created: Duration,
    pub(crate) deleted: Option<Duration>,
    pub(crate) volume_ids: Vec<String>,
    pub(crate) control: Node,
    pub(crate) workers: Vec<Node>,
    /// Workers removed by a resize, with when.
    pub(crate) removed: Vec<(Node, Duration)>,
    pub(crate) node_events: Vec<Value>,
    pub(crate) add_ons: Vec<Value>,
    /// Its acceptance tests will fail (a `fail_provisioning` fault).
    pub(crate) fails: bool,
    /// Resizes: (requested, ready again at the new size).
    pub(crate) resizes: Vec<(Duration, Duration)>,
}

impl Cluster {
    /// The nodes a new cluster of `num_gpus` GPUs will have (8 GPUs per worker).
    pub(crate) fn nodes(
        ids: &mut Ids,
        region: &str,
        num_gpus: i64,
        created: Duration,
    ) -> (Node, Vec<Node>) {
        let control = Node::new(ids, "cp", region, created + CONTROL_BORN);
        let workers = (0..num_gpus / 8)
            .map(|_| Node::new(ids, "gpu", region, created + WORKERS_BORN))
            .collect();
        (control, workers)
    }

    /// Whether the cluster no longer exists at `now` (deleted long enough ago).
    pub(crate) fn gone(&self, now: Duration) -> bool {
        self.deleted.is_some_and(|d| now >= d + DELETE_TAKES)
    }

    pub(crate) fn deleting(&self, now: Duration) -> bool {
        self.deleted.is_some_and(|d| now >= d)
    }

    /// (when, phase, status) of every phase reached by `now`, oldest first.
    fn phases(&self, now: Duration) -> Vec<(Duration, &'static str, &'static str)> {
        let mut phases: Vec<_> = SCHEDULE
            .iter()
            .filter(|(_, phase, _)| {
                !phase.ends_with("SHARED_VOLUME") || !self.volume_ids.is_empty()
            })
            .filter(|(_, phase, _)| !self.fails || !phase.ends_with("_READY"))
            .map(|(after, phase, status)| {
                (self.created + Duration::from_secs(*after), *phase, *status)
            })
            .collect();
        if self.fails {
            phases.push((
                self.created + TESTS_FAIL_AFTER,
                "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED",
                "RunningAcceptanceTests",
            ));
        }
        for (requested, ready) in &self.resizes {
            phases.push((
                *requested,
                "CLUSTER_PHASE_WAITING_FOR_DATA_PLANE_NODES",
                "WaitingForDataPlaneNodes",
            ));
            phases.push((*ready, "CLUSTER_PHASE_READY", "Ready"));
        }
        // Nothing happens after the delete but the delete.
        let until = self.deleted.map_or(now, |d| d.min(now));
        phases.retain(|(when, _, _)| *when <= until);
        phases.sort_by_key(|(when, _, _)| *when);
        if let Some(deleted) = self.deleted.filter(|d| *d <= now) {
            phases.push((deleted, "CLUSTER_PHASE_DELETING", "Deleting"));
        }
        phases
    }

    /// Whether the cluster is `Ready` at `now` (a resize can be asked of it).
    pub(crate) fn ready(&self, now: Duration) -> bool {
        self.status(now) == "Ready"
    }

    /// The current status word.
    pub(crate) fn status(&self, now: Duration) -> &'static str {
        self.phases(now)
            .last()
            .map_or("WaitingForControlPlaneNodes", |p| p.2)
    }

    fn ready_at(&self) -> Duration {
        self.created + READY_AFTER
    }

    /// The cluster as `GPUClusterInfo` at `now`; `volumes` are the rendered attached volumes.
    pub(crate) fn render(&self, now: Duration, volumes: Vec<Value>) -> Value {
        let request = &self.request;
        let echo = |field: &str| request.get(field).cloned().unwrap_or(Value::Null);
        let control_up = self.control.addressed(now);
        let ever_ready = !self.fails && now >= self.ready_at();
        let (cores, memory, ib) = catalog::node_shape(&self.gpu_type);
        let workers: Vec<Value> = self
            .workers
            .iter()
            .filter(|n| n.born <= now)
            .map(|n| worker(n, now, cores, memory, ib, None))
            .collect();
        let removed: Vec<Value> = self
            .removed
            .iter()
            .filter(|(_, at)| *at <= now)
            .map(|(n, at)| worker(n, now, cores, memory, ib, Some(*at)))
            .collect();
        let mut control = self.control.render(now);
        control.insert("num_cpu_cores".into(), json!(32));
        control.insert("memory_gib".into(), json!(128.0));
        control.insert("network".into(), json!("10.0.0.0/16"));
        let reserved = if self.billing_type == "RESERVED" {
            echo("num_reserved_gpus").as_i64().unwrap_or(self.num_gpus)
        } else {
            echo("num_reserved_gpus").as_i64().unwrap_or(0)
        };
        json!({
            "cluster_id": self.id,
            "cluster_type": self.cluster_type,
            "region": self.region,
            "gpu_type": self.gpu_type,
            "cluster_name": self.name,
            "duration_hours": echo("duration_days").as_i64().map(|d| d * 24),
            "volumes": volumes,
            "status": self.status(now),
            "control_plane_nodes": if self.control.born <= now { vec![Value::Object(control)] } else { Vec::new() },
            "gpu_worker_nodes": workers,
            "kube_config": self.kube_config(control_up),
            "num_gpus": self.num_gpus,
            "slurm_shm_size_gib": echo("slurm_shm_size_gib"),
            "capacity_pool_id": echo("capacity_pool_id"),
            "reservation_start_time": echo("reservation_start_time"),
            "reservation_end_time": echo("reservation_end_time"),
            "install_traefik": echo("install_traefik").as_bool().unwrap_or(false),
            "cuda_version": self.driver.cuda_version,
            "nvidia_driver_version": self.driver.nvidia_driver_version,
            "nvidia_driver_version_id": self.driver.id,
            "os_image": self.driver.os,
            "created_at": at(self.created),
            "oidc_config": echo("oidc_config"),
            "project_id": self.project_id,
            "cluster_config": echo("cluster_config"),
            "num_cpu_workers": 0,
            "phase_transitions": self.phases(now).iter().map(|(when, phase, _)| {
                json!({"phase": phase, "transition_time": at(*when)})
            }).collect::<Vec<_>>(),
            "desired_preemptible_gpus": echo("num_preemptible_gpus").as_i64().unwrap_or(0),
            "allocated_preemptible_gpus": if ever_ready { echo("num_preemptible_gpus").as_i64().unwrap_or(0) } else { 0 },
            "billing_type": self.billing_type,
            "add_ons": self.add_ons,
            "machine_cluster_id": format!("mc-{}", self.id.chars().take(8).collect::<String>()),
            "first_ready_at": ever_ready.then(|| at(self.ready_at())),
            "is_in_substrate": false,
            "control_plane_ready": control_up,
            "num_capacity_pool_gpus": echo("num_capacity_pool_gpus").as_i64().unwrap_or(0),
            "num_reserved_gpus": reserved,
            "deleted_gpu_worker_nodes": removed,
            "node_lifecycle_events": self.node_events,
        })
    }

    /// A kubeconfig for the cluster's control plane, base64-encoded as Together's CLI expects
    /// (it decodes `kube_config` and refuses a value that does not decode); empty until the
    /// control plane is up, and on a Slurm cluster.
    fn kube_config(&self, control_up: bool) -> String {
        use base64::Engine as _;
        if !control_up || self.cluster_type != "KUBERNETES" {
            return String::new();
        }
        let yaml = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: {name}\n  cluster:\n    server: https://{ip}:6443\ncontexts:\n- name: {name}\n  context:\n    cluster: {name}\n    user: {name}-admin\ncurrent-context: {name}\nusers:\n- name: {name}-admin\n  user:\n    token: sim-token-{id}\n",
            name = self.name,
            ip = self.control.public_ipv4,
            id = self.id,
        );
        base64::engine::general_purpose::STANDARD.encode(yaml)
    }
}

fn worker(
    node: &Node,
    now: Duration,
    cores: i64,
    memory: f64,
    ib: i64,
    deleted: Option<Duration>,
) -> Value {
    let mut object = node.render(now);
    let extra = json!({
        "num_cpu_cores": cores,
        "num_gpus": 8,
        "memory_gib": memory,
        "networks": ["10.0.0.0/16"],
        "instance_id": node.instance_id,
        "marked_for_deletion": false,
        "ib_hca_type": (ib > 0).then_some("ConnectX-7"),
        "ib_hca_count": ib,
        "nvswitch_count": if ib > 0 { 4 } else { 0 },
        "nvswitch_type": (ib > 0).then_some("NVSwitch-4"),
        "ephemeral_storage": "1Ti",
        "auto_remediation_enabled": true,
        "deleted_at": deleted.map(at),
    });
    if let Value::Object(extra) = extra {
        object.extend(extra);
    }
    Value::Object(object)
}

/// A simulated instant as RFC 3339.
pub(crate) fn at(elapsed: Duration) -> String {
    rfc3339(SimClock::at(elapsed))
}
