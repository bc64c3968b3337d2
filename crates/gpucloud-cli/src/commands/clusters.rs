//! `gpucloud clusters create|get|list|delete|wait`.

use gpucloud::{Cleanup, ClusterId, CreateAndWait, CreateAndWaitError, ProviderKind, Timeline};
use serde::Serialize;

use super::follow::{follower, wait_options, wait_with_progress};
use crate::cli::{ClustersCommand, CreateArgs, DeleteArgs, IdArgs, TargetArgs, WaitCommandArgs};
use crate::error::CliError;
use crate::ledger::{Ledgers, resolve_earlier};
use crate::output::elapsed;
use crate::progress::ProgressDisplay;
use crate::sanitize::cell;
use crate::{connect, output, request};

/// Runs one `clusters` subcommand.
pub async fn run(command: ClustersCommand, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    match command {
        ClustersCommand::Create(args) => create(&args, json, ledgers).await,
        ClustersCommand::Get(args) => get(&args, json, ledgers).await,
        ClustersCommand::List(args) => list(&args, json).await,
        ClustersCommand::Delete(args) => delete(&args, json, ledgers).await,
        ClustersCommand::Wait(args) => wait(&args, json, ledgers).await,
        ClustersCommand::Resize(args) => super::access::resize(&args, json, ledgers).await,
        ClustersCommand::Kubeconfig(args) => super::access::kubeconfig(&args, ledgers).await,
        ClustersCommand::Ssh(args) => super::access::ssh(&args, ledgers).await,
        ClustersCommand::Sweep(args) => super::ledger::sweep(&args, json, ledgers).await,
    }
}

async fn create(args: &CreateArgs, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    // The request is read (and flags checked) before credentials; the facade validates it
    // against the provider's rules before anything is sent.
    let spec = request::spec(&args.target.provider.0, &args.request)?;
    let ledger = ledgers.required("create")?;
    let (client, created) = match args.target.single() {
        Some(target) => {
            let client = connect::client(&target, ledger.clone().map(|l| l as _))?;
            if let Some(ledger) = &ledger {
                resolve_earlier(ledger, &client).await;
            }
            let created = client.create(&spec).await?;
            (client, created)
        }
        None => super::placement::create(&args.target, &spec, ledger).await?,
    };
    if !json {
        output::created_headline(&created);
    }
    if !args.wait {
        if json {
            return output::json(&created);
        }
        say!();
        output::cluster(&created.cluster);
        return Ok(());
    }
    let options = CreateAndWait {
        wait: wait_options(&args.wait_options),
        delete_on_failure: !args.keep_on_failure,
        delete_on_timeout: args.delete_on_timeout,
        delete_wait: CreateAndWait::default().delete_wait,
    };
    let display = ProgressDisplay::new("", 1.0);
    let result = client
        .wait_or_clean_up(created, &options, |p| display.update(p))
        .await;
    display.finish();
    match result {
        Ok(ready) => {
            output::timeline(&ready.timeline, true);
            if json {
                output::json(&ready.created)
            } else {
                say!();
                output::cluster(&ready.cluster);
                Ok(())
            }
        }
        Err(failed) => {
            if let Some(timeline) = &failed.timeline {
                output::timeline(timeline, false);
            }
            say_cleanup(client.provider(), &failed);
            Err(CliError::Cloud(failed.error))
        }
    }
}

/// What became of a cluster whose wait failed, on stderr, with its id.
fn say_cleanup(provider: ProviderKind, failed: &CreateAndWaitError) {
    let Some(id) = &failed.cluster else { return };
    let id = cell(id);
    match &failed.cleanup {
        Some(Cleanup::Deleted(deletion)) => tell!(
            "{provider} cluster {id} was deleted; the provider confirmed it gone after {}.",
            elapsed(deletion.took)
        ),
        Some(Cleanup::DeleteFailed(error)) => tell!(
            "{provider} cluster {id} MAY STILL BE BILLING: deleting it failed ({}). Delete it \
             with `gpucloud clusters delete -p {provider} {id} --wait`.",
            crate::error::one_line(error.as_ref())
        ),
        Some(Cleanup::NotNeeded) => tell!(
            "{provider} cluster {id} failed to start; {} releases every machine of a failed \
             start, so nothing bills (and there is nothing to delete).",
            provider.profile().display_name
        ),
        Some(Cleanup::Kept) | None => tell!(
            "{provider} cluster {id} was kept and may be billing. Delete it with `gpucloud \
             clusters delete -p {provider} {id} --wait`."
        ),
    }
}

async fn get(args: &IdArgs, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    let client = follower(&args.target, ledgers)?;
    let cluster = client.get(&ClusterId::new(&args.id)).await?;
    if json {
        output::json(&cluster)
    } else {
        output::cluster(&cluster);
        Ok(())
    }
}

async fn list(args: &TargetArgs, json: bool) -> Result<(), CliError> {
    let client = connect::client(args, None)?;
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
    provider: ProviderKind,
    id: &'a str,
    deleted: bool,
    /// With `--wait`: whether the provider had no such cluster to begin with.
    #[serde(skip_serializing_if = "Option::is_none")]
    already_gone: Option<bool>,
    /// With `--wait`: seconds from the DELETE until the provider no longer had it.
    #[serde(skip_serializing_if = "Option::is_none")]
    took_secs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeline: Option<&'a Timeline>,
}

async fn delete(args: &DeleteArgs, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    let client = follower(&args.target, ledgers)?;
    let provider = client.provider();
    let id = ClusterId::new(&args.id);
    if !args.wait {
        client.delete(&id).await?;
        return if json {
            output::json(&Deleted {
                provider,
                id: &args.id,
                deleted: true,
                already_gone: None,
                took_secs: None,
                timeline: None,
            })
        } else {
            say!("Deleted {provider} cluster {}.", args.id);
            Ok(())
        };
    }
    let display = ProgressDisplay::new("", 1.0);
    let deletion = client
        .delete_and_wait(&id, &wait_options(&args.wait_options), |p| {
            display.update(p)
        })
        .await;
    display.finish();
    let deletion = deletion?;
    if let Some(timeline) = &deletion.timeline {
        output::timeline(timeline, true);
    }
    if json {
        return output::json(&Deleted {
            provider,
            id: &args.id,
            deleted: true,
            already_gone: Some(deletion.already_gone),
            took_secs: Some(deletion.took.as_secs_f64()),
            timeline: deletion.timeline.as_ref(),
        });
    }
    if deletion.already_gone {
        say!("{provider} cluster {} was already gone.", args.id);
    } else {
        say!(
            "Deleted {provider} cluster {}: the provider confirmed it gone after {}.",
            args.id,
            elapsed(deletion.took)
        );
    }
    Ok(())
}

async fn wait(args: &WaitCommandArgs, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    let client = follower(&args.target, ledgers)?;
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
