//! E2E Networks' [`Profile`].

use crate::cluster::ProviderKind;
use crate::providers::profile::{CreateSafetyKind, FailedStart, Kubeconfig, Profile, Resize};

/// The variable that holds the API key (sent as the `apikey` query parameter).
pub(crate) const API_KEY: &str = "E2E_API_KEY";
/// The variable that holds the bearer token.
pub(crate) const AUTH_TOKEN: &str = "E2E_AUTH_TOKEN";
/// The variable of the project id (an integer).
pub(crate) const PROJECT_ID: &str = "E2E_PROJECT_ID";
/// The variable of the location (`Delhi`, `Chennai`).
pub(crate) const LOCATION: &str = "E2E_LOCATION";

/// E2E Networks TIR training clusters: list, get and delete are documented per project and
/// location; the `scale_cluster` action adds nodes (relative, so sent once); creates carry no
/// idempotency key; no kubeconfig is documented.
pub(crate) const PROFILE: Profile = Profile {
    kind: ProviderKind::E2e,
    display_name: "E2E Networks",
    credential_variables: &[API_KEY, AUTH_TOKEN],
    setting_variables: &[PROJECT_ID, LOCATION],
    base_url_variable: "E2E_BASE_URL",
    default_base_url: gpucloud_e2e::DEFAULT_BASE_URL,
    lists_clusters: true,
    deletes_clusters: true,
    ends_clusters_itself: None,
    apply_defaults: super::defaults::apply_defaults,
    takes_ssh_keys: true,
    resize: Resize::AddNodes,
    create_safety: CreateSafetyKind::ReconcileByName,
    unique_names: true,
    failed_start: FailedStart::KeepsBilling,
    kubeconfig: Kubeconfig::Unavailable,
    console: "E2E Networks' MyAccount console",
    catalog: &super::catalog::Rules,
};
