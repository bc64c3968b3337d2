//! E2E's create body, mapped from a neutral [`ClusterSpec`], and the documented rules it must
//! satisfy before it is sent.

use gpucloud_e2e::types;

use super::PROVIDER;
use crate::error::{Error, ValidationError};
use crate::spec::{ClusterSize, ClusterSpec, E2eOptions};

pub(super) const CREATE_DOC: &str = "E2E docs, Create Training Cluster";

pub(super) fn invalid(field: &str, rule: impl Into<String>) -> Error {
    Error::Validation(ValidationError {
        provider: PROVIDER,
        field: field.into(),
        rule: rule.into(),
        source: CREATE_DOC,
    })
}

/// Maps a neutral spec to E2E's create body, then validates it.
pub fn create_request(spec: &ClusterSpec) -> Result<types::CreateClusterRequest, Error> {
    let Some(options) = &spec.options.e2e else {
        return Err(invalid(
            "options",
            "E2E needs E2eOptions (image_version_id, sku_id, sku_item_price_id, security_group_id)",
        ));
    };
    let E2eOptions {
        image_version_id,
        sku_id,
        sku_item_price_id,
        security_group_id,
        lifecycle_script,
        sfs_mounts,
    } = options;
    let ClusterSize::Nodes(nodes) = spec.size else {
        return Err(invalid(
            "no_of_nodes",
            "E2E sizes clusters in nodes: ask for a number of nodes (--nodes), not GPUs",
        ));
    };
    if spec.gpu_model.is_some() {
        return Err(invalid(
            "gpu_model",
            "is set by the SKU (sku_id); leave it unset",
        ));
    }
    if spec.stack.is_some() {
        return Err(invalid(
            "stack",
            "is set by the image (image_version_id); leave it unset",
        ));
    }
    if spec.billing != crate::spec::Billing::OnDemand {
        return Err(invalid("billing", "is set by the plan (sku_item_price_id)"));
    }
    if spec.ttl_by_provider {
        return Err(invalid(
            "ttl_by_provider",
            "E2E cannot end a cluster by itself: its ttl is kept by `gpucloud clusters sweep \
             --expired --delete`",
        ));
    }
    if spec.shared_storage.is_some() {
        return Err(invalid(
            "shared_storage",
            "mount SFS volumes through E2eOptions::sfs_mounts",
        ));
    }
    let ssh_key_ids = spec
        .ssh_keys
        .iter()
        .map(|k| {
            k.parse::<i64>()
                .map_err(|_| invalid("ssh_key_ids", format!("{k:?} is not an integer id")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sfs_mount_list = sfs_mounts
        .iter()
        .map(|m| types::SfsMount {
            id: Some(m.id),
            name: Some(m.name.clone()),
            mount_path: Some(m.mount_path.clone()),
        })
        .collect();
    let script = lifecycle_script.clone().filter(|s| !s.trim().is_empty());
    let body = types::CreateClusterRequest {
        name: spec.name.clone(),
        image_version_id: *image_version_id,
        ssh_key_ids,
        security_group_id: *security_group_id,
        script_added: Some(script.is_some()),
        lifecycle_script: script,
        sfs_mount_list,
        pfs_mount_list: Vec::new(),
        dataset_mount_list: Vec::new(),
        sku_id: *sku_id,
        no_of_nodes: i64::from(nodes),
        sku_item_price_id: *sku_item_price_id,
    };
    validate(&body)?;
    Ok(body)
}

/// The documented rules of a create body, every one checked: all the rules it breaks are one
/// error (one field: that field and its rule; several: the fields, and each rule in turn), so
/// a request is fixed in one go rather than one field per run.
pub fn validate(body: &types::CreateClusterRequest) -> Result<(), Error> {
    let mut broken: Vec<(&str, String)> = Vec::new();
    if body.name.trim().is_empty() {
        broken.push(("name", "is required".into()));
    }
    for (field, id) in [
        ("image_version_id", body.image_version_id),
        ("sku_id", body.sku_id),
        ("sku_item_price_id", body.sku_item_price_id),
        ("security_group_id", body.security_group_id),
    ] {
        // 0 is what an id never given reads as: missing, not a value of 0.
        match id.cmp(&0) {
            std::cmp::Ordering::Equal => {
                broken.push((field, "is missing: a positive id is required".into()));
            }
            std::cmp::Ordering::Less => {
                broken.push((field, format!("must be a positive id (got {id})")));
            }
            std::cmp::Ordering::Greater => {}
        }
    }
    if body.no_of_nodes < 1 {
        broken.push((
            "no_of_nodes",
            format!("must be at least 1 (got {})", body.no_of_nodes),
        ));
    }
    if body.ssh_key_ids.is_empty() {
        broken.push(("ssh_key_ids", "is required: at least one SSH key id".into()));
    }
    let has_script = body
        .lifecycle_script
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty());
    match (body.script_added, has_script) {
        (Some(true), false) => broken.push((
            "lifecycle_script",
            "is required when script_added is true".into(),
        )),
        (Some(false) | None, true) => broken.push((
            "script_added",
            "must be true when a lifecycle_script is given".into(),
        )),
        _ => {}
    }
    match broken.as_slice() {
        [] => Ok(()),
        [(field, rule)] => Err(invalid(field, rule.clone())),
        several => Err(invalid(
            &several
                .iter()
                .map(|(f, _)| *f)
                .collect::<Vec<_>>()
                .join(", "),
            several
                .iter()
                .map(|(f, r)| format!("{f} {r}"))
                .collect::<Vec<_>>()
                .join("; "),
        )),
    }
}
