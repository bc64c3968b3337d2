//! Runcrate's [`Profile`].

use crate::cluster::ProviderKind;
use crate::providers::profile::{CreateSafetyKind, FailedStart, Kubeconfig, Profile, Resize};

/// The variable that holds the API key.
pub(crate) const API_KEY: &str = "RUNCRATE_API_KEY";

/// Runcrate clusters: only `POST /clusters` (with an `Idempotency-Key`), `GET /clusters/{id}`
/// and `GET /clusters/offers` are documented — no list, no delete, no resize. Names are not
/// documented as unique. Its create page: "All or nothing: every machine starts or none does,
/// and a cluster that could not start costs nothing."
pub(crate) const PROFILE: Profile = Profile {
    kind: ProviderKind::Runcrate,
    display_name: "Runcrate",
    credential_variables: &[API_KEY],
    setting_variables: &[],
    base_url_variable: "RUNCRATE_BASE_URL",
    default_base_url: gpucloud_runcrate::DEFAULT_BASE_URL,
    lists_clusters: false,
    deletes_clusters: false,
    ends_clusters_itself: None,
    apply_defaults: |_, _| Vec::new(),
    takes_ssh_keys: true,
    resize: Resize::Unsupported,
    create_safety: CreateSafetyKind::IdempotencyKey,
    unique_names: false,
    failed_start: FailedStart::Released,
    kubeconfig: Kubeconfig::Unavailable,
    console: "the Runcrate dashboard (www.runcrate.ai)",
    catalog: &super::catalog::Rules,
};
