//! Repository automation for gpucloud, run as `cargo xtask <command>` (the alias lives in
//! `.cargo/config.toml`).

mod codegen;
mod spec;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "gpucloud repository automation")]
struct Cli {
    /// Workspace root to operate on (default: the one this xtask was built in). Used by tests.
    #[arg(long, global = true, hide = true, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate the provider client crates from `specs/*.yaml` with progenitor.
    Codegen(codegen::Args),
    /// Compare two versions of a spec: what changed and whom it breaks (exit 1 on a breaking change).
    // The default `--ack` file is relative to the workspace root here, not the current directory.
    #[command(mut_arg("ack", |arg| arg.help(ACK_HELP)))]
    ContractDiff(openapi_contract_diff::cli::Args),
}

const ACK_HELP: &str =
    "Acknowledgements and level overrides (default: `specs/contract-ack.yaml` in the workspace)";

/// The workspace root: the xtask crate lives one level below it.
fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = cli.root.clone().unwrap_or_else(workspace_root);
    let result = match &cli.command {
        Command::Codegen(args) => codegen::run(&root, args),
        Command::ContractDiff(args) => return openapi_contract_diff::cli::main(&root, args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            // 2: a spec could not be read or parsed, as `contract-diff` exits.
            match e.downcast_ref::<codegen::BrokenSpec>() {
                Some(_) => ExitCode::from(2),
                None => ExitCode::FAILURE,
            }
        }
    }
}
