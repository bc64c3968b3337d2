//! The ledger's clusters checked against their providers: [`Ledger::refresh`] reads each one
//! that may be alive (the read records what it saw), and [`Ledger::sweep`] looks at the ones a
//! [`SweepPolicy`] picks (old enough, past their deadline) and, when asked, deletes them and
//! waits until each is gone. Both reach a cluster only through a client of the endpoint,
//! account and scope that created it ([`ClusterClient::reaching`]): the same id elsewhere is
//! another cluster, never looked up or deleted in its place.
//!
//! These are library operations so that a program sweeps exactly as `gpucloud clusters sweep`
//! does; the command line only asks, prints and maps to exit codes.

use std::time::Duration;

use chrono::{DateTime, Utc};
use gpucloud::settle::Settled;
use gpucloud::{
    ClusterClient, ClusterId, ClusterState, Error, Progress, ProviderKind, WaitOptions,
};
use serde::Serialize;

use crate::error::chain;
use crate::unknown::Unknown;
use crate::{ClusterEntry, Ledger, LedgerError};

/// The client of a provider, built by the caller (credentials, endpoint, the ledger as its
/// journal), or why there is none.
pub type Clients<'a> = dyn Fn(ProviderKind) -> Result<ClusterClient, Error> + Sync + 'a;

/// Which clusters a sweep looks at, and what it does with them.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SweepPolicy {
    /// Only clusters created at least this long ago.
    pub older_than: Option<Duration>,
    /// Only clusters past their deadline (a create's `ttl`).
    pub expired: bool,
    /// Delete what is alive (and wait until each is gone); without it the sweep only looks.
    pub delete: bool,
    /// Only these providers (all when empty).
    pub providers: Vec<ProviderKind>,
    /// Only these clusters may be deleted (the list a person confirmed): one that became due
    /// since is reported alive, not deleted. `None`: any due cluster.
    pub confirmed: Option<Vec<(ProviderKind, ClusterId)>>,
    /// How each delete is waited for.
    pub wait: WaitOptions,
}

impl SweepPolicy {
    /// Looks at every cluster of ours that may be alive; deletes nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only clusters created at least `age` ago.
    pub fn older_than(mut self, age: Duration) -> Self {
        self.older_than = Some(age);
        self
    }

    /// Only clusters past their deadline.
    pub fn expired(mut self) -> Self {
        self.expired = true;
        self
    }

    /// Deletes what is due and alive, each delete waited for with `wait`.
    pub fn deleting(mut self, wait: WaitOptions) -> Self {
        self.delete = true;
        self.wait = wait;
        self
    }

    /// Only `providers`.
    pub fn for_providers(mut self, providers: impl IntoIterator<Item = ProviderKind>) -> Self {
        self.providers = providers.into_iter().collect();
        self
    }

    /// Deletes only `clusters` (those a person said yes to).
    pub fn confirmed(mut self, clusters: Vec<(ProviderKind, ClusterId)>) -> Self {
        self.confirmed = Some(clusters);
        self
    }

    fn covers(&self, provider: ProviderKind) -> bool {
        self.providers.is_empty() || self.providers.contains(&provider)
    }

    /// Whether the sweep looks at `entry` at `now`: ours (never a cluster only found under a
    /// name), alive as far as the ledger knows, of a provider swept, old enough, and past
    /// its deadline if asked.
    pub fn is_due(&self, entry: &ClusterEntry, now: DateTime<Utc>) -> bool {
        self.covers(entry.provider)
            && entry.is_ours()
            && entry.may_be_alive()
            && self.older_than.is_none_or(|older_than| {
                (now - entry.created_at).to_std().unwrap_or_default() >= older_than
            })
            && (!self.expired || entry.is_expired(now))
    }
}

