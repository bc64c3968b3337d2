//! Runcrate's create request (body, `Idempotency-Key`, `environment`), mapped from a neutral
//! [`ClusterSpec`], and the documented rules it must satisfy before it is sent.

use gpucloud_runcrate::types::{self, Stack};

use super::PROVIDER;
use crate::error::{Error, ValidationError};
use crate::spec::{ClusterSize, ClusterSpec, SharedStorage, SoftwareStack};

pub(super) const CREATE_DOC: &str = "Runcrate docs, Create a cluster";

/// A create request with the header and query that go with it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuncrateCreate {
    /// The body.
    pub body: types::CreateClusterRequest,
    /// The `Idempotency-Key` for this logical create.
    pub idempotency_key: String,
    /// The `environment` query parameter.
    pub environment: Option<String>,
}

fn invalid(field: &str, rule: impl Into<String>) -> Error {
    Error::Validation(ValidationError {
        provider: PROVIDER,
        field: field.into(),
        rule: rule.into(),
        source: CREATE_DOC,
    })
}

/// Maps a neutral spec to Runcrate's create request, then validates it.
pub fn create_request(spec: &ClusterSpec) -> Result<RuncrateCreate, Error> {
    let options = spec.options.runcrate.clone().unwrap_or_default();
    if options.offer_id.trim().is_empty() {
        return Err(invalid(
            "offer_id",
            "is required (pick one from GET /clusters/offers)",
        ));
    }
    let ClusterSize::Nodes(node_count) = spec.size else {
        return Err(invalid(
            "node_count",
            "Runcrate sizes clusters in nodes: ask for a number of nodes (--nodes), not GPUs",
        ));
    };
    if spec.gpu_model.is_some() {
        return Err(invalid(
            "gpu_model",
            "is set by the offer (offer_id); leave it unset",
        ));
    }
    if spec.region.is_some() {
        return Err(invalid(
            "region",
            "is set by the offer (offer_id); leave it unset",
        ));
    }
    if spec.billing != crate::spec::Billing::OnDemand {
        return Err(invalid(
            "billing",
            "Runcrate bills per hour from up_at until termination",
        ));
    }
    if spec.ttl_by_provider {
        return Err(invalid(
            "ttl_by_provider",
            "Runcrate cannot end a cluster by itself, and its API cannot delete one: nothing \
             ends it at a ttl but a person in its console",
        ));
    }
    check_name(&spec.name)?;
    let stack = match spec.stack.unwrap_or(SoftwareStack::None) {
        SoftwareStack::None => Stack::None,
        SoftwareStack::Slurm => Stack::Slurm,
        SoftwareStack::Kubernetes => Stack::Kubernetes,
        SoftwareStack::Ray => Stack::Ray,
    };
    let ssh_key_ids = spec
        .ssh_keys
        .iter()
        .map(|k| {
            k.parse::<uuid::Uuid>()
                .map_err(|_| invalid("ssh_key_ids", format!("{k:?} is not a UUID")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let storage_id = match &spec.shared_storage {
        None => None,
        Some(SharedStorage::Existing { id }) => Some(
            id.parse::<uuid::Uuid>()
                .map_err(|_| invalid("storage_id", format!("{id:?} is not a UUID")))?,
        ),
        Some(SharedStorage::New { .. }) => {
            return Err(invalid(
                "storage_id",
                "Runcrate attaches an existing volume only (SharedStorage::Existing)",
            ));
        }
    };
    let body: types::CreateClusterRequest = types::CreateClusterRequest::builder()
        .name(spec.name.clone())
        .offer_id(options.offer_id.clone())
        .node_count(i64::from(node_count))
        .stack(stack)
        .ssh_key_ids(ssh_key_ids)
        .storage_id(storage_id)
        .include_community(options.include_community)
        .try_into()
        .map_err(|e: types::error::ConversionError| invalid("request", e.to_string()))?;
    let create = RuncrateCreate {
        body,
        idempotency_key: options
            .idempotency_key
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        environment: options.environment.clone(),
    };
    validate(&create)?;
    Ok(create)
}

/// `^[A-Za-z0-9][A-Za-z0-9-]{0,62}$`: 1–63 letters, digits and hyphens, not starting with a hyphen.
fn check_name(name: &str) -> Result<(), Error> {
    let valid = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-');
    if valid {
        Ok(())
    } else {
        Err(invalid(
            "name",
            format!(
                "must be 1–63 letters, digits or hyphens, starting with a letter or digit (got {name:?})"
            ),
        ))
    }
}

/// The documented rules of a create.
pub fn validate(create: &RuncrateCreate) -> Result<(), Error> {
    check_name(&create.body.name)?;
    let nodes = create.body.node_count;
    if !(2..=64).contains(&nodes) {
        return Err(invalid(
            "node_count",
            format!("must be between 2 and 64 (got {nodes})"),
        ));
    }
    if create.body.ssh_key_ids.len() > 20 {
        return Err(invalid(
            "ssh_key_ids",
            format!("at most 20 keys (got {})", create.body.ssh_key_ids.len()),
        ));
    }
    let key = &create.idempotency_key;
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            "Idempotency-Key",
            "must be 1–255 visible ASCII characters",
        ));
    }
    Ok(())
}
