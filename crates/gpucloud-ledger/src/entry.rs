//! What the ledger holds, as the queries return it: every create with what became of it,
//! every delete, and what a look-up found for an unsettled intent.

use chrono::{DateTime, Utc};
use gpucloud::journal::IntentId;
use gpucloud::{ClusterId, Price, ProviderKind};
use serde::Serialize;

use crate::error::LedgerError;

/// Where a create's intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentState {
    /// Recorded before its request; no outcome yet. The process may still be running, or may
    /// have died between the request and its answer: a cluster may exist.
    Pending,
    /// A cluster exists: its id is known.
    Completed,
    /// The create failed in a way that may have created a cluster anyway (a timeout, a
    /// dropped connection, a 5xx): look it up.
    FailedAmbiguous,
    /// The create failed and made nothing (or a look-up found nothing).
    Failed,
}

impl IntentState {
    /// The word stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Completed => "completed",
            Self::FailedAmbiguous => "failed_ambiguous",
            Self::Failed => "failed",
        }
    }

    /// Whether a cluster may exist that the ledger has no id for.
    pub fn is_unsettled(self) -> bool {
        matches!(self, Self::Pending | Self::FailedAmbiguous)
    }

    pub(crate) fn parse(s: &str) -> Result<Self, LedgerError> {
        [
            Self::Pending,
            Self::Completed,
            Self::FailedAmbiguous,
            Self::Failed,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| LedgerError::Corrupt(format!("intent state {s:?}")))
    }
}

/// How a completed create got its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The create made it.
    Created,
    /// The create made it; its answer was lost and a look-up found it.
    CreatedReconciled,
    /// A cluster of that name (or key) existed before.
    AlreadyExisted,
    /// The create's outcome was unknown; a later look-up found the cluster.
    FoundByLookup,
}

impl Outcome {
    /// The word stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::CreatedReconciled => "created_reconciled",
            Self::AlreadyExisted => "already_existed",
            Self::FoundByLookup => "found_by_lookup",
        }
    }

    pub(crate) fn parse(s: &str) -> Result<Self, LedgerError> {
        [
            Self::Created,
            Self::CreatedReconciled,
            Self::AlreadyExisted,
            Self::FoundByLookup,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| LedgerError::Corrupt(format!("outcome {s:?}")))
    }
}

/// How a cluster came to be in the ledger, and so whether it is ours to delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// A create of ours sent its request (or is sending it): the cluster is ours.
    Created,
    /// A create asked to adopt a cluster of its name that gpucloud had not made
    /// ([`gpucloud::ClusterSpec::adopt`]): ours from then on.
    Adopted,
    /// A create found someone else's cluster under its name and took it for its result (what
    /// a create reconciled by name recorded as `already_existed` before schema version 8):
    /// not ours. Never swept, never deleted at a deadline, never a name's answer to a later
    /// create.
    Found,
}

impl Provenance {
    /// The word stored (`None` for [`Self::Created`], the column's default).
    pub(crate) fn stored(self) -> Option<&'static str> {
        match self {
            Self::Created => None,
            Self::Adopted => Some("adopted"),
            Self::Found => Some("found"),
        }
    }

    pub(crate) fn parse(stored: Option<&str>) -> Result<Self, LedgerError> {
        match stored {
            None => Ok(Self::Created),
            Some("adopted") => Ok(Self::Adopted),
            Some("found") => Ok(Self::Found),
            Some(other) => Err(LedgerError::Corrupt(format!("provenance {other:?}"))),
        }
    }
}

/// What the ledger keeps of an error: its kind (`timeout`, `no_capacity`, `api`, …, the
/// facade's `Error` variant in snake case) and HTTP status, never its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorSummary {
    /// The kind.
    pub kind: String,
    /// The provider's HTTP status, if it answered.
    pub status: Option<u16>,
}