/// What a sweep did with one cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum SweepAction {
    /// Alive and left so: the sweep only looked, or the cluster was not in the confirmed list.
    Alive {
        /// Its state, as the provider answered.
        state: String,
        /// Why it was not deleted, where a delete was asked for.
        #[serde(skip_serializing_if = "Option::is_none")]
        not_deleted: Option<String>,
    },
    /// Deleted by this sweep, and verified gone.
    Deleted {
        /// How long the delete took until the provider no longer had the cluster.
        took: Duration,
    },
    /// Another caller (a sweep at the same time, on this machine or another sharing the
    /// ledger) held the claim on its delete: this sweep sent none, and waited until the
    /// cluster was gone.
    DeletedByAnother {
        /// Who deleted it (host and process id).
        by: String,
        /// How long this sweep waited until the provider no longer had it.
        took: Duration,
    },
    /// The provider no longer has it (stopped elsewhere), or a failed start it released.
    Gone {
        /// A failed start the provider released (nothing bills).
        released: bool,
    },
    /// Alive on a provider whose API cannot delete a cluster: it bills until a person stops it.
    StopByHand {
        /// Its state.
        state: String,
        /// Where a person stops it.
        console: &'static str,
    },
    /// Not looked up, or its delete failed: it may still be billing.
    Failed {
        /// Why.
        reason: String,
    },
}

impl SweepAction {
    /// `alive`, `deleted`, `deleted_by_another`, `gone`, `stop_by_hand` or `error`: the word
    /// the command line and
    /// its JSON use.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Alive { .. } => "alive",
            Self::Deleted { .. } => "deleted",
            Self::DeletedByAnother { .. } => "deleted_by_another",
            Self::Gone { .. } => "gone",
            Self::StopByHand { .. } => STOP_BY_HAND,
            Self::Failed { .. } => "error",
        }
    }
}

/// `SweepAction::StopByHand`'s word.
const STOP_BY_HAND: &str = "stop_by_hand";

/// One cluster a sweep looked at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Swept {
    /// Its provider.
    pub provider: ProviderKind,
    /// Its name.
    pub name: String,
    /// Its id.
    pub cluster_id: ClusterId,
    /// How long ago it was created.
    pub age: Duration,
    /// What the sweep did.
    pub action: SweepAction,
}

/// A sweep's whole result.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct SweepReport {
    /// Every cluster looked at, provider by provider.
    pub swept: Vec<Swept>,
    /// Providers with clusters in the ledger whose client could not be built, and why: their
    /// clusters were not looked at.
    pub skipped: Vec<(ProviderKind, String)>,
    /// Creates an earlier run left unanswered, settled by looking their names up first.
    pub settled: Vec<Settled>,
    /// Creates whose outcome is still unknown: each may have made a cluster no sweep sees
    /// yet, so a sweep that has any has not done all it was asked.
    pub unknown: Vec<Unknown>,
}

impl SweepReport {
    /// Whether the sweep did all it was asked: every due cluster acted on, no provider
    /// skipped, no create of unknown outcome left. `false` means something may be billing
    /// that this sweep did not stop (or could not see).
    pub fn is_complete(&self) -> bool {
        self.failed().next().is_none() && self.skipped.is_empty() && self.unknown.is_empty()
    }

    /// The clusters that may still be billing because the sweep could not act on them.
    pub fn failed(&self) -> impl Iterator<Item = &Swept> {
        self.swept
            .iter()
            .filter(|s| matches!(s.action, SweepAction::Failed { .. }))
    }

    /// The clusters alive where no API can delete them.
    pub fn stop_by_hand(&self) -> impl Iterator<Item = &Swept> {
        self.swept
            .iter()
            .filter(|s| matches!(s.action, SweepAction::StopByHand { .. }))
    }
}

/// What a sweep is doing, for a live display.
#[derive(Debug)]
#[non_exhaustive]
pub enum SweepEvent<'a> {
    /// Looking a cluster up.
    LookingUp {
        /// Its provider.
        provider: ProviderKind,
        /// Its id.
        id: &'a ClusterId,
    },
    /// A delete in progress.
    Deleting {
        /// Its id.
        id: &'a ClusterId,
        /// The wait's progress.
        progress: &'a Progress,
    },
}

/// What a refresh did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct RefreshReport {
    /// The clusters that could not be read, each with why.
    pub unrefreshed: Vec<Unrefreshed>,
    /// Creates of unknown outcome a look-up settled first.
    pub settled: Vec<Settled>,
    /// Creates whose outcome is still unknown.
    pub unknown: Vec<Unknown>,
}

/// A cluster a refresh could not read: its state stays the last one recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrefreshed {
    /// Its provider.
    pub provider: ProviderKind,
    /// Its id.
    pub cluster_id: ClusterId,
    /// Why.
    pub reason: String,
}

