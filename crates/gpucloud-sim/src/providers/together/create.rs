//! The rules Together states in prose for creating and resizing a cluster, beyond what the
//! schema checks (its doc page "Create a GPU cluster"; Together's own schema declares no
//! minimum, multiple or pattern for these fields): a positive multiple of 8 GPUs, a
//! region from `GET /compute/regions` offering the GPU type, one way of choosing the NVIDIA
//! software, the fields SLURM, scheduled billing and autoscaling need, and volumes that exist.
//! Cluster names need not be unique, as on the real API: a client that retries a create
//! blindly gets two clusters, which is what a test of "never create twice" must be able to see.

use std::time::Duration;

use serde_json::{Value, json};

use super::State;
use super::capacity;
use super::catalog::{self, Driver, Region};
use super::cluster::{Cluster, GROW_TAKES, Node, SHRINK_TAKES};
use super::errors::{self, FAILED_PRECONDITION, bad_field};
use super::volumes::Volume;
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;

const CREATE: &str = "create_cluster";
const UPDATE: &str = "update_cluster";

/// Checks a create and builds the cluster (and its inline volume, if any).
pub(crate) fn create(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Result<Cluster, Reply> {
    let body = call.body.cloned().unwrap_or(Value::Null);
    let num_gpus = call.field_i64("num_gpus").unwrap_or(0);
    if num_gpus <= 0 {
        return Err(bad_field(
            CREATE,
            "num_gpus",
            "must be a positive multiple of 8",
        ));
    }
    let region_name = call.field_str("region").unwrap_or_default();
    let region = catalog::region(region_name).ok_or_else(|| {
        bad_field(
            CREATE,
            "region",
            format!("unknown region {region_name:?}; see GET /compute/regions"),
        )
    })?;
    let gpu_type = call.field_str("gpu_type").unwrap_or_default();
    if !region.gpu_types.contains(&gpu_type) {
        return Err(bad_field(
            CREATE,
            "gpu_type",
            format!(
                "{gpu_type} is not offered in {}; it offers {}",
                region.name,
                region.gpu_types.join(", ")
            ),
        ));
    }
    let driver = driver(region, call)?;
    let cluster_type = call.field_str("cluster_type").unwrap_or("KUBERNETES");
    if cluster_type == "SLURM" && call.field("slurm_shm_size_gib").is_none() {
        return Err(bad_field(
            CREATE,
            "slurm_shm_size_gib",
            "is required for SLURM clusters",
        ));
    }
    let billing_type = call.field_str("billing_type").unwrap_or("ON_DEMAND");
    if billing_type == "SCHEDULED_CAPACITY" {
        for field in ["reservation_start_time", "reservation_end_time"] {
            if call.field(field).is_none() {
                return Err(bad_field(
                    CREATE,
                    field,
                    "is required for SCHEDULED_CAPACITY billing",
                ));
            }
        }
    }
    check_counts(call, num_gpus)?;
    // Last of the checks and before anything is made: a refused create leaves nothing behind.
    let available = state.gpus_available(region.name, gpu_type, call.now);
    capacity::fits(num_gpus, available, false, gpu_type, region.name)?;
    let created = call.now;
    let id = ids.uuid();
    let project_id = call
        .field_str("project_id")
        .unwrap_or("proj-sim-default")
        .to_string();
    let mut volume_ids = Vec::new();
    if let Some(volume_id) = call.field_str("volume_id") {
        let volume = state
            .volumes
            .iter()
            .find(|v| v.id == volume_id && !v.gone(call.now))
            .ok_or_else(|| errors::not_found("volume", volume_id))?;
        if volume.region != region.name {
            return Err(bad_field(
                CREATE,
                "volume_id",
                format!("volume is in {}, not {}", volume.region, region.name),
            ));
        }
        if let Some(other) = volume
            .cluster_id
            .as_deref()
            .filter(|c| state.live(c, call.now).is_some())
        {
            return Err(errors::grpc(
                FAILED_PRECONDITION,
                format!("volume {volume_id:?} is attached to cluster {other:?}"),
                Vec::new(),
            ));
        }
        volume_ids.push(volume_id.to_string());
    }
    if let Some(shared) = call.field("shared_volume") {
        let volume_region = shared
            .get("region")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if volume_region != region.name {
            return Err(bad_field(
                CREATE,
                "shared_volume.region",
                format!("must be the cluster's region {}", region.name),
            ));
        }
        let volume = Volume::new(ids, shared, &project_id, created);
        volume_ids.push(volume.id.clone());
        state.volumes.push(volume);
    }
    for volume in state
        .volumes
        .iter_mut()
        .filter(|v| volume_ids.contains(&v.id))
    {
        volume.cluster_id = Some(id.clone());
    }
    let (control, workers) = Cluster::nodes(ids, region.name, num_gpus, created);
    let add_ons = call
        .field("add_ons")
        .and_then(Value::as_array)
        .map(|list| list.iter().map(add_on).collect())
        .unwrap_or_default();
    Ok(Cluster {
        id,
        name: call
            .field_str("cluster_name")
            .unwrap_or_default()
            .to_string(),
        project_id,
        region: region.name.to_string(),
        gpu_type: gpu_type.to_string(),
        num_gpus,
        cluster_type: cluster_type.to_string(),
        billing_type: billing_type.to_string(),
        driver,
        request: body,
        created,
        deleted: None,
        volume_ids,
        control,
        workers,
        removed: Vec::new(),
        node_events: Vec::new(),
        add_ons,
        fails: call.fail_provisioning,
        resizes: Vec::new(),
    })
}

/// `nvidia_version_id` alone, or the legacy `cuda_version` + `nvidia_driver_version` pair
/// (optionally with a matching id), or nothing (the region's default). The reference's `anyOf`.
fn driver(region: &Region, call: &Call<'_>) -> Result<Driver, Reply> {
    let id = call.field_str("nvidia_version_id");
    let pair = (
        call.field_str("cuda_version"),
        call.field_str("nvidia_driver_version"),
    );
    let by_id = |id: &str| {
        region
            .drivers
            .iter()
            .copied()
            .find(|d| d.id == id)
            .ok_or_else(|| {
                bad_field(
                    CREATE,
                    "nvidia_version_id",
                    format!("{id:?} is not in the catalog of {}", region.name),
                )
            })
    };
    match (id, pair) {
        (_, (Some(_), None)) | (_, (None, Some(_))) => Err(bad_field(
            CREATE,
            "cuda_version",
            "cuda_version and nvidia_driver_version must be given together",
        )),
        (None, (None, None)) => region
            .drivers
            .first()
            .copied()
            .ok_or_else(|| bad_field(CREATE, "region", "has no NVIDIA software")),
        (Some(id), (None, None)) => by_id(id),
        (id, (Some(cuda), Some(nvidia))) => {
            let found = region
                .drivers
                .iter()
                .copied()
                .find(|d| {
                    d.nvidia_driver_version == nvidia
                        && (d.cuda_version == cuda
                            || cuda.starts_with(&format!("{}-", d.cuda_version)))
                })
                .ok_or_else(|| {
                    bad_field(
                        CREATE,
                        "cuda_version",
                        format!(
                            "CUDA {cuda} with driver {nvidia} is not offered in {}",
                            region.name
                        ),
                    )
                })?;
            match id {
                Some(id) if id != found.id => Err(bad_field(
                    CREATE,
                    "nvidia_version_id",
                    "names another catalog entry than cuda_version + nvidia_driver_version",
                )),
                _ => Ok(found),
            }
        }
    }
}

/// Autoscaling bounds and the GPU counts that are parts of `num_gpus`.
fn check_counts(call: &Call<'_>, num_gpus: i64) -> Result<(), Reply> {
    let autoscaled =
        call.field_bool("auto_scale") == Some(true) || call.field_bool("auto_scaled") == Some(true);
    if autoscaled
        && call
            .field_i64("auto_scale_max_gpus")
            .is_none_or(|max| max < num_gpus)
    {
        return Err(bad_field(
            CREATE,
            "auto_scale_max_gpus",
            format!("is required when autoscaling and must be ≥ num_gpus ({num_gpus})"),
        ));
    }
    for field in [
        "num_capacity_pool_gpus",
        "num_preemptible_gpus",
        "num_reserved_gpus",
    ] {
        if let Some(count) = call.field_i64(field)
            && !(0..=num_gpus).contains(&count)
        {
            return Err(bad_field(
                CREATE,
                field,
                format!("must be between 0 and num_gpus ({num_gpus})"),
            ));
        }
    }
    Ok(())
}

/// An `AddOnInfo` for an add-on requested at create or added later.
pub(crate) fn add_on(request: &Value) -> Value {
    let kind = request
        .get("add_on_type")
        .and_then(Value::as_str)
        .unwrap_or("dashboard");
    json!({
        "name": request.get("name").cloned().unwrap_or(json!(kind)),
        "add_on_type": kind,
        "config": request.get("config").cloned().unwrap_or(json!({})),
        "state": { kind: {} },
    })
}

/// Applies an update: a resize of a ready cluster (workers join or leave at `now`; growing
/// needs `available` GPUs for the difference) and the echoed settings.
pub(crate) fn update(
    cluster: &mut Cluster,
    ids: &mut Ids,
    call: &Call<'_>,
    available: u32,
) -> Result<(), Reply> {
    let now = call.now;
    if cluster.deleting(now) {
        return Err(errors::grpc(
            FAILED_PRECONDITION,
            "cluster is being deleted",
            Vec::new(),
        ));
    }
    if let Some(num_gpus) = call.field_i64("num_gpus") {
        if num_gpus <= 0 || num_gpus % 8 != 0 {
            return Err(bad_field(
                UPDATE,
                "num_gpus",
                "must be a positive multiple of 8",
            ));
        }
        if num_gpus != cluster.num_gpus {
            if !cluster.ready(now) {
                return Err(errors::grpc(
                    FAILED_PRECONDITION,
                    format!(
                        "cluster is {}; a resize needs it Ready",
                        cluster.status(now)
                    ),
                    Vec::new(),
                ));
            }
            let more = num_gpus - cluster.num_gpus;
            capacity::fits(more, available, true, &cluster.gpu_type, &cluster.region)?;
            resize(cluster, ids, num_gpus, now);
        }
    }
    if let Some(updates) = call.body.and_then(Value::as_object)
        && let Some(request) = cluster.request.as_object_mut()
    {
        for (key, value) in updates.iter().filter(|(k, _)| k.as_str() != "add_ons") {
            request.insert(key.clone(), value.clone());
        }
    }
    if let Some(cluster_type) = call.field_str("cluster_type") {
        cluster.cluster_type = cluster_type.to_string();
    }
    for update in call
        .field("add_ons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = update
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let existing = cluster
            .add_ons
            .iter_mut()
            .find(|a| a.get("name").and_then(Value::as_str) == Some(name))
            .ok_or_else(|| errors::not_found("add-on", name))?;
        if let Some(config) = update.get("config") {
            existing["config"] = config.clone();
        }
    }
    Ok(())
}

/// Workers join (born now, running two minutes later) or leave (at once); the cluster is
/// `WaitingForDataPlaneNodes` until then, `Ready` at the new size after.
fn resize(cluster: &mut Cluster, ids: &mut Ids, num_gpus: i64, now: Duration) {
    let takes = if num_gpus > cluster.num_gpus {
        GROW_TAKES
    } else {
        SHRINK_TAKES
    };
    cluster.resizes.push((now, now + takes));
    let target = usize::try_from(num_gpus / 8).unwrap_or(0);
    while cluster.workers.len() < target {
        let node = Node::new(ids, "gpu", &cluster.region, now);
        cluster.node_events.push(event(
            &node.id,
            "TogetherScaledUp",
            "node added by a resize",
            now,
        ));
        cluster.workers.push(node);
    }
    while cluster.workers.len() > target {
        if let Some(node) = cluster.workers.pop() {
            cluster.node_events.push(event(
                &node.id,
                "TogetherScaledDown",
                "node removed by a resize",
                now,
            ));
            cluster.removed.push((node, now));
        }
    }
    cluster.num_gpus = num_gpus;
}

fn event(node_id: &str, reason: &str, message: &str, now: Duration) -> Value {
    json!({"node_id": node_id, "reason": reason, "message": message, "timestamp": super::cluster::at(now)})
}
