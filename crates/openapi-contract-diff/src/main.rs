//! `openapi-contract-diff BASE REVISION`: what changed between two versions of an OpenAPI
//! document, and whom it breaks (exit 1 on a breaking change, 2 when the diff cannot be made).

use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "openapi-contract-diff",
    version,
    about = "Compare two versions of an OpenAPI spec: what changed and whom it breaks (exit 1 on a breaking change)."
)]
struct Cli {
    #[command(flatten)]
    args: openapi_contract_diff::cli::Args,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Git sides, `--all` and the default `--ack` file are relative to the current directory.
    openapi_contract_diff::cli::main(Path::new(""), &cli.args)
}
