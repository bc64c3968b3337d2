//! The neutral view of a Together cluster.

use chrono::{DateTime, Utc};
use gpucloud_together::types;

use super::PROVIDER;
use super::state::{latest_phase, state_of};
use crate::cluster::{Cluster, ClusterId, Node, ProviderCluster};
use crate::error::{DecodeError, Error};

/// The neutral view of a Together cluster.
pub(crate) fn view(info: types::GpuClusterInfo) -> Cluster {
    let node = |id: &str,
                host: &Option<String>,
                ip: &Option<String>,
                gpus: Option<i64>,
                status: &Option<String>| Node {
        id: id.to_string(),
        hostname: host.clone(),
        private_ip: None,
        public_ip: ip.clone(),
        ssh_command: None,
        gpus: gpus.and_then(|g| u32::try_from(g).ok()),
        status: status.clone(),
    };
    let control = info
        .control_plane_nodes
        .iter()
        .map(|n| node(&n.node_id, &n.host_name, &n.public_ipv4, None, &n.status));
    let workers = info.gpu_worker_nodes.iter().map(|n| {
        node(
            &n.node_id,
            &n.host_name,
            &n.public_ipv4,
            n.num_gpus,
            &n.status,
        )
    });
    Cluster {
        id: ClusterId::new(info.cluster_id.clone()),
        name: info.cluster_name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state: state_of(&info),
        phase: latest_phase(&info)
            .map(|p| p.as_str().to_string())
            .or_else(|| info.status.as_ref().map(|s| s.as_str().to_string())),
        nodes: control.chain(workers).collect(),
        gpu_count: info.num_gpus.and_then(|g| u32::try_from(g).ok()),
        created_at: info.created_at,
        ready_at: info.first_ready_at,
        price: None,
        raw: ProviderCluster::Together(Box::new(info)),
    }
}

/// A Together cluster (`GPUClusterInfo`) as the generated client decoded it (from a call the neutral API does not make),
/// in the neutral shape.
impl From<types::GpuClusterInfo> for Cluster {
    fn from(raw: types::GpuClusterInfo) -> Self {
        view(raw)
    }
}

/// The kubeconfig in Together's cluster object (`kube_config`): base64-encoded YAML, decoded
/// here (line breaks in the encoding are ignored). `Ok(None)` while it is absent or empty. A
/// value that is already a kubeconfig (YAML with `apiVersion`; a colon is not in base64's
/// alphabet, so the two cannot be confused) is taken as it is, in case Together ever sends it
/// plain. Anything else is a decode error whose excerpt withholds the value: it holds the
/// cluster's credentials.
pub(crate) fn kubeconfig(info: &types::GpuClusterInfo) -> Result<Option<String>, Error> {
    use base64::Engine as _;
    let Some(stated) = info.kube_config.as_deref() else {
        return Ok(None);
    };
    let stated = stated.trim();
    if stated.is_empty() {
        return Ok(None);
    }
    if stated.contains("apiVersion:") {
        return Ok(Some(stated.to_owned()));
    }
    let compact: String = stated.split_ascii_whitespace().collect();
    let refused = |message: String| {
        Error::Decode(DecodeError {
            provider: PROVIDER,
            operation: gpucloud_together::operation_ids::GET_CLUSTER,
            status: None,
            path: "kube_config".to_owned(),
            message,
            body_excerpt: "(withheld: a kubeconfig holds the cluster's credentials)".to_owned(),
        })
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|error| {
            // Where it failed, never which character: the value is a credential.
            let why = match error {
                base64::DecodeError::InvalidByte(at, _)
                | base64::DecodeError::InvalidLastSymbol(at, _) => {
                    format!("character {at} is not base64")
                }
                base64::DecodeError::InvalidLength(length) => {
                    format!("{length} characters is no base64 length")
                }
                base64::DecodeError::InvalidPadding => "its padding is not base64's".to_owned(),
            };
            refused(format!("neither a kubeconfig nor base64 ({why})"))
        })?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| refused("its base64 does not decode to UTF-8 text".to_owned()))
}

/// The phase changes Together's cluster object records (`phase_transitions`), as listed:
/// entries without a phase or a time are left out, and the order is the provider's.
pub(crate) fn phase_changes(info: &types::GpuClusterInfo) -> Vec<(DateTime<Utc>, String)> {
    info.phase_transitions
        .iter()
        .filter_map(|t| Some((t.transition_time?, t.phase.as_ref()?.as_str().to_string())))
        .collect()
}
