//! `gpucloud`: provision and watch GPU clusters on Together AI, Runcrate and E2E Networks from a
//! terminal, dry-run requests, and (with the default `sim` feature) run the local simulator.
//!
//! Layout: `cli` is the command line's shape; `request` turns flags or a file into a
//! `ClusterSpec`; `connect` builds the facade's client; `commands/` holds one module per command;
//! `output` and `progress` print; `error` maps every failure to one line and an exit code.

// Like the facade: `gpucloud::Error` is carried inline (about 140 bytes). Errors are the cold
// path of a one-shot command; boxing would buy nothing measurable and cost clarity.
#![allow(clippy::result_large_err)]

/// `println!` that ends the program quietly when stdout is closed early (`gpucloud … | head`)
/// instead of panicking, as `println!` does on a broken pipe.
macro_rules! say {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        if let Err(error) = writeln!(::std::io::stdout(), $($arg)*) {
            $crate::output::stdout_failed(error);
        }
    }};
}

mod cli;
mod commands;
mod connect;
mod error;
mod output;
mod progress;
mod request;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::error::CliError;

fn main() -> ExitCode {
    // Usage errors exit here with clap's code 2; `--help` and `--version` exit 0.
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return CliError::Other(format!("cannot start the async runtime: {e}")).report(),
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(()) => ExitCode::from(error::code::OK),
        Err(error) => error.report(),
    }
}
