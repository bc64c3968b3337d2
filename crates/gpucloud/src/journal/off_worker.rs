//! [`OffWorker`]: the facade's journal calls kept off the runtime's workers.

use super::{
    Claim, CreateIntent, CreateRecord, DeleteClaim, IntentId, Journal, JournalError, ListedAt,
    ListedName, Settlement, Unsettled,
};
use std::time::Duration;

use crate::cluster::{Cluster, ClusterId, ProviderKind};
use crate::error::Error;

/// A journal whose every call is kept off the runtime's workers: the facade calls its journal
/// through this. The [`Journal`] trait is synchronous on purpose — a journal is a local write
/// (SQLite) or a bounded statement (PostgreSQL), an async trait would box every call and every
/// implementation would need a runtime — but such a call can wait for seconds (a busy
/// timeout, a slow disk, a lock held by another process). On a multi-thread Tokio runtime
/// each call therefore runs under `block_in_place`: the worker hands its other tasks to a new
/// thread while the call waits, so the client's other requests and timers go on. On a
/// current-thread runtime (or none) there is no other worker to hand them to, and the call
/// runs as it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OffWorker<'a>(pub(crate) &'a dyn Journal);

/// Runs `call` without blocking a runtime worker (see [`OffWorker`]).
fn off_worker<R>(call: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(call)
        }
        _ => call(),
    }
}

impl Journal for OffWorker<'_> {
    fn create_started(&self, intent: &CreateIntent) -> Result<IntentId, JournalError> {
        off_worker(|| self.0.create_started(intent))
    }
    fn create_finished(
        &self,
        intent: IntentId,
        record: &CreateRecord<'_>,
    ) -> Result<(), JournalError> {
        off_worker(|| self.0.create_finished(intent, record))
    }
    fn delete_started(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
    ) -> Result<IntentId, JournalError> {
        off_worker(|| self.0.delete_started(provider, cluster))
    }
    fn delete_finished(&self, intent: IntentId, error: Option<&Error>) -> Result<(), JournalError> {
        off_worker(|| self.0.delete_finished(intent, error))
    }
    fn claim_create(&self, intent: &CreateIntent, lease: Duration) -> Result<Claim, JournalError> {
        off_worker(|| self.0.claim_create(intent, lease))
    }
    fn claim_delete(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
        lease: Duration,
    ) -> Result<DeleteClaim, JournalError> {
        off_worker(|| self.0.claim_delete(provider, cluster, lease))
    }
    fn renew_claim(&self, intent: IntentId, lease: Duration) -> Result<(), JournalError> {
        off_worker(|| self.0.renew_claim(intent, lease))
    }
    fn earlier_key(&self, intent: &CreateIntent) -> Result<Option<String>, JournalError> {
        off_worker(|| self.0.earlier_key(intent))
    }
    fn cluster_seen(&self, cluster: &Cluster, origin: &str) -> Result<(), JournalError> {
        off_worker(|| self.0.cluster_seen(cluster, origin))
    }
    fn cluster_gone(
        &self,
        provider: ProviderKind,
        id: &ClusterId,
        origin: &str,
    ) -> Result<(), JournalError> {
        off_worker(|| self.0.cluster_gone(provider, id, origin))
    }
    fn unsettled(&self, provider: ProviderKind) -> Result<Vec<Unsettled>, JournalError> {
        off_worker(|| self.0.unsettled(provider))
    }
    fn settle(&self, intent: IntentId, settlement: &Settlement) -> Result<bool, JournalError> {
        off_worker(|| self.0.settle(intent, settlement))
    }
    fn names_listed(
        &self,
        at: ListedAt<'_>,
        max_age: Duration,
    ) -> Result<Option<Vec<ListedName>>, JournalError> {
        off_worker(|| self.0.names_listed(at, max_age))
    }
    fn record_names(&self, at: ListedAt<'_>, names: &[ListedName]) -> Result<(), JournalError> {
        off_worker(|| self.0.record_names(at, names))
    }
}
