//! One module per command, each holding its clap arguments (`…Args`) beside its `run`; and
//! what several commands share: `placement` (the create path of `clusters create` and `plan`)
//! and `progress_waits` (every wait, with its progress display and timeline).

pub mod catalog;
pub mod completions;
pub mod config;
pub mod create;
pub mod delete;
#[cfg(feature = "sim")]
pub mod demo;
pub mod get;
pub mod kubeconfig;
pub mod ledger;
pub mod list;
pub mod offers;
mod placement;
pub mod plan;
mod progress_waits;
pub mod resize;
pub mod schema;
#[cfg(feature = "sim")]
pub mod sim;
pub mod ssh;
pub mod sweep;
pub mod wait;

use clap::CommandFactory;

use crate::cli::{Cli, ClustersCommand, Command};
use crate::context::Context;
use crate::error::CliError;
use crate::interrupt;

/// Runs the command `cli` describes, with the one [`Context`] of this run, until it ends or
/// a SIGINT, SIGTERM or SIGHUP interrupts it (see [`crate::interrupt`]). `gpucloud sim` handles its
/// own signals: they end the simulator cleanly.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let ctx = Context::new(cli.json, cli.no_ledger).with_config_path(cli.config.clone());
    #[cfg(feature = "sim")]
    if let Command::Sim(args) = &cli.command {
        return sim::run(&ctx, args).await;
    }
    // A reaper (`clusters sweep --watch`) ends on a signal after its sweep in progress.
    if let Command::Clusters(ClustersCommand::Sweep(args)) = &cli.command
        && let Some(every) = args.watch
    {
        return sweep::watch(&ctx, args, every).await;
    }
    // A provider's validation error says what the user sets for each field it names.
    let work = async {
        dispatch(&ctx, cli.command).await.map_err(|mut error| {
            match &mut error {
                CliError::Cloud(cloud) => crate::request::in_users_words(cloud),
                CliError::Placement(failed) => crate::request::in_users_words(&mut failed.error),
                _ => {}
            }
            error
        })
    };
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
        Command::Clusters(command) => clusters(ctx, command).await,
        Command::Ledger(args) => ledger::run(ctx, &args).await,
        Command::Catalog(args) => catalog::run(ctx, &args).await,
        Command::Offers(args) => offers::run(ctx, &args).await,
        Command::Plan(args) => plan::run(ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim::run(ctx, &args).await,
        #[cfg(feature = "sim")]
        Command::Demo(args) => demo::run(ctx, &args).await,
        Command::Schema(args) => schema::run(&args),
        Command::Config(args) => config::run(ctx, &args),
        Command::Completions(_) if ctx.output().is_json() => Err(no_json(
            "completions prints a shell script; there is no JSON form of it",
        )),
        Command::Completions(args) => completions::run(&args, Cli::command()),
    }
}

/// Runs one `clusters` subcommand.
async fn clusters(ctx: &Context, command: ClustersCommand) -> Result<(), CliError> {
    match command {
        ClustersCommand::Create(args) => create::run(ctx, &args).await,
        ClustersCommand::Get(args) => get::run(ctx, &args).await,
        ClustersCommand::List(args) => list::run(ctx, &args).await,
        ClustersCommand::Delete(args) => delete::run(ctx, &args).await,
        ClustersCommand::Wait(args) => wait::run(ctx, &args).await,
        ClustersCommand::Resize(args) => resize::run(ctx, &args).await,
        ClustersCommand::Kubeconfig(args) => kubeconfig::run(ctx, &args).await,
        ClustersCommand::Ssh(args) => ssh::run(ctx, &args).await,
        ClustersCommand::Sweep(args) => sweep::run(ctx, &args).await,
    }
}

/// `--json` refused by a command whose result has no JSON form: every command prints JSON
/// on stdout with `--json`, or says it cannot (exit 2), never ignores it.
pub(crate) fn no_json(why: &str) -> CliError {
    CliError::Usage(format!("--json: {why}"))
}
