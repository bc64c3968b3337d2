//! `gpucloud clusters kubeconfig`: a cluster's kubeconfig (Together), written at mode 0600 or
//! printed on request, never shown on a terminal by default: it holds credentials.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::context::Context;
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, bounds};
use crate::sanitize::cell;

#[derive(Debug, Args)]
pub struct KubeconfigArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// Write it to this file (created or replaced, readable by you only: mode 0600).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print it on stdout even when stdout is a terminal (it holds credentials).
    #[arg(long, conflicts_with = "output")]
    pub print: bool,
}

/// The most a kubeconfig may be (they are a few KiB).
const MAX_KUBECONFIG_BYTES: usize = 1 << 20;

pub async fn run(ctx: &Context, args: &KubeconfigArgs) -> Result<(), CliError> {
    if ctx.output().is_json() {
        return Err(super::no_json(
            "kubeconfig writes the kubeconfig itself (YAML, with the cluster's credentials): \
             use -o FILE",
        ));
    }
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    let provider = client.provider();
    let cluster = client.get(&id).await?;
    let Some(config) = cluster.kubeconfig()? else {
        return Err(CliError::Other(format!(
            "{provider} cluster {} has no kubeconfig yet (it is set once the cluster is ready)",
            cell(&id)
        )));
    };
    if config.len() > MAX_KUBECONFIG_BYTES {
        return Err(CliError::Other(format!(
            "{provider}'s kubeconfig for {} is {} bytes, over the 1 MiB gpucloud accepts",
            cell(&id),
            config.len()
        )));
    }
    match &args.output {
        Some(path) => {
            write_private(path, config.as_bytes())?;
            tell!(
                "Wrote the kubeconfig of {provider} cluster {} to {} (mode 0600).",
                cell(&id),
                cell(path.display())
            );
            Ok(())
        }
        None if crate::terminal::stdout_is_terminal() && !args.print => Err(CliError::Usage(
            "the kubeconfig holds the cluster's credentials: write it with -o FILE, or pass \
             --print to show it on this terminal"
                .into(),
        )),
        None if crate::terminal::stdout_is_terminal() => {
            // On a terminal the provider's text may not move the cursor or set a title.
            crate::terminal::stdout_text(&crate::sanitize::text_keeping_lines(&config));
            Ok(())
        }
        None => {
            // Piped or redirected: the kubeconfig as it is.
            crate::terminal::stdout_raw(config.as_bytes());
            Ok(())
        }
    }
}

/// Writes `bytes` to `path` through a temporary file of mode 0600 in the same directory,
/// renamed over `path`: no other user can read it, and no reader sees half of it.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let shown = cell(path.display());
    let io = |doing: &str, e: std::io::Error| CliError::Other(format!("{doing} {shown}: {e}"));
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // tempfile creates its files with mode 0600 on Unix.
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| io("cannot write", e))?;
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| io("cannot write", e))?;
    file.persist(path)
        .map_err(|e| io("cannot replace", e.error))?;
    Ok(())
}