impl Ledger {
    /// Reads every cluster the ledger says may be alive through a client of its own origin
    /// and records what it saw, or that it is gone (whether or not `clients` record into this
    /// ledger themselves), and returns the ones that could not be read or recorded: a provider without a client, a cluster created through another endpoint or
    /// account, or a read that failed.
    pub async fn refresh(&self, clients: &Clients<'_>) -> Result<RefreshReport, LedgerError> {
        let mut report = RefreshReport::default();
        // The creates of unknown outcome first: one a look-up finds is then read like the rest.
        for provider in ProviderKind::ALL {
            if self.unsettled_creates(Some(provider))?.is_empty() {
                continue;
            }
            let here = match clients(provider) {
                Ok(client) => self.settle_unknown(&client).await,
                Err(error) => {
                    report
                        .unknown
                        .extend(self.still_unknown(provider, Err(&chain(&error)))?);
                    continue;
                }
            };
            report
                .unknown
                .extend(self.still_unknown(provider, Ok(&here))?);
            report.settled.extend(here.settled);
        }
        let unrefreshed = &mut report.unrefreshed;
        let entries: Vec<ClusterEntry> = self
            .clusters()?
            .into_iter()
            .filter(ClusterEntry::may_be_alive)
            .collect();
        for entry in entries {
            let Some(id) = entry.cluster_id.clone() else {
                continue;
            };
            let not_read = |reason: String| Unrefreshed {
                provider: entry.provider,
                cluster_id: id.clone(),
                reason,
            };
            let client = match clients(entry.provider) {
                Ok(client) => client,
                Err(error) => {
                    unrefreshed.push(not_read(chain(&error)));
                    continue;
                }
            };
            let Some(here) = client.reaching(entry.origin.as_deref(), entry.scope.as_deref())
            else {
                unrefreshed.push(not_read(
                    "created through another endpoint or account".into(),
                ));
                continue;
            };
            // Recorded here, whether or not the caller's client records into this ledger.
            let origin = Some(here.origin());
            let recorded = match here.get(&id).await {
                Ok(cluster) => self.record_seen(&cluster, origin),
                Err(Error::NotFound(_)) => self.record_gone(entry.provider, &id, origin),
                Err(error) => {
                    unrefreshed.push(not_read(chain(&error)));
                    continue;
                }
            };
            if let Err(error) = recorded {
                unrefreshed.push(not_read(format!("read, but not recorded: {error}")));
            }
        }
        Ok(report)
    }

    /// The clusters `policy` picks at `now`: what a sweep would look at (and, with
    /// `policy.delete`, delete through a provider's API when `deletable`).
    pub fn due(
        &self,
        policy: &SweepPolicy,
        now: DateTime<Utc>,
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        Ok(self
            .clusters()?
            .into_iter()
            .filter(|e| policy.is_due(e, now))
            .collect())
    }

