//! One module per command.

mod clusters;
pub mod completions;
#[cfg(feature = "sim")]
mod demo;
mod plan;
pub mod schema;
#[cfg(feature = "sim")]
mod sim;

use crate::cli::{Cli, Command};
use crate::error::CliError;

/// Runs the command `cli` describes.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Clusters(command) => clusters::run(command, cli.json).await,
        Command::Plan(args) => plan::run(&args, cli.json).await,
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim::run(&args, cli.json).await,
        #[cfg(feature = "sim")]
        Command::Demo(args) => demo::run(&args, cli.json).await,
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args),
    }
}