/// One create gpucloud recorded, with what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterEntry {
    /// The intent's id (what [`crate::Ledger::settle_intent`] takes).
    pub intent: IntentId,
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster name.
    pub name: String,
    /// Where the name is unique (a Together project, `project/location` on E2E).
    pub scope: Option<String>,
    /// Runcrate's idempotency key.
    pub idempotency_key: Option<String>,
    /// SHA-256 (hex) of the request body.
    pub request_sha256: String,
    /// The process that sent the create.
    pub pid: u32,
    /// Where the intent stands.
    pub state: IntentState,
    /// The cluster, once known.
    pub cluster_id: Option<ClusterId>,
    /// How it came to be, once known.
    pub outcome: Option<Outcome>,
    /// Why the create failed.
    pub error: Option<ErrorSummary>,
    /// When the intent was recorded (before any request).
    pub created_at: DateTime<Utc>,
    /// When the create's outcome was recorded.
    pub finished_at: Option<DateTime<Utc>>,
    /// How an unknown outcome was settled later, and when.
    pub resolution: Option<(String, DateTime<Utc>)>,
    /// When the provider last accepted a delete of this cluster (or answered that it was
    /// already gone).
    pub deleted_at: Option<DateTime<Utc>>,
    /// The cluster as a client last saw it (a create's answer, a get).
    pub last_seen: Option<LastSeen>,
    /// The cluster's price per hour, where the provider stated one.
    pub price: Option<Price>,
    /// When a client first learnt that the provider no longer has the cluster (a 404, a
    /// deleted state, or a failed start the provider released). Until then, it may be billing.
    pub gone_at: Option<DateTime<Utc>>,
    /// Whether the cluster failed to start on a provider that releases every machine of a
    /// failed start ([`gpucloud::FailedStart::Released`]): it never billed, and there is
    /// nothing to delete.
    pub released: bool,
    /// When the cluster is to be deleted (its request's `ttl`), if it has a deadline.
    pub deadline: Option<DateTime<Utc>>,
    /// How the cluster came to be in the ledger: only one we created or adopted is ours.
    pub provenance: Provenance,
    /// Where the create was sent and as whom (`base URL as <credentials fingerprint>`);
    /// `None` for a create recorded before schema version 8.
    pub origin: Option<String>,
    /// Who claimed the name to make this create, and until when.
    pub claim: ClaimHeld,
    /// When the provider itself ends the cluster (a Together reservation that runs out), if
    /// the create asked it to: a deadline that holds without a sweep.
    pub provider_ends_at: Option<DateTime<Utc>>,
}

/// The claim a create was made under: who holds it and until when
/// ([`crate::Ledger::in_flight`] says whether it still does).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ClaimHeld {
    /// `host/pid` of the process that claimed it (`None`: recorded without a claim).
    pub owner: Option<String>,
    /// The machine and process-id namespace it ran in, where known.
    #[serde(skip)]
    pub(crate) node: Option<String>,
    /// When its lease runs out (renewed while the create runs).
    pub lease_until: Option<DateTime<Utc>>,
    /// A later create of the name took the claim over (this one's owner had stopped).
    pub taken_over: bool,
}

/// What a client last saw of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastSeen {
    /// The neutral state (`ready`, `provisioning`, …, `gone`).
    pub state: String,
    /// The provider's phase, if it has one.
    pub phase: Option<String>,
    /// When.
    pub at: DateTime<Utc>,
}

impl ClusterEntry {
    /// Whether a cluster gpucloud knows of may still exist (and bill): the create got an id
    /// and nothing has shown the cluster gone since.
    pub fn may_be_alive(&self) -> bool {
        self.cluster_id.is_some() && self.gone_at.is_none()
    }

    /// Whether the cluster is ours to delete: one a create of ours made, or one adopted on
    /// request; never one merely found under the name ([`Provenance::Found`]).
    pub fn is_ours(&self) -> bool {
        self.provenance != Provenance::Found
    }

    /// Whether the cluster is ours and may still be alive past its deadline at `now`: what
    /// `clusters sweep --expired` deletes.
    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        self.is_ours()
            && self.may_be_alive()
            && self.deadline.is_some_and(|deadline| deadline <= now)
    }

    /// What the cluster has cost from its create until it was gone (or `now`), where the
    /// provider stated a price per hour: the price times the hours, in its currency.
    ///
    /// A start the provider released cost nothing.
    pub fn cost_so_far(&self, now: DateTime<Utc>) -> Option<(f64, &str)> {
        let price = self.price.as_ref()?;
        self.cluster_id.as_ref()?;
        if self.released {
            return Some((0.0, price.currency.as_str()));
        }
        let until = self.gone_at.unwrap_or(now);
        let seconds = (until - self.created_at).num_seconds().max(0);
        // Seconds fit an f64 exactly far beyond any cluster's life.
        #[allow(clippy::cast_precision_loss)]
        let hours = seconds as f64 / 3600.0;
        Some((price.per_hour * hours, price.currency.as_str()))
    }
}

/// Where a delete stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteState {
    /// Sent, no answer recorded.
    Pending,
    /// The provider accepted it.
    Completed,
    /// It failed (`not_found`: the cluster was already gone).
    Failed,
}

/// One delete gpucloud recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteEntry {
    /// The intent's id.
    pub intent: IntentId,
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster.
    pub cluster_id: ClusterId,
    /// The process that sent it.
    pub pid: u32,
    /// Where it stands.
    pub state: DeleteState,
    /// Why it failed.
    pub error: Option<ErrorSummary>,
    /// When it was recorded (before any request).
    pub started_at: DateTime<Utc>,
    /// When its outcome was recorded.
    pub finished_at: Option<DateTime<Utc>>,
}
