//! A journal of the calls that cost money, written before and after each one: the intent to
//! create (or delete) is recorded before the request is sent, and its outcome once it is
//! known, so a process that dies in between leaves a trace that the next run can resolve by
//! looking the cluster up. Record the intent before the side effect and the outcome after it.
//!
//! A journal that several processes (or machines) share also decides who may create a name:
//! [`Journal::claim_create`] records the intent only if no other create of the same provider,
//! scope and name is in flight, and answers with the other one's cluster when it made one. A
//! claim is held under a lease the client renews while its create runs, so a caller that died
//! holding one blocks the name only until the lease runs out; the next caller then takes it
//! over and reconciles before it sends anything.
//!
//! The facade only calls the [`Journal`] trait; a durable implementation (a local SQLite
//! ledger, a database shared by a team) lives outside it, so a user who wants none builds no
//! database code.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::cluster::{Cluster, ClusterId, CreateOutcome, ProviderKind};
use crate::error::Error;
pub use crate::error::JournalError;

/// The id a journal gave an intent.
pub type IntentId = u64;

/// A create about to be sent. Holds no secret: the request body's hash, never its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreateIntent {
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster name.
    pub name: String,
    /// Where the name is unique for reconciliation (a Together project, an E2E location).
    pub scope: Option<String>,
    /// Runcrate's `Idempotency-Key` for this logical create.
    pub idempotency_key: Option<String>,
    /// SHA-256 (hex) of the request body as JSON.
    pub request_sha256: String,
}

/// How a journaled create ended.
#[derive(Debug)]
pub enum CreateRecord<'a> {
    /// A cluster exists (created now, found after an ambiguous failure, or found before).
    Cluster {
        /// Its id.
        id: &'a ClusterId,
        /// What the create said.
        outcome: CreateOutcome,
    },
    /// The create failed; `error.is_ambiguous()` says whether a cluster may exist anyway.
    Failed {
        /// Why.
        error: &'a Error,
    },
}

/// What a shared journal answered to a claim on a cluster name (see [`Journal::claim_create`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This caller holds the name: its intent is recorded, and it sends the create.
    Owned {
        /// Its intent.
        intent: IntentId,
        /// An earlier create of this name whose owner stopped renewing its lease with the
        /// outcome unknown (it died, or lost the journal): this caller took it over, and
        /// reconciles before it sends anything.
        took_over: Option<TakenOver>,
    },
    /// Another caller's create of this name holds a live lease: wait, then claim again.
    InFlight {
        /// The other create's intent.
        intent: IntentId,
        /// Who holds it (host and process id; no secret).
        owner: String,
        /// How long its lease still runs unless renewed.
        lease_left: Duration,
    },
    /// A create of this name made `cluster`, and the cluster is not known to be gone or
    /// deleted: it is the answer, once the provider confirms it exists.
    Exists {
        /// The create that made it.
        intent: IntentId,
        /// The cluster.
        cluster: ClusterId,
    },
}

/// The create a claim took over from a caller that stopped renewing its lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenOver {
    /// Its intent.
    pub intent: IntentId,
    /// Who held it.
    pub owner: String,
    /// The idempotency key it was sent under (Runcrate).
    pub idempotency_key: Option<String>,
    /// Whether it was the same request (the same body hash).
    pub same_request: bool,
    /// How long ago its intent was recorded: any request it sent is at least this old, so a
    /// look-up by name waits only for what is left of the settle window.
    pub age: Duration,
}

/// A create whose outcome the journal does not know: still pending (its process died between
/// the request and the answer), or failed in a way that may have made a cluster anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsettled {
    /// Its intent.
    pub intent: IntentId,
    /// The cluster name it asked for.
    pub name: String,
    /// Where the name is unique ([`CreateIntent::scope`]).
    pub scope: Option<String>,
    /// The idempotency key it was sent under (Runcrate).
    pub idempotency_key: Option<String>,
    /// How long ago it was recorded, by the journal's clock.
    pub age: Duration,
}

/// What a look-up found for an [`Unsettled`] create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// The cluster exists.
    Found(ClusterId),
    /// The provider has no such cluster: the create made nothing.
    Gone,
}

/// How a client holds and waits for claims in a shared journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimPolicy {
    /// How long a claim lasts unless renewed; the client renews it every third of this while
    /// its create runs. A caller that dies blocks its name at most this long.
    pub lease: Duration,
    /// How long a create waits for another caller's create of the same name before it gives
    /// up with [`Error::NameClaimed`], sending nothing.
    pub max_wait: Duration,
    /// The first pause between claims while waiting (doubling up to `max_poll_interval`).
    pub poll_interval: Duration,
    /// The longest pause between claims while waiting.
    pub max_poll_interval: Duration,
}

