//! The flags of the two commands that print what other programs read rather than act on a
//! cluster: `schema` (a JSON Schema for editors) and `completions` (a script for shells). They
//! stand with the rest of the command line so that `commands/` runs them and the definition
//! never has to reach into a command for its own shape.

use clap::{Args, ValueEnum};
use clap_complete::Shell;

/// Which schema to print.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The file format: `request` is a request file for `clusters create -f` and `plan -f`.
    #[arg(value_enum)]
    pub what: SchemaKind,
}

/// The file formats that have a schema.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaKind {
    /// A request file (TOML, YAML or JSON): the facade's `ClusterSpec`.
    Request,
}

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
