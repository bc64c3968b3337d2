//! Settling creates whose outcome a journal does not know, by looking their clusters up at
//! the provider: a process that died between its request and the answer leaves a pending
//! intent, and the next run finds out whether it made a cluster. The journal only stores
//! ([`Journal::unsettled`], [`Journal::settle`]); the decision is made here, once for every
//! journal.

use std::time::Duration;

use crate::client::ClusterClient;
use crate::cluster::ClusterId;
use crate::error::Error;
use crate::journal::{IntentId, Journal, OffWorker, Settlement};

/// How [`settle_pending`] decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettleOptions {
    /// An intent younger than this whose cluster the list does not show stays pending: its
    /// create may still be running in another process, or the provider's list may not show a
    /// new cluster yet. A cluster the list does show is taken at any age. Default: 15 min.
    pub min_age_for_gone: Duration,
    /// The scope the client lists (`CreateIntent::scope`: a Together project id, E2E's
    /// `project_id/location`). `Some`: intents of another scope are left alone. `None`: every
    /// intent of the client's provider is looked up in the client's list (the facade does not
    /// say which scope a client lists).
    pub scope: Option<String>,
}

impl Default for SettleOptions {
    fn default() -> Self {
        Self {
            min_age_for_gone: Duration::from_secs(15 * 60),
            scope: None,
        }
    }
}

/// What became of one unsettled intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The list shows one cluster of that name: the intent is completed with it.
    Found {
        /// The intent.
        intent: IntentId,
        /// The cluster.
        cluster: ClusterId,
    },
    /// The list shows none, and the intent is older than `min_age_for_gone`: marked failed.
    Gone {
        /// The intent.
        intent: IntentId,
    },
    /// Left as it was, and why.
    StillPending {
        /// The intent.
        intent: IntentId,
        /// Why it could not be settled.
        reason: String,
        /// How long until a look-up can settle it (the intent reaches
        /// [`SettleOptions::min_age_for_gone`]); `None`: no look-up will (the provider has no
        /// list, or several clusters have its name), and a person must.
        retry_in: Option<Duration>,
    },
    /// Another process settled it first; nothing changed.
    AlreadySettled {
        /// The intent.
        intent: IntentId,
    },
}

/// Looks up every unsettled create of `client`'s provider (pending, or failed in a way that
/// may have created a cluster) and settles it in `journal`: one `list()` call, then each
/// intent matched by name.
///
/// A provider that documents no list keeps its intents pending with that reason; re-sending
/// the create with the stored idempotency key would settle them, but a look-up must never be
/// able to create a cluster, so it is not done here.
///
/// # Errors
/// [`Error::Journal`] when the journal cannot be read or written; the list call's error when
/// the look-up fails (nothing is settled then).
pub async fn settle_pending(
    journal: &dyn Journal,
    client: &ClusterClient,
    options: &SettleOptions,
) -> Result<Vec<Settled>, Error> {
    let journal = OffWorker(journal);
    let provider = client.provider();
    // Only creates sent where this client looks: another endpoint's or account's list does
    // not show their clusters, and would settle them "gone" (or as someone else's same-name
    // cluster).
    let origin = client.origin();
    let intents: Vec<_> = journal
        .unsettled(provider)
        .map_err(Error::Journal)?
        .into_iter()
        .filter(|e| options.scope.is_none() || e.scope == options.scope)
        .filter(|e| e.origin.as_ref().is_none_or(|o| o == origin))
        .collect();
    if intents.is_empty() {
        return Ok(Vec::new());
    }
    if !provider.profile().lists_clusters {
        return Ok(intents
            .iter()
            .map(|e| Settled::StillPending {
                intent: e.intent,
                retry_in: None,
                reason: format!(
                    "{} documents no list to look {:?} up by name; its idempotency key \
                     {:?} would find it only by re-sending the create, which a look-up never \
                     does: run the same create again (the key makes it answer with this \
                     cluster, never a second one), or look in {}",
                    provider.profile().display_name,
                    e.name,
                    e.idempotency_key.as_deref().unwrap_or("(none)"),
                    provider.profile().console
                ),
            })
            .collect());
    }
    let clusters = client.list().await?;
    let mut report = Vec::with_capacity(intents.len());
    for entry in intents {
        let named: Vec<_> = clusters.iter().filter(|c| c.name == entry.name).collect();
        let age = entry.age;
        let lookup = match named.as_slice() {
            [one] => Settlement::Found(one.id.clone()),
            [] if age >= options.min_age_for_gone => Settlement::Gone,
            [] => {
                report.push(Settled::StillPending {
                    intent: entry.intent,
                    retry_in: Some(options.min_age_for_gone.saturating_sub(age)),
                    reason: format!(
                        "not in the list yet, but recorded only {}s ago (less than {}s): its \
                         create may still be running",
                        age.as_secs(),
                        options.min_age_for_gone.as_secs()
                    ),
                });
                continue;
            }
            many => {
                report.push(Settled::StillPending {
                    intent: entry.intent,
                    retry_in: None,
                    reason: format!(
                        "{} clusters are named {:?}: {}",
                        many.len(),
                        entry.name,
                        many.iter()
                            .map(|c| c.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
                continue;
            }
        };
        let changed = journal
            .settle(entry.intent, &lookup)
            .map_err(Error::Journal)?;
        report.push(match (changed, lookup) {
            (false, _) => Settled::AlreadySettled {
                intent: entry.intent,
            },
            (true, Settlement::Found(cluster)) => Settled::Found {
                intent: entry.intent,
                cluster,
            },
            (true, Settlement::Gone) => Settled::Gone {
                intent: entry.intent,
            },
        });
    }
    Ok(report)
}
