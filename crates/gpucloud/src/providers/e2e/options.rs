//! [`E2eOptions`]: what only E2E's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// E2E-only create options (names as in the create body).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct E2eSfsMount {
    /// SFS id.
    pub id: i64,
    /// SFS name.
    pub name: String,
    /// Mount path on the nodes.
    pub mount_path: String,
}

impl E2eOptions {
    /// The image version of the nodes (from the deployment images endpoint).
    #[must_use]
    pub fn with_image_version_id(mut self, id: i64) -> Self {
        self.image_version_id = id;
        self
    }

    /// The node type and its region-specific plan price: E2E takes them as a pair, both from
    /// one entry of its plans (or from `ClusterClient::resolve`).
    #[must_use]
    pub fn with_sku(mut self, sku_id: i64, sku_item_price_id: i64) -> Self {
        self.sku_id = sku_id;
        self.sku_item_price_id = sku_item_price_id;
        self
    }

    /// The security group of the nodes.
    #[must_use]
    pub fn with_security_group_id(mut self, id: i64) -> Self {
        self.security_group_id = id;
        self
    }

    /// A script run on each node after it starts.
    #[must_use]
    pub fn with_lifecycle_script(mut self, script: impl Into<String>) -> Self {
        self.lifecycle_script = Some(script.into());
        self
    }

    /// One more SFS volume to mount.
    #[must_use]
    pub fn with_sfs_mount(mut self, mount: E2eSfsMount) -> Self {
        self.sfs_mounts.push(mount);
        self
    }
}

impl E2eSfsMount {
    /// The SFS volume `id` (named `name`), mounted at `mount_path` on every node.
    pub fn new(id: i64, name: impl Into<String>, mount_path: impl Into<String>) -> Self {
        Self {
            id,
            name: name.into(),
            mount_path: mount_path.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builder_sets_its_fields_and_mounts_add_up() {
        let built = E2eOptions::default()
            .with_image_version_id(2)
            .with_sku(201, 811)
            .with_security_group_id(77)
            .with_lifecycle_script("#!/bin/sh")
            .with_sfs_mount(E2eSfsMount::new(5, "data", "/mnt/data"))
            .with_sfs_mount(E2eSfsMount::new(6, "ckpt", "/mnt/ckpt"));
        let expected = E2eOptions {
            image_version_id: 2,
            sku_id: 201,
            sku_item_price_id: 811,
            security_group_id: 77,
            lifecycle_script: Some("#!/bin/sh".into()),
            sfs_mounts: vec![
                E2eSfsMount {
                    id: 5,
                    name: "data".into(),
                    mount_path: "/mnt/data".into(),
                },
                E2eSfsMount {
                    id: 6,
                    name: "ckpt".into(),
                    mount_path: "/mnt/ckpt".into(),
                },
            ],
        };
        assert_eq!(built, expected);
    }
}
