//! E2E Networks' [`Profile`].

use crate::cluster::ProviderKind;
use crate::providers::profile::{CreateSafetyKind, FailedStart, Kubeconfig, Profile, Resize};

/// E2E Networks TIR training clusters: list, get and delete are documented per project and
/// location; the `scale_cluster` action adds nodes (relative, so sent once); creates carry no
/// idempotency key; no kubeconfig is documented.
pub(crate) const PROFILE: Profile = Profile {
    kind: ProviderKind::E2e,
    display_name: "E2E Networks",
    credential_variables: &["E2E_API_KEY", "E2E_AUTH_TOKEN"],
    setting_variables: &["E2E_PROJECT_ID", "E2E_LOCATION"],
    base_url_variable: "E2E_BASE_URL",
    default_base_url: gpucloud_e2e::DEFAULT_BASE_URL,
    lists_clusters: true,
    deletes_clusters: true,
    resize: Resize::AddNodes,
    create_safety: CreateSafetyKind::ReconcileByName,
    unique_names: true,
    failed_start: FailedStart::KeepsBilling,
    kubeconfig: Kubeconfig::Unavailable,
    console: "E2E Networks' MyAccount console",
    catalog: &super::catalog::Rules,
};
