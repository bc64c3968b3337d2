//! `gpucloud completions SHELL`: a completion script for bash, zsh, fish or PowerShell, generated
//! by clap_complete from the same command definition the parser uses, so it cannot drift.

use clap::Args;
use clap_complete::Shell;

use crate::error::CliError;

/// Which shell to complete for.
#[derive(Debug, Args)]
#[command(after_help = "\
Load it for this shell session, or install it:
  bash  source <(gpucloud completions bash)
        gpucloud completions bash > ~/.local/share/bash-completion/completions/gpucloud
  zsh   gpucloud completions zsh > \"${fpath[1]}/_gpucloud\"
  fish  gpucloud completions fish > ~/.config/fish/completions/gpucloud.fish
  powershell  gpucloud completions powershell | Out-String | Invoke-Expression")]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The completion script for `shell` of `command`, the parser's own definition. It is handed
/// in rather than built here: the command line names these arguments, so this module does not
/// import it back.
pub fn script(shell: Shell, mut command: clap::Command) -> Result<String, CliError> {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut command, "gpucloud", &mut buffer);
    String::from_utf8(buffer)
        .map_err(|e| CliError::Other(format!("completion script is not UTF-8: {e}")))
}

/// Prints the completion script of `command` on stdout.
pub fn run(args: &CompletionsArgs, command: clap::Command) -> Result<(), CliError> {
    crate::terminal::stdout_raw(script(args.shell, command)?.as_bytes());
    Ok(())
}
