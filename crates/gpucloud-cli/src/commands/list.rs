//! `gpucloud clusters list`: the clusters of one provider, or of every provider, with what it
//! could not read said as such. Its flags are the shared cluster target
//! (`flags::ClusterTargetArgs`).

use gpucloud::{Cluster, ProviderKind};
use gpucloud_ledger::ClusterEntry;
use serde::Serialize;

use crate::context::{Context, LedgerUse};
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, TargetArgs};
use crate::output;
use crate::sanitize::cell;

/// `clusters list --json`.
#[derive(Serialize)]
struct Listing {
    /// Every cluster read from its provider, then the ledger's clusters at the providers that
    /// were not read (`known_from: "ledger"`, with their last known state).
    clusters: Vec<Listed>,
    /// Each provider whose clusters were not read from it, and why.
    unread: Vec<Unread>,
}

/// One cluster, and where what is shown of it comes from.
#[derive(Serialize)]
#[serde(untagged)]
enum Listed {
    /// As its provider answered just now.
    Provider {
        #[serde(flatten)]
        cluster: Cluster,
        /// `provider`.
        known_from: &'static str,
    },
    /// As the ledger last recorded it: the provider was not read.
    Ledger {
        provider: ProviderKind,
        id: String,
        name: String,
        /// The last state a client saw (`unknown` if none was seen).
        state: String,
        /// When it was seen so.
        last_seen_at: Option<chrono::DateTime<chrono::Utc>>,
        /// `ledger`.
        known_from: &'static str,
    },
}

/// A provider whose clusters were not read from it.
#[derive(Serialize)]
struct Unread {
    provider: ProviderKind,
    reason: String,
    /// Whether this makes the run fail: the provider may have clusters this list does not
    /// show from it (an error; clusters the ledger knows there; or no provider was read at
    /// all). A provider without credentials and nothing in the ledger does not, nor one that
    /// documents no list (the ledger's record of it is shown instead).
    counts: bool,
}

/// The clusters of `--provider`, or of every provider: one table (with each cluster's
/// provider) or one JSON document. A provider that could not be read is said (a line on
/// stderr, and in `unread`), and the ledger's clusters there are shown from the ledger; the
/// run exits non-zero when a provider that may have clusters was not read.
pub async fn run(ctx: &Context, args: &ClusterTargetArgs) -> Result<(), CliError> {
    let providers: Vec<ProviderKind> = match args.provider {
        Some(provider) => vec![provider],
        None => ProviderKind::ALL.to_vec(),
    };
    let ledger = ctx.ledger(LedgerUse::BestEffort)?;
    // A ledger that cannot be read is said: the providers not read then show nothing of it.
    let recorded: Vec<ClusterEntry> = match ledger.as_ref().map(|l| l.clusters()) {
        Some(Ok(entries)) => entries,
        Some(Err(error)) => {
            tell!(
                "warning: the ledger could not be read ({}): clusters at providers not read \
                 are not shown from it",
                cell(error.to_string())
            );
            Vec::new()
        }
        None => Vec::new(),
    }
    .into_iter()
    .filter(ClusterEntry::may_be_alive)
    .collect();
    let mut listing = Listing {
        clusters: Vec::new(),
        unread: Vec::new(),
    };
    let mut failed = None;
    let providers_asked = providers.len();
    for provider in providers {
        let target = TargetArgs {
            provider,
            connection: args.connection.clone(),
        };
        let in_ledger: Vec<&ClusterEntry> =
            recorded.iter().filter(|e| e.provider == provider).collect();
        // Why the provider was not read, and whether that was an error (which always
        // counts): a provider not configured, or without a list, counts only where the ledger
        // knows clusters that may be alive there.
        // Asked for by name, a provider without a list is asked anyway: its refusal
        // (`unsupported`) is the run's error, after what the ledger knows there.
        let (reason, errored) = if provider.profile().lists_clusters || args.provider.is_some() {
            match ctx.client(&target, LedgerUse::Unused) {
                Ok(client) => match client.list().await {
                    Ok(clusters) => {
                        listing.clusters.extend(clusters.into_iter().map(|cluster| {
                            Listed::Provider {
                                cluster,
                                known_from: "provider",
                            }
                        }));
                        continue;
                    }
                    Err(error) => {
                        let reason = crate::error::one_line(&error);
                        failed.get_or_insert(CliError::Cloud(error));
                        (reason, true)
                    }
                },
                Err(CliError::Cloud(error)) if args.provider.is_none() => {
                    (crate::error::one_line(&error), false)
                }
                Err(error) => return Err(error),
            }
        } else {
            (
                "it documents no list (`gpucloud ledger` shows what gpucloud made there)"
                    .to_string(),
                false,
            )
        };
        // Without a list, the ledger's record is all there is to read: shown, and not a
        // failure of this run.
        let counts = errored || (provider.profile().lists_clusters && !in_ledger.is_empty());
        // One provider asked for by name: its error line says it all.
        let said_by_the_error = args.provider.is_some() && errored && in_ledger.is_empty();
        if !said_by_the_error {
            tell!(
                "{provider}: not read: {}{}",
                cell(&reason),
                if in_ledger.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} cluster(s) the ledger knows there are shown with their last known state",
                        in_ledger.len()
                    )
                }
            );
        }
        listing
            .clusters
            .extend(in_ledger.iter().map(|e| from_ledger(e)));
        listing.unread.push(Unread {
            provider,
            reason,
            counts,
        });
    }
    // Not one provider read (no credentials anywhere): every one counts, never "No clusters."
    // and success.
    let read_any = listing.unread.len() < providers_asked;
    if !read_any {
        for unread in &mut listing.unread {
            unread.counts = unread.counts || unread.provider.profile().lists_clusters;
        }
    }
    let not_read: Vec<&Unread> = listing.unread.iter().filter(|u| u.counts).collect();
    if ctx.output().is_json() {
        output::json(&listing)?;
    } else {
        output::listed(
            &listing.clusters.iter().map(Listed::row).collect::<Vec<_>>(),
            not_read.is_empty() && failed.is_none(),
        );
    }
    if let Some(error) = failed {
        return Err(error);
    }
    if !not_read.is_empty() {
        return Err(CliError::Other(format!(
            "not read: {}; clusters may bill there that this list does not show from the \
             provider",
            not_read
                .iter()
                .map(|u| u.provider.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

impl Listed {
    /// The table's row: provider, id, name, state, phase, nodes, gpus, created or last seen,
    /// and where it is known from.
    fn row(&self) -> output::ListedRow {
        match self {
            Self::Provider { cluster, .. } => output::ListedRow::of_cluster(cluster),
            Self::Ledger {
                provider,
                id,
                name,
                state,
                last_seen_at,
                ..
            } => output::ListedRow::of_record(*provider, id, name, state, *last_seen_at),
        }
    }
}

/// A cluster as the ledger last recorded it.
fn from_ledger(entry: &ClusterEntry) -> Listed {
    Listed::Ledger {
        provider: entry.provider,
        id: entry
            .cluster_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        name: entry.name.clone(),
        state: entry
            .last_seen
            .as_ref()
            .map_or_else(|| "unknown".to_string(), |s| s.state.clone()),
        last_seen_at: entry.last_seen.as_ref().map(|s| s.at),
        known_from: "ledger",
    }
}