    /// Sweeps the clusters `policy` picks, provider by provider: first settles the creates an
    /// earlier run left unanswered (their clusters may be due too), then looks each due
    /// cluster up through a client of its own origin and, with `policy.delete`, deletes it and
    /// waits until it is gone. A provider whose client cannot be built is skipped and listed
    /// in the report; the others are still swept. `on_event` sees each look-up and delete.
    pub async fn sweep(
        &self,
        clients: &Clients<'_>,
        policy: &SweepPolicy,
        mut on_event: impl FnMut(SweepEvent<'_>),
    ) -> Result<SweepReport, LedgerError> {
        let mut report = SweepReport::default();
        for provider in ProviderKind::ALL.into_iter().filter(|p| policy.covers(*p)) {
            let has_entries = self
                .clusters()?
                .iter()
                .any(|e| e.provider == provider && (e.may_be_alive() || e.state.is_unsettled()));
            if !has_entries {
                continue;
            }
            let client = match clients(provider) {
                Ok(client) => client,
                Err(error) => {
                    let why = chain(&error);
                    report
                        .unknown
                        .extend(self.still_unknown(provider, Err(&why))?);
                    report.skipped.push((provider, why));
                    continue;
                }
            };
            // The creates of unknown outcome first: a cluster a look-up finds may be due too.
            let here = self.settle_unknown(&client).await;
            report
                .unknown
                .extend(self.still_unknown(provider, Ok(&here))?);
            report.settled.extend(here.settled);
            let now = self.now();
            for entry in self
                .due(policy, now)?
                .into_iter()
                .filter(|e| e.provider == provider)
            {
                let Some(id) = entry.cluster_id.clone() else {
                    continue;
                };
                let confirmed = policy
                    .confirmed
                    .as_ref()
                    .is_none_or(|listed| listed.contains(&(provider, id.clone())));
                let action = match client.reaching(entry.origin.as_deref(), entry.scope.as_deref())
                {
                    None => SweepAction::Failed {
                        reason: format!(
                            "created through another endpoint or account ({}); not looked up \
                             here: sweep with that one's settings",
                            entry.origin.as_deref().unwrap_or_default()
                        ),
                    },
                    Some(here) => {
                        on_event(SweepEvent::LookingUp { provider, id: &id });
                        self.sweep_one(&here, &entry, &id, policy, confirmed, &mut on_event)
                            .await
                    }
                };
                report.swept.push(Swept {
                    provider,
                    name: entry.name.clone(),
                    cluster_id: id,
                    age: (now - entry.created_at).to_std().unwrap_or_default(),
                    action,
                });
            }
        }
        Ok(report)
    }

    /// Looks one cluster up and, with `policy.delete` (and `confirmed`), deletes it and waits
    /// until it is gone.
    async fn sweep_one(
        &self,
        client: &ClusterClient,
        entry: &ClusterEntry,
        id: &ClusterId,
        policy: &SweepPolicy,
        confirmed: bool,
        on_event: &mut impl FnMut(SweepEvent<'_>),
    ) -> SweepAction {
        let settled = || self.entry(entry.intent).ok().filter(|e| !e.may_be_alive());
        // What the get answers is recorded here, whether or not the caller's client records
        // into this ledger: the client reaches the cluster's own origin, so its 404 proves the
        // cluster gone, and its answer is the cluster's state now.
        let origin = Some(client.origin());
        let cluster = match client.get(id).await {
            Ok(cluster) => cluster,
            Err(Error::NotFound(_)) => {
                return match self.record_gone(entry.provider, id, origin) {
                    Ok(()) => SweepAction::Gone { released: false },
                    Err(error) => SweepAction::Failed {
                        reason: format!(
                            "the provider no longer has it, but the ledger could not record \
                             that: {error}"
                        ),
                    },
                };
            }
            Err(error) => {
                return SweepAction::Failed {
                    reason: chain(&error),
                };
            }
        };
        if let Err(error) = self.record_seen(&cluster, origin) {
            return SweepAction::Failed {
                reason: format!("its state could not be recorded: {error}"),
            };
        }
        // Gone already (stopped in a console), or a failed start the provider released: the
        // ledger's verdict on what the get just recorded, the one rule for both.
        let settled = settled();
        if cluster.state == ClusterState::Deleted || settled.is_some() {
            return SweepAction::Gone {
                released: settled.is_some_and(|e| e.released),
            };
        }
        let profile = client.provider().profile();
        let state = cluster.state.to_string();
        if !profile.deletes_clusters {
            return SweepAction::StopByHand {
                state,
                console: profile.console,
            };
        }
        if !policy.delete {
            return SweepAction::Alive {
                state,
                not_deleted: None,
            };
        }
        if !confirmed {
            return SweepAction::Alive {
                state,
                not_deleted: Some("not in the list confirmed".into()),
            };
        }
        match client
            .delete_and_wait(id, &policy.wait, |progress| {
                on_event(SweepEvent::Deleting { id, progress });
            })
            .await
        {
            Ok(deletion) if deletion.already_gone => SweepAction::Gone { released: false },
            Ok(gpucloud::Deletion {
                deleted_by: Some(by),
                took,
                ..
            }) => SweepAction::DeletedByAnother { by, took },
            Ok(deletion) => SweepAction::Deleted {
                took: deletion.took,
            },
            Err(error) => SweepAction::Failed {
                reason: chain(&error),
            },
        }
    }
}

impl Ledger {
    /// The time by the ledger's clock (the one its claims and leases are measured by).
    pub(crate) fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis((self.clock)()).unwrap_or_default()
    }
}
