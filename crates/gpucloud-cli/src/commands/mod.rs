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
use crate::interrupt;

/// Runs the command `cli` describes, with the one [`Context`] of this run, until it ends or
/// a SIGINT or SIGTERM interrupts it (see [`crate::interrupt`]). `gpucloud sim` handles its
/// own signals: they end the simulator cleanly.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let ctx = Context::new(&cli);
    #[cfg(feature = "sim")]
    if let Command::Sim(args) = &cli.command {
        return sim::run(&ctx, args).await;
    }
    let work = dispatch(&ctx, cli.command);
    tokio::select! {
        result = work => result,
        signal = interrupt::next() => {
            // A second signal while the first is answered ends the run at once.
            tokio::spawn(async {
                let again = interrupt::next().await;
                std::process::exit(i32::from(again.exit_code()));
            });
            interrupt::report(
                signal,
                &ctx.at_stake().snapshot(),
                ctx.output().is_json(),
                ctx.keeps_a_ledger(),
            );
            Err(CliError::Interrupted(signal))
        }
    }
}

async fn dispatch(ctx: &Context, command: Command) -> Result<(), CliError> {
    match command {
        Command::Clusters(command) => clusters::run(ctx, command).await,
        Command::Ledger(args) => ledger::show(ctx, &args).await,
        Command::Catalog(args) => catalog::run(ctx, &args).await,
        Command::Plan(args) => plan::run(ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim::run(ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Demo(args) => demo::run(ctx, &args).await,
        Command::Schema(args) => schema::run(&args),
        Command::Completions(_) if ctx.output().is_json() => Err(no_json(
            "completions prints a shell script; there is no JSON form of it",
        )),
        Command::Completions(args) => completions::run(&args),
    }
}

/// `--json` refused by a command whose result has no JSON form: every command prints JSON
/// on stdout with `--json`, or says it cannot (exit 2), never ignores it.
pub(crate) fn no_json(why: &str) -> CliError {
    CliError::Usage(format!("--json: {why}"))
}
