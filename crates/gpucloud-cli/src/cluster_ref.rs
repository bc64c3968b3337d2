//! A cluster named on the command line by its id or its name, with `--provider` optional:
//! which provider and which id it is, and the client that reaches it.
//!
//! The ledger is asked first (an id it recorded, then a name of a cluster that may be alive);
//! without `--provider`, then the list of each provider that has one and is configured. One
//! answer is taken; none with a `--provider` means the text is that provider's id, as it
//! issued it; several are an error that lists them, so nothing acts on the wrong cluster.

use gpucloud::{ClusterClient, ClusterId, ProviderKind};

use crate::context::{Context, LedgerUse};
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, TargetArgs};
use crate::sanitize::cell;

/// One cluster a name or an id may mean.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    provider: ProviderKind,
    id: ClusterId,
    name: String,
    /// Where it was found (the ledger, a provider's list).
    seen_in: &'static str,
}

/// The client and id of the cluster `given` names (an id or a name) on `target`'s provider,
/// or on the one provider that knows it.
pub async fn resolve(
    ctx: &Context,
    target: &ClusterTargetArgs,
    given: &str,
) -> Result<(ClusterClient, ClusterId), CliError> {
    let providers: Vec<ProviderKind> = match target.provider {
        Some(provider) => vec![provider],
        None => ProviderKind::ALL.to_vec(),
    };
    let mut candidates = in_ledger(ctx, &providers, given)?;
    let mut unread = Vec::new();
    // With --provider, text the ledger does not know is that provider's id, sent as it is
    // (no list first: a command on an id costs what it always did).
    if candidates.is_empty() && target.provider.is_none() {
        (candidates, unread) = in_lists(ctx, target, &providers, given).await;
    }
    let unread_said = unread
        .iter()
        .map(|(provider, why)| format!("{provider} ({})", cell(why)))
        .collect::<Vec<_>>()
        .join(", ");
    candidates.dedup_by(|a, b| a.provider == b.provider && a.id == b.id);
    let chosen = match (candidates.as_slice(), target.provider) {
        ([one], _) => one.clone(),
        // Known nowhere: with a provider, the text is that provider's id.
        ([], Some(provider)) => Candidate {
            provider,
            id: ClusterId::new(given),
            name: String::new(),
            seen_in: "the command line",
        },
        // A list that could not be read proves nothing absent: the look-up did not finish.
        ([], None) if !unread.is_empty() => {
            return Err(CliError::Other(format!(
                "no cluster with the id or name {} is in the ledger or in the lists read, but \
                 the list of {unread_said} could not be read, so it may be there; try again, \
                 or give --provider to use it as that provider's id",
                cell(given)
            )));
        }
        ([], None) => {
            return Err(CliError::NotFound(format!(
                "no cluster with the id or name {} is in the ledger or in the lists of the \
                 configured providers; give --provider to use it as that provider's id",
                cell(given)
            )));
        }
        (many, _) => {
            let listed: Vec<String> = many
                .iter()
                .map(|c| {
                    format!(
                        "{} {} ({}, in {})",
                        c.provider,
                        cell(&c.id),
                        cell(&c.name),
                        c.seen_in
                    )
                })
                .collect();
            return Err(CliError::Usage(format!(
                "{} names {} clusters: {}; give its id (and --provider) to say which",
                cell(given),
                many.len(),
                listed.join("; ")
            )));
        }
    };
    if !unread.is_empty() {
        tell!(
            "warning: the list of {unread_said} could not be read; if a cluster named {} is \
             there too, give --provider to say which",
            cell(given)
        );
    }
    let target = TargetArgs {
        provider: chosen.provider,
        connection: target.connection.clone(),
    };
    let client = ctx.cluster_client(&target, chosen.id.as_str())?;
    Ok((client, chosen.id))
}

/// The ledger's clusters on `providers` whose id is `given`, else those that may be alive
/// and are named `given`.
fn in_ledger(
    ctx: &Context,
    providers: &[ProviderKind],
    given: &str,
) -> Result<Vec<Candidate>, CliError> {
    let Some(ledger) = ctx.ledger(LedgerUse::BestEffort)? else {
        return Ok(Vec::new());
    };
    let entries: Vec<_> = ledger
        .clusters()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| providers.contains(&e.provider))
        .collect();
    let candidate = |e: &gpucloud_ledger::ClusterEntry| {
        Some(Candidate {
            provider: e.provider,
            id: e.cluster_id.clone()?,
            name: e.name.clone(),
            seen_in: "the ledger",
        })
    };
    let by_id: Vec<Candidate> = entries
        .iter()
        .filter(|e| e.cluster_id.as_ref().is_some_and(|c| c.as_str() == given))
        .filter_map(candidate)
        .collect();
    if !by_id.is_empty() {
        return Ok(by_id);
    }
    Ok(entries
        .iter()
        .filter(|e| e.name == given && e.may_be_alive())
        .filter_map(candidate)
        .collect())
}

/// The clusters named `given` in the lists of `providers` that document a list and are
/// configured (a provider without credentials is passed over), and each provider whose list
/// could not be read, with why.
async fn in_lists(
    ctx: &Context,
    target: &ClusterTargetArgs,
    providers: &[ProviderKind],
    given: &str,
) -> (Vec<Candidate>, Vec<(ProviderKind, String)>) {
    let mut found = Vec::new();
    let mut unread = Vec::new();
    for provider in providers {
        if !provider.profile().lists_clusters {
            continue;
        }
        let target = TargetArgs {
            provider: *provider,
            connection: target.connection.clone(),
        };
        let Ok(client) = ctx.connect(&target, None) else {
            continue;
        };
        let clusters = match client.list().await {
            Ok(clusters) => clusters,
            Err(error) => {
                unread.push((*provider, crate::error::one_line(&error)));
                continue;
            }
        };
        found.extend(
            clusters
                .into_iter()
                .filter(|c| c.name == given)
                .map(|c| Candidate {
                    provider: *provider,
                    id: c.id,
                    name: c.name,
                    seen_in: "its list",
                }),
        );
    }
    (found, unread)
}
