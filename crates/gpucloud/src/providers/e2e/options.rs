//! [`E2eOptions`]: what only E2E's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// E2E-only create options (names as in the create body).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct E2eOptions {
    /// Image version for the nodes (from the deployment images endpoint).
    pub image_version_id: i64,
    /// Node type.
    pub sku_id: i64,
    /// Plan price id; region-specific.
    pub sku_item_price_id: i64,
    /// Security group.
    pub security_group_id: i64,
    /// A script run on each node after start (`script_added` is derived from it).
    pub lifecycle_script: Option<String>,
    /// SFS volumes to mount.
    pub sfs_mounts: Vec<E2eSfsMount>,
}

/// An SFS volume mount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct E2eSfsMount {
    /// SFS id.
    pub id: i64,
    /// SFS name.
    pub name: String,
    /// Mount path on the nodes.
    pub mount_path: String,
}
