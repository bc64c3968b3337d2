//! Together's shared volumes: created (alone or inline with a cluster), `provisioning` for half
//! a simulated minute, then `available`, or `bound` while attached to a live cluster. They can
//! grow but not shrink, and cannot be deleted while attached (the reference says so).

use std::time::Duration;

use serde_json::{Value, json};

use super::State;
use super::errors::{self, FAILED_PRECONDITION, bad_field};
use crate::ids::Ids;
use crate::providers::Call;
use crate::reply::Reply;

const PROVISIONING_TAKES: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub(crate) struct Volume {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) size_tib: i64,
    pub(crate) region: String,
    pub(crate) project_id: String,
    pub(crate) created: Duration,
    pub(crate) deleted: Option<Duration>,
    pub(crate) cluster_id: Option<String>,
}

impl Volume {
    /// A volume from a `GPUClustersSharedVolumeCreateRequest`.
    pub(crate) fn new(
        ids: &mut Ids,
        request: &Value,
        default_project: &str,
        now: Duration,
    ) -> Self {
        let text = |field: &str| {
            request
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Self {
            id: ids.uuid(),
            name: text("volume_name"),
            size_tib: request.get("size_tib").and_then(Value::as_i64).unwrap_or(1),
            region: text("region"),
            project_id: request
                .get("project_id")
                .and_then(Value::as_str)
                .unwrap_or(default_project)
                .to_string(),
            created: now,
            deleted: None,
            cluster_id: None,
        }
    }

    pub(crate) fn gone(&self, now: Duration) -> bool {
        self.deleted.is_some_and(|d| d <= now)
    }
}

impl State {
    /// Index of the volume `id` if it exists and is not deleted yet.
    fn live_volume(&self, id: &str, now: Duration) -> Option<usize> {
        self.volumes.iter().position(|v| v.id == id && !v.gone(now))
    }

    fn volume_status(&self, volume: &Volume, now: Duration) -> &'static str {
        if now < volume.created + PROVISIONING_TAKES {
            "provisioning"
        } else if volume
            .cluster_id
            .as_deref()
            .is_some_and(|c| self.live(c, now).is_some())
        {
            "bound"
        } else {
            "available"
        }
    }

    /// The volume as `GPUClustersSharedVolume`.
    pub(crate) fn render_volume(&self, volume: &Volume, now: Duration) -> Value {
        json!({
            "volume_id": volume.id,
            "volume_name": volume.name,
            "size_tib": volume.size_tib,
            "status": self.volume_status(volume, now),
        })
    }

    /// The volumes of a cluster as `GPUClusterVolume` items.
    pub(crate) fn cluster_volumes(&self, ids: &[String], now: Duration) -> Vec<Value> {
        self.volumes
            .iter()
            .filter(|v| ids.contains(&v.id) && !v.gone(now))
            .map(|v| self.render_volume(v, now))
            .collect()
    }
}

/// The volume operations.
pub(crate) fn handle(state: &mut State, ids: &mut Ids, call: &Call<'_>) -> Reply {
    let now = call.now;
    match call.operation {
        "list_volumes" => {
            let project = call.param("projectId");
            let volumes: Vec<Value> = state
                .volumes
                .iter()
                .filter(|v| !v.gone(now) && project.is_none_or(|p| p == v.project_id))
                .map(|v| state.render_volume(v, now))
                .collect();
            Reply::json(200, json!({ "volumes": volumes }))
        }
        "create_volume" => {
            let body = call.body.cloned().unwrap_or(Value::Null);
            let region = body
                .get("region")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if super::catalog::region(region).is_none() {
                return bad_field(
                    "create_volume",
                    "region",
                    format!("unknown region {region:?}"),
                );
            }
            if body.get("size_tib").and_then(Value::as_i64).unwrap_or(0) <= 0 {
                return bad_field("create_volume", "size_tib", "must be at least 1");
            }
            let volume = Volume::new(ids, &body, "proj-sim-default", now);
            let rendered = state.render_volume(&volume, now);
            state.volumes.push(volume);
            Reply::json(200, rendered)
        }
        "update_volume" => {
            let id = call.field_str("volume_id").unwrap_or_default();
            let Some(index) = state.live_volume(id, now) else {
                return errors::not_found("volume", id);
            };
            if let Some(size) = call.field_i64("size_tib") {
                if size < state.volumes[index].size_tib {
                    return bad_field(
                        "update_volume",
                        "size_tib",
                        "volumes can grow but not shrink",
                    );
                }
                state.volumes[index].size_tib = size;
            }
            Reply::json(200, state.render_volume(&state.volumes[index], now))
        }
        "get_volume" => {
            let id = call.param("volume_id").unwrap_or_default();
            match state.live_volume(id, now) {
                Some(index) => Reply::json(200, state.render_volume(&state.volumes[index], now)),
                None => errors::not_found("volume", id),
            }
        }
        _ => {
            let id = call.param("volume_id").unwrap_or_default();
            let Some(index) = state.live_volume(id, now) else {
                return errors::not_found("volume", id);
            };
            if state.volume_status(&state.volumes[index], now) == "bound" {
                return errors::grpc(
                    FAILED_PRECONDITION,
                    format!("volume {id:?} is attached to a cluster"),
                    Vec::new(),
                );
            }
            state.volumes[index].deleted = Some(now);
            Reply::json(200, json!({ "success": true }))
        }
    }
}
