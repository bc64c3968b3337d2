//! One module per command.

mod access;
mod catalog;
mod clusters;
mod completions;
#[cfg(feature = "sim")]
mod demo;
mod follow;
mod ledger;
mod placement;
mod plan;
mod schema;
#[cfg(feature = "sim")]
mod sim;

use crate::cli::{Cli, Command};
use crate::error::CliError;
use crate::ledger::Ledgers;

/// Runs the command `cli` describes.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let ledgers = Ledgers::new(cli.no_ledger);
    match cli.command {
        Command::Clusters(command) => clusters::run(command, cli.json, &ledgers).await,
        Command::Ledger(args) => ledger::show(&args, cli.json, &ledgers),
        Command::Catalog(args) => catalog::run(&args, cli.json).await,
        Command::Plan(args) => plan::run(&args, cli.json, &ledgers).await,
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim::run(&args, cli.json).await,
        #[cfg(feature = "sim")]
        Command::Demo(args) => demo::run(&args, cli.json).await,
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args),
    }
}
