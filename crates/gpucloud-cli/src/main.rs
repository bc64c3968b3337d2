//! `gpucloud`: provision and watch GPU clusters on Together AI, Runcrate and E2E Networks from a
//! terminal, dry-run requests, and (with the default `sim` feature) run the local simulator.
//!
//! Layout: `cli` is the command line's shape (the global flags, the list of commands, the
//! `clusters` subcommands and the help's closing text); `commands/` holds one module per
//! command, its clap arguments (`CreateArgs`, `SweepArgs`, …) beside its `run`: `create`,
//! `get`, `list`, `delete`, `wait`, `resize`, `kubeconfig`, `ssh` and `sweep` (the `clusters`
//! subcommands), `ledger`, `catalog`, `plan`, `schema`, `completions`, `sim` and `demo`; with
//! `commands/placement` (the create path of `create` and `plan`) and `commands/progress_waits`
//! (the waits they share). `flags` holds the flag groups several commands share (connection,
//! target, cluster id, waiting, placement target, the providers list), the request flags
//! (`flags/request`) and the value parsers that bound them (`flags/bounds`); it imports no
//! command, and `cli` only names the commands' arguments, so no command imports `cli` back.
//! `request` turns flags or a file into a `ClusterSpec`; `context` is what every command is
//! handed (the output mode, the `ledger`, and clients built by `connect`); `output` (clusters,
//! lists, JSON), `table` and `progress` render, and `terminal` is the one byte sink, escaping
//! server text (`sanitize`) and scrubbing credentials (`secrets`) on the way out; `shell` words
//! the command that stops a bill; `logging` sends `-v` logs through the same scrubber; `input`
//! reads files with a size cap; `error` maps every failure to one line and an exit code.

// Like the facade: `gpucloud::Error` is carried inline (about 140 bytes). Errors are the cold
// path of a one-shot command; boxing would buy nothing measurable and cost clarity.
#![allow(clippy::result_large_err)]
// Everything printed leaves through `terminal` (scrubbed, escaped, quiet on a closed pipe).
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `println!` through the byte sink: credentials scrubbed, and the program ends quietly when
/// stdout is closed early (`gpucloud … | head`) instead of panicking, as `println!` does on a
/// broken pipe.
macro_rules! say {
    () => {
        $crate::terminal::stdout_line("")
    };
    ($($arg:tt)*) => {
        $crate::terminal::stdout_line(&format!($($arg)*))
    };
}

/// `eprintln!` through the byte sink: credentials scrubbed.
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::terminal::stderr_line(&format!($($arg)*))
    };
}

mod cli;
mod cluster_ref;
mod commands;
mod confirm;
mod connect;
mod context;
mod error;
mod flags;
mod input;
mod interrupt;
mod ledger;
mod logging;
mod output;
mod progress;
mod providers;
mod request;
mod sanitize;
mod secrets;
mod shell;
mod table;
mod terminal;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::error::CliError;

fn main() -> ExitCode {
    // Usage errors exit here with clap's code 2 (with `--json`, a failure document too);
    // `--help` and `--version` exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    // With `--json`, a failure is a JSON document on stdout as well as a line on stderr;
    // the line first, so that a stdout that cannot be written changes nothing of it.
    let json = cli.json;
    let fail = move |error: CliError| {
        let code = error.report();
        if json {
            error.print_document();
        }
        code
    };
    // A panic's message goes through the output layer too (scrubbed, on one line); the exit
    // code stays Rust's 101, and RUST_BACKTRACE still adds the backtrace.
    std::panic::set_hook(Box::new(|info| {
        tell!("error: internal error (a bug in gpucloud): {info}");
        let backtrace = std::backtrace::Backtrace::capture();
        if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
            tell!("{backtrace}");
        }
    }));
    if let Err(error) = logging::init(cli.verbose) {
        return fail(error);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return fail(CliError::Other(format!(
                "cannot start the async runtime: {e}"
            )));
        }
    };
    let result = runtime.block_on(commands::run(cli));
    // A question still waiting for its line (the run was interrupted meanwhile) is not
    // waited for.
    runtime.shutdown_background();
    match result {
        Ok(()) => {
            terminal::flush_document();
            ExitCode::from(error::code::OK)
        }
        Err(error) => fail(error),
    }
}

/// A command line clap refused: its message on stderr as clap writes it, and, when `--json`
/// was asked for (before any `--`), the failure document on stdout as for any other failure;
/// exit 2. Help and version are not failures: printed, exit 0.
fn usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return ExitCode::from(error::code::OK);
    }
    let _ = error.print();
    let json = std::env::args_os()
        .skip(1)
        .take_while(|arg| arg != "--")
        .any(|arg| arg == "--json");
    if json {
        // Clap prints the help for a missing subcommand; its first line is no message.
        let message = if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            "a subcommand is missing (`--help` lists them)".to_string()
        } else {
            let rendered = error.render().to_string();
            rendered
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string()
        };
        CliError::Usage(message).print_document();
    }
    ExitCode::from(error::code::USAGE)
}
