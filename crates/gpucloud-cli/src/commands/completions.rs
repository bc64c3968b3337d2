//! `gpucloud completions SHELL`: a completion script for bash, zsh, fish or PowerShell, generated
//! by clap_complete from the same command definition the parser uses, so it cannot drift.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::CliError;

/// The completion script for `shell`.
pub fn script(shell: Shell) -> Result<String, CliError> {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "gpucloud", &mut buffer);
    String::from_utf8(buffer)
        .map_err(|e| CliError::Other(format!("completion script is not UTF-8: {e}")))
}

/// Prints the completion script on stdout.
pub fn run(args: &CompletionsArgs) -> Result<(), CliError> {
    crate::terminal::stdout_raw(script(args.shell)?.as_bytes());
    Ok(())
}
