//! E2E's part of the command line: its create options as flags.

use std::path::PathBuf;

use clap::Args;
use gpucloud::{E2eOptions, E2eSfsMount};

use super::first_given;
use crate::error::CliError;
use crate::input;

/// E2E-only options.
#[derive(Debug, Args)]
#[command(next_help_heading = "E2E options")]
pub struct E2eFlags {
    /// Image version of the nodes (default: the newest image of --stack, Slurm if none).
    #[arg(long, value_name = "ID")]
    pub image_version_id: Option<i64>,
    /// Node type (default: resolved from --gpu-model and size).
    #[arg(long, value_name = "ID")]
    pub sku_id: Option<i64>,
    /// Plan price id, region-specific (default: the node type's hourly plan, or its
    /// committed plan with --reserved-days).
    #[arg(long, value_name = "ID")]
    pub sku_item_price_id: Option<i64>,
    /// Security group of your account (required).
    #[arg(long, value_name = "ID")]
    pub security_group_id: Option<i64>,
    /// A file whose content runs on each node after start.
    #[arg(long, value_name = "PATH")]
    pub lifecycle_script: Option<PathBuf>,
    /// Mount an SFS volume, as ID:NAME:MOUNT_PATH; repeat for more.
    #[arg(long = "sfs-mount", value_name = "ID:NAME:PATH", value_parser = parse_sfs_mount)]
    pub sfs_mounts: Vec<E2eSfsMount>,
}

impl E2eFlags {
    /// The first E2E option given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--image-version-id", self.image_version_id.is_some()),
            ("--sku-id", self.sku_id.is_some()),
            ("--sku-item-price-id", self.sku_item_price_id.is_some()),
            ("--security-group-id", self.security_group_id.is_some()),
            ("--lifecycle-script", self.lifecycle_script.is_some()),
            ("--sfs-mount", !self.sfs_mounts.is_empty()),
        ])
    }

    /// The E2E options these flags give (the lifecycle script read from its file).
    pub fn options(&self) -> Result<E2eOptions, CliError> {
        let lifecycle_script = match &self.lifecycle_script {
            None => None,
            Some(path) => Some(input::read_text(path, "lifecycle script")?),
        };
        // An unset catalog id stays 0: resolved from the catalog. The security group is the
        // account's, not the catalog's: 0 is refused by the facade's rules.
        let mut options = E2eOptions::default()
            .with_image_version_id(self.image_version_id.unwrap_or_default())
            .with_sku(
                self.sku_id.unwrap_or_default(),
                self.sku_item_price_id.unwrap_or_default(),
            )
            .with_security_group_id(self.security_group_id.unwrap_or_default());
        options.lifecycle_script = lifecycle_script;
        options.sfs_mounts.clone_from(&self.sfs_mounts);
        Ok(options)
    }
}

fn parse_sfs_mount(raw: &str) -> Result<E2eSfsMount, String> {
    let mut parts = raw.splitn(3, ':');
    let (Some(id), Some(name), Some(mount_path)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err("expected ID:NAME:MOUNT_PATH".into());
    };
    let id = id
        .parse::<i64>()
        .map_err(|_| format!("SFS id {id:?} is not an integer"))?;
    Ok(E2eSfsMount::new(id, name, mount_path))
}

/// What a user sets for E2E's request field `field` (as its errors name it): the flag, or
/// the configuration file's key; `None` for a field no flag sets.
pub fn flag_for(field: &str) -> Option<&'static str> {
    Some(match field {
        "name" => "--name",
        "no_of_nodes" => "--nodes (or --gpus)",
        "sku_id" => "--sku-id, or --gpu-model to resolve it",
        "sku_item_price_id" => "--sku-item-price-id, or --gpu-model to resolve it",
        "image_version_id" => "--image-version-id, or --stack to resolve it",
        "security_group_id" => {
            "--security-group-id, or `security_group_id` in the configuration file's [e2e]"
        }
        "ssh_key_ids" => {
            "--ssh-key ID (E2E's numeric key ids), or `ssh_keys` in the configuration file's [e2e]"
        }
        "lifecycle_script" => "--lifecycle-script",
        "location" => "--region (Delhi, Chennai), or E2E_LOCATION",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sfs_mounts_are_checked_by_the_parser() {
        assert_eq!(
            parse_sfs_mount("7:data:/mnt/data").map(|m| (m.id, m.mount_path)),
            Ok((7, "/mnt/data".to_string()))
        );
        assert!(parse_sfs_mount("x:data:/mnt").is_err());
    }
}
