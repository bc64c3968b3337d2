//! Creates whose outcome the ledger does not know, settled before a sweep or a refresh
//! reports: a process that died between its request and the answer may have made a cluster
//! that bills, and "nothing to do" must not be said while one may.

use chrono::{DateTime, Utc};
use gpucloud::journal::IntentId;
use gpucloud::settle::{SettleOptions, Settled, settle_pending};
use gpucloud::{ClusterClient, ProviderKind};
use serde::Serialize;

use crate::{ClusterEntry, Ledger, LedgerError};

/// A create whose outcome is still unknown after a sweep or refresh tried to settle it: a
/// cluster may exist that no sweep sees yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unknown {
    /// Its provider.
    pub provider: ProviderKind,
    /// The intent (`gpucloud ledger --all` lists it).
    pub intent: IntentId,
    /// The cluster name it was created under.
    pub name: String,
    /// When it was recorded, before its request.
    pub created_at: DateTime<Utc>,
    /// The deadline it was created with (its `ttl`).
    pub deadline: Option<DateTime<Utc>>,
    /// Why it is not settled.
    pub reason: String,
    /// From when a sweep can settle it; `None`: no sweep will by itself (`reason` says what
    /// will).
    pub settles_after: Option<DateTime<Utc>>,
}

/// What settling one provider's unknown creates came to.
#[derive(Debug, Default)]
pub(crate) struct SettledHere {
    pub(crate) settled: Vec<Settled>,
    pub(crate) failure: Option<String>,
}

impl Ledger {
    /// Settles `client`'s provider's unknown creates whose owner is gone (exited, or its lease
    /// ran out), by looking their names up in the provider's list.
    pub(crate) async fn settle_unknown(&self, client: &ClusterClient) -> SettledHere {
        // Only the intents of the scope this client lists: E2E's list is one location's.
        let options = SettleOptions {
            scope: client.list_scope(),
            ..SettleOptions::default()
        };
        match settle_pending(self, client, &options).await {
            Ok(settled) => SettledHere {
                settled,
                failure: None,
            },
            Err(error) => SettledHere {
                settled: Vec::new(),
                failure: Some(crate::error::chain(&error)),
            },
        }
    }

    /// `provider`'s creates still unknown once settling was tried, each with why and from
    /// when a sweep can settle it. `here` is what settling came to (`None`: no client, for
    /// `no_client`'s reason).
    pub(crate) fn still_unknown(
        &self,
        provider: ProviderKind,
        here: Result<&SettledHere, &str>,
    ) -> Result<Vec<Unknown>, LedgerError> {
        let now = self.now();
        let entries = self.unsettled_creates(Some(provider))?;
        Ok(entries
            .into_iter()
            .map(|entry| {
                let (reason, settles_after) = self.why_unknown(&entry, here, now);
                Unknown {
                    provider,
                    intent: entry.intent,
                    name: entry.name,
                    created_at: entry.created_at,
                    deadline: entry.deadline,
                    reason,
                    settles_after,
                }
            })
            .collect())
    }

    fn why_unknown(
        &self,
        entry: &ClusterEntry,
        here: Result<&SettledHere, &str>,
        now: DateTime<Utc>,
    ) -> (String, Option<DateTime<Utc>>) {
        if self.in_flight(entry, now) {
            let until = entry.claim.lease_until;
            return (
                format!(
                    "in flight in {}, which records its outcome itself; if it stops first, a \
                     sweep settles it once its lease runs out",
                    entry.claim.owner.as_deref().unwrap_or("another process")
                ),
                until,
            );
        }
        let here = match here {
            Ok(here) => here,
            Err(no_client) => {
                return (format!("not looked up: {no_client}"), None);
            }
        };
        if let Some(failure) = &here.failure {
            return (
                format!("the look-up failed ({failure}); the next sweep tries again"),
                Some(now),
            );
        }
        let pending = here.settled.iter().find_map(|s| match s {
            Settled::StillPending {
                intent,
                reason,
                retry_in,
            } if *intent == entry.intent => Some((reason, *retry_in)),
            _ => None,
        });
        match pending {
            Some((reason, retry_in)) => (
                reason.clone(),
                retry_in.map(|d| now + chrono::Duration::from_std(d).unwrap_or_default()),
            ),
            None => (
                "not looked up here: created through another endpoint, account or scope; \
                 sweep with that one's settings"
                    .to_string(),
                None,
            ),
        }
    }
}
