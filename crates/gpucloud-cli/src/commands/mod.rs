//! One module per command.

mod clusters;
mod demo;
mod plan;
mod sim;

use crate::cli::{Cli, Command};
use crate::error::CliError;

/// Runs the command `cli` describes.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Clusters(command) => clusters::run(command, cli.json).await,
        Command::Plan(args) => plan::run(&args, cli.json),
        Command::Sim(args) => sim::run(&args, cli.json).await,
        Command::Demo(args) => demo::run(&args, cli.json).await,
    }
}