impl Default for ClaimPolicy {
    /// A 60 s lease; wait up to 20 min (longer than a create with its settle windows takes),
    /// polling from 250 ms doubling to 5 s.
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(60),
            max_wait: Duration::from_secs(20 * 60),
            poll_interval: Duration::from_millis(250),
            max_poll_interval: Duration::from_secs(5),
        }
    }
}

/// Where a client records the calls that cost money (see the module docs).
///
/// Methods are synchronous and should be quick (a local database write); a `*_started` error
/// stops the call before any request is sent, a `*_finished` error is logged and otherwise
/// ignored (the outcome is already real).
pub trait Journal: fmt::Debug + Send + Sync {
    /// Before a create's first request (its look-up included).
    fn create_started(&self, intent: &CreateIntent) -> Result<IntentId, JournalError>;
    /// Once the create's outcome is known.
    fn create_finished(
        &self,
        intent: IntentId,
        record: &CreateRecord<'_>,
    ) -> Result<(), JournalError>;
    /// Before a delete's first request.
    fn delete_started(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
    ) -> Result<IntentId, JournalError>;
    /// Once the delete's outcome is known (`None`: the provider accepted it).
    fn delete_finished(&self, intent: IntentId, error: Option<&Error>) -> Result<(), JournalError>;

    /// Claims the create of `intent`'s name (provider, scope, name) for this caller, under a
    /// lease of `lease`, and records the intent if the claim is granted — all in one atomic
    /// step, so that of several callers claiming at once exactly one is
    /// [`Claim::Owned`]. Default: no sharing, every claim is granted ([`Self::create_started`]).
    fn claim_create(&self, intent: &CreateIntent, lease: Duration) -> Result<Claim, JournalError> {
        let _ = lease;
        self.create_started(intent).map(|intent| Claim::Owned {
            intent,
            took_over: None,
        })
    }

    /// Extends the lease of an [`Claim::Owned`] claim to `lease` from now; an error says the
    /// claim was lost (taken over after the lease ran out). Default: nothing to renew.
    fn renew_claim(&self, intent: IntentId, lease: Duration) -> Result<(), JournalError> {
        let _ = (intent, lease);
        Ok(())
    }

    /// The idempotency key of an earlier create of the same request (provider, name, scope
    /// and request hash as in `intent`) whose cluster may exist: its outcome unknown, or its
    /// cluster made and not known to be gone. A keyed create without a key of its own is sent
    /// under it: if that earlier create made a cluster, the provider answers with it instead
    /// of starting a second one. Default: none.
    fn earlier_key(&self, intent: &CreateIntent) -> Result<Option<String>, JournalError> {
        let _ = intent;
        Ok(None)
    }

    /// The client saw `cluster` (after a create or a get): its state, and price where the
    /// provider states one, for a journal that keeps the last known state. Default: nothing.
    fn cluster_seen(&self, cluster: &Cluster) -> Result<(), JournalError> {
        let _ = cluster;
        Ok(())
    }

    /// The provider answered that it has no such cluster (a 404 on a get). Default: nothing.
    fn cluster_gone(&self, provider: ProviderKind, id: &ClusterId) -> Result<(), JournalError> {
        let _ = (provider, id);
        Ok(())
    }

    /// The creates of `provider` whose outcome is unknown, oldest first (see
    /// [`crate::settle`]). Default: none, for a journal that keeps no history.
    fn unsettled(&self, provider: ProviderKind) -> Result<Vec<Unsettled>, JournalError> {
        let _ = provider;
        Ok(Vec::new())
    }

    /// Records what a look-up found for an [`Unsettled`] create; `Ok(false)` when it was
    /// settled already (by the create's own outcome, or another process's look-up), which
    /// wins. Default: an error, since only a journal that lists unsettled creates is asked.
    fn settle(&self, intent: IntentId, settlement: &Settlement) -> Result<bool, JournalError> {
        let _ = settlement;
        Err(JournalError(format!(
            "this journal cannot settle intent {intent}: it lists no unsettled creates"
        )))
    }
}

/// SHA-256 (hex) of `body` as compact JSON.
pub(crate) fn body_sha256(body: &serde_json::Value) -> String {
    use sha2::Digest as _;
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
