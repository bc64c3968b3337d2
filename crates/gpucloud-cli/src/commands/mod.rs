//! One module per command.

mod access;
mod catalog;
mod clusters;
mod completions;
#[cfg(feature = "sim")]
mod demo;
mod ledger;
mod placement;
mod plan;
mod schema;
#[cfg(feature = "sim")]
mod sim;
mod wait;

use crate::cli::{Cli, Command};
use crate::context::Context;
use crate::error::CliError;

/// Runs the command `cli` describes, with the one [`Context`] of this run.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let ctx = Context::new(&cli);
    match cli.command {
        Command::Clusters(command) => clusters::run(&ctx, command).await,
        Command::Ledger(args) => ledger::show(&ctx, &args),
        Command::Catalog(args) => catalog::run(&ctx, &args).await,
        Command::Plan(args) => plan::run(&ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim::run(&ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Demo(args) => demo::run(&ctx, &args).await,
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args),
    }
}
