//! Runcrate's part of the command line: its create options as flags.

use clap::Args;
use gpucloud::RuncrateOptions;

use super::first_given;

/// Runcrate-only options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Runcrate options")]
pub struct RuncrateFlags {
    /// The offer, from `gpucloud catalog` (default: resolved from --gpu-model, size and
    /// --stack).
    #[arg(long, value_name = "ID")]
    pub offer_id: Option<String>,
    /// Allow an offer on community hosts.
    #[arg(long)]
    pub include_community: bool,
    /// Idempotency key of this create; reuse it to make a re-run find the same cluster.
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
    /// The Runcrate environment to create in.
    #[arg(long, value_name = "NAME")]
    pub environment: Option<String>,
}

impl RuncrateFlags {
    /// The first Runcrate option given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--offer-id", self.offer_id.is_some()),
            ("--include-community", self.include_community),
            ("--idempotency-key", self.idempotency_key.is_some()),
            ("--environment", self.environment.is_some()),
        ])
    }

    /// The Runcrate options these flags give.
    pub fn options(&self) -> RuncrateOptions {
        // Unset: resolved from the catalog (GPU model, size, stack).
        let mut options = RuncrateOptions::for_offer(self.offer_id.clone().unwrap_or_default());
        options.include_community = self.include_community.then_some(true);
        options.idempotency_key.clone_from(&self.idempotency_key);
        options.environment.clone_from(&self.environment);
        options
    }
}

/// What a user sets for Runcrate's request field `field` (as its errors name it): the flag, or
/// the configuration file's key; `None` for a field no flag sets.
pub fn flag_for(field: &str) -> Option<&'static str> {
    Some(match field {
        "name" => "--name",
        "offer_id" => "--offer-id, or --gpu-model to resolve it",
        "node_count" => "--nodes (or --gpus)",
        "ssh_key_ids" => {
            "--ssh-key UUID (Runcrate's key ids), or `ssh_keys` in the configuration file's [runcrate]"
        }
        "idempotency_key" => "--idempotency-key",
        _ => return None,
    })
}
