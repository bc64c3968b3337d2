//! A journal of the calls that cost money, written before and after each one: the intent to
//! create (or delete) is recorded before the request is sent, and its outcome once it is
//! known, so a process that dies in between leaves a trace that the next run can resolve by
//! looking the cluster up. Record the intent before the side effect and the outcome after it.
//!
//! The facade only calls the [`Journal`] trait; a durable implementation (a local SQLite
//! ledger, a database shared by a team) lives outside it, so a user who wants none builds no
//! database code.

use std::fmt;

use serde::Serialize;

use crate::cluster::{Cluster, ClusterId, CreateOutcome, ProviderKind};
use crate::error::Error;

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

/// A journal could not record an intent: the call is not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalError(pub String);

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JournalError {}

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
