//! `gpucloud clusters create|get|list|delete|wait`.

use gpucloud::{Cluster, ClusterClient, ClusterId, Error, WaitOptions};
use serde::Serialize;

use crate::cli::{ClustersCommand, CreateArgs, IdArgs, TargetArgs, WaitArgs, WaitCommandArgs};
use crate::error::CliError;
use crate::progress::ProgressDisplay;
use crate::{connect, output, request};

/// Runs one `clusters` subcommand.
pub async fn run(command: ClustersCommand, json: bool) -> Result<(), CliError> {
    match command {
        ClustersCommand::Create(args) => create(&args, json).await,
        ClustersCommand::Get(args) => get(&args, json).await,
        ClustersCommand::List(args) => list(&args, json).await,
        ClustersCommand::Delete(args) => delete(&args, json).await,
        ClustersCommand::Wait(args) => wait(&args, json).await,
    }
}

async fn create(args: &CreateArgs, json: bool) -> Result<(), CliError> {
    // The request is read (and flags checked) before credentials; the facade validates it
    // against the provider's rules before anything is sent.
    let spec = request::spec(args.target.provider, &args.request)?;
    let client = connect::client(&args.target)?;
    let mut created = client.create(&spec).await?;
    if args.wait {
        if !json {
            output::created_headline(&created);
        }
        created.cluster = wait_with_progress(
            &client,
            &created.cluster.id,
            &args.wait_options,
            ProgressDisplay::new("", 1.0),
        )
        .await?;
        if !json {
            say!();
            output::cluster(&created.cluster);
        }
    } else if !json {
        output::created_headline(&created);
        say!();
        output::cluster(&created.cluster);
    }
    if json {
        output::json(&created)?;
    }
    Ok(())
}

async fn get(args: &IdArgs, json: bool) -> Result<(), CliError> {
    let client = connect::client(&args.target)?;
    let cluster = client.get(&ClusterId::new(&args.id)).await?;
    if json {
        output::json(&cluster)
    } else {
        output::cluster(&cluster);
        Ok(())
    }
}

async fn list(args: &TargetArgs, json: bool) -> Result<(), CliError> {
    let client = connect::client(args)?;
    let clusters = client.list().await?;
    if json {
        output::json(&clusters)
    } else {
        output::clusters(&clusters);
        Ok(())
    }
}

/// `--json` output of a delete.
#[derive(Serialize)]
struct Deleted<'a> {
    provider: gpucloud::ProviderKind,
    id: &'a str,
    deleted: bool,
}

async fn delete(args: &IdArgs, json: bool) -> Result<(), CliError> {
    let client = connect::client(&args.target)?;
    client.delete(&ClusterId::new(&args.id)).await?;
    let provider = client.provider();
    if json {
        output::json(&Deleted {
            provider,
            id: &args.id,
            deleted: true,
        })
    } else {
        say!("Deleted {provider} cluster {}.", args.id);
        Ok(())
    }
}

async fn wait(args: &WaitCommandArgs, json: bool) -> Result<(), CliError> {
    let client = connect::client(&args.target)?;
    let cluster = wait_with_progress(
        &client,
        &ClusterId::new(&args.id),
        &args.wait,
        ProgressDisplay::new("", 1.0),
    )
    .await?;
    if json {
        output::json(&cluster)
    } else {
        output::cluster(&cluster);
        Ok(())
    }
}

/// The facade's wait options from the flags.
pub fn wait_options(args: &WaitArgs) -> WaitOptions {
    WaitOptions {
        max_wait: args.timeout,
        initial_interval: args.interval,
        max_interval: args.max_interval.max(args.interval),
    }
}

/// Waits until `id` is ready, showing progress on stderr.
pub async fn wait_with_progress(
    client: &ClusterClient,
    id: &ClusterId,
    args: &WaitArgs,
    display: ProgressDisplay,
) -> Result<Cluster, Error> {
    let result = client
        .wait_until_ready(id, &wait_options(args), |p| display.update(p))
        .await;
    display.finish();
    result
}
