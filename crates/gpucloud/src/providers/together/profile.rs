//! Together AI's [`Profile`].

use crate::cluster::ProviderKind;
use crate::providers::profile::{CreateSafetyKind, FailedStart, Kubeconfig, Profile, Resize};

/// The variable that holds the API key.
pub(crate) const API_KEY: &str = "TOGETHER_API_KEY";

/// Together AI Instant Clusters: `GET`/`DELETE /compute/clusters[/{id}]` and
/// `PUT /compute/clusters/{id}` with an absolute `num_gpus` are documented; creates carry no
/// idempotency key; `kube_config` is part of the cluster object.
pub(crate) const PROFILE: Profile = Profile {
    kind: ProviderKind::Together,
    display_name: "Together AI",
    credential_variables: &[API_KEY],
    setting_variables: &[],
    base_url_variable: "TOGETHER_BASE_URL",
    default_base_url: gpucloud_together::DEFAULT_BASE_URL,
    lists_clusters: true,
    deletes_clusters: true,
    // Billing docs: "Clusters are automatically decommissioned when their reservation period
    // ends" (RESERVED, `duration_days`).
    ends_clusters_itself: Some(super::request::reservation),
    apply_defaults: |_, _| Vec::new(),
    takes_ssh_keys: false,
    resize: Resize::Absolute,
    create_safety: CreateSafetyKind::ReconcileByName,
    unique_names: true,
    // Nothing documents a release of a failed cluster's machines: it is deleted to stop them.
    failed_start: FailedStart::KeepsBilling,
    kubeconfig: Kubeconfig::InClusterObject,
    console: "the Together AI web console",
    catalog: &super::catalog::Rules,
};
