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

use crate::cluster::{Cluster, ClusterId, ProviderKind};
use crate::error::Error;

mod off_worker;
mod records;

pub use crate::error::JournalError;
pub(crate) use off_worker::OffWorker;

pub use records::{
    Claim, ClaimPolicy, CreateIntent, CreateRecord, DeleteClaim, IntentId, ListedAt, ListedName,
    RECORDED_TEXT_LIMIT, Settlement, TakenOver, Unsettled,
};

/// Where a client records the calls that cost money (see the module docs).
///
/// Methods are synchronous and should be quick (a local database write); the facade calls them
/// off the runtime's workers (see `OffWorker` in this module's source), so one that waits on a
/// lock does not stall the client's other tasks. A `*_started` error
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

    /// Claims the delete of `provider`'s `cluster` for this caller, under a lease of `lease`,
    /// and records the delete's intent if the claim is granted — in one atomic step, so that
    /// of several callers deleting one cluster at once (two sweeps) exactly one sends the
    /// DELETE. Default: no sharing, every claim is granted ([`Self::delete_started`]).
    fn claim_delete(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
        lease: Duration,
    ) -> Result<DeleteClaim, JournalError> {
        let _ = lease;
        self.delete_started(provider, cluster)
            .map(DeleteClaim::Owned)
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

    /// The client at `origin` ([`crate::ClusterClient::origin`]) saw `cluster` (after a
    /// create or a get): its state, and price where the provider states one, for a journal
    /// that keeps the last known state. Only a create sent to the same origin is about this
    /// cluster: the same id elsewhere is another. Default: nothing.
    fn cluster_seen(&self, cluster: &Cluster, origin: &str) -> Result<(), JournalError> {
        let _ = (cluster, origin);
        Ok(())
    }

    /// The provider at `origin` ([`crate::ClusterClient::origin`]) answered that it has no
    /// such cluster (a 404 on a get). Proof only for a cluster created through the same
    /// origin: another endpoint or account does not see it. Default: nothing.
    fn cluster_gone(
        &self,
        provider: ProviderKind,
        id: &ClusterId,
        origin: &str,
    ) -> Result<(), JournalError> {
        let _ = (provider, id, origin);
        Ok(())
    }

    /// The creates of `provider` whose outcome is unknown, oldest first (see
    /// [`crate::settle`]). Default: none, for a journal that keeps no history.
    fn unsettled(&self, provider: ProviderKind) -> Result<Vec<Unsettled>, JournalError> {
        let _ = provider;
        Ok(Vec::new())
    }

    /// The names of the account at `at` as a client sharing this journal listed them at most
    /// `max_age` ago (by the journal's clock), for the look-up by name before a create: the
    /// creates of several processes within `max_age` of each other share one list. `None`
    /// when there is no such list. Default: none, for a journal shared with no one.
    fn names_listed(
        &self,
        at: ListedAt<'_>,
        max_age: Duration,
    ) -> Result<Option<Vec<ListedName>>, JournalError> {
        let _ = (at, max_age);
        Ok(None)
    }

    /// Keeps the names of a list of the account at `at` just taken, for
    /// [`Self::names_listed`]. Default: nothing.
    fn record_names(&self, at: ListedAt<'_>, names: &[ListedName]) -> Result<(), JournalError> {
        let _ = (at, names);
        Ok(())
    }

    /// Records what a look-up found for an [`Unsettled`] create; `Ok(false)` when it was
    /// settled already (by the create's own outcome, or another process's look-up), which
    /// wins. Default: an error, since only a journal that lists unsettled creates is asked.
    fn settle(&self, intent: IntentId, settlement: &Settlement) -> Result<bool, JournalError> {
        let _ = settlement;
        Err(JournalError::new(format!(
            "this journal cannot settle intent {intent}: it lists no unsettled creates"
        )))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// A journal whose every call holds its thread, as a busy SQLite file does.
    #[derive(Debug)]
    struct Stalled(Duration);

    impl Journal for Stalled {
        fn create_started(&self, _: &CreateIntent) -> Result<IntentId, JournalError> {
            std::thread::sleep(self.0);
            Ok(7)
        }
        fn create_finished(&self, _: IntentId, _: &CreateRecord<'_>) -> Result<(), JournalError> {
            Ok(())
        }
        fn delete_started(&self, _: ProviderKind, _: &ClusterId) -> Result<IntentId, JournalError> {
            Ok(1)
        }
        fn delete_finished(&self, _: IntentId, _: Option<&Error>) -> Result<(), JournalError> {
            Ok(())
        }
    }

    fn intent() -> CreateIntent {
        CreateIntent {
            provider: ProviderKind::Together,
            name: "n".into(),
            scope: None,
            idempotency_key: None,
            request_sha256: String::new(),
            request: None,
            deadline: None,
            origin: None,
            provider_ends_at: None,
        }
    }

    /// Ticks of a 5 ms timer that ran while a stalled journal call held its caller's thread,
    /// on a runtime of one worker.
    fn ticks_during_a_stalled_call(offloaded: bool) -> u32 {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        runtime.block_on(async {
            let ticks = Arc::new(AtomicU32::new(0));
            let counter = ticks.clone();
            let ticker = tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            });
            // Let the ticker start on the one worker before the call takes it.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let journal = Stalled(Duration::from_millis(300));
            let during = tokio::spawn(async move {
                let before = ticks.load(Ordering::SeqCst);
                let id = if offloaded {
                    OffWorker(&journal).create_started(&intent())
                } else {
                    journal.create_started(&intent())
                };
                assert_eq!(id, Ok(7), "the call's answer comes back as it was");
                ticks.load(Ordering::SeqCst) - before
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
            ticker.abort();
            during
        })
    }

    #[test]
    fn a_recorded_request_keeps_its_fields_but_not_its_scripts_or_long_text() {
        let long = "x".repeat(RECORDED_TEXT_LIMIT + 1);
        let body = serde_json::json!({
            "name": "train",
            "num_gpus": 16,
            "lifecycle_script": "export HF_TOKEN=hf_secret",
            "volumes": [{ "name": "v", "note": long }],
            "exact": "y".repeat(RECORDED_TEXT_LIMIT),
        });
        let intent = CreateIntent::of_body(ProviderKind::E2e, "train", None, None, &body);
        let recorded = intent.request.unwrap();
        assert_eq!(recorded["name"], "train");
        assert_eq!(recorded["num_gpus"], 16);
        assert_eq!(recorded["exact"], body["exact"], "at the limit, kept");
        let script = recorded["lifecycle_script"].as_str().unwrap();
        assert!(
            script.starts_with("sha256:") && script.ends_with(" (25 bytes)"),
            "{script}"
        );
        assert!(!recorded.to_string().contains("hf_secret"));
        let note = recorded["volumes"][0]["note"].as_str().unwrap();
        assert!(
            note.ends_with(&format!(" ({} bytes)", long.len())),
            "{note}"
        );
        assert_eq!(
            intent.request_sha256,
            records::body_sha256(&body),
            "hashed as sent"
        );
    }

    #[test]
    fn a_stalled_journal_call_does_not_stall_the_other_tasks() {
        // Held directly, the one worker runs nothing else for 300 ms; offloaded, the timer
        // keeps ticking (about 60 times; any is proof it ran).
        assert_eq!(ticks_during_a_stalled_call(false), 0);
        assert!(ticks_during_a_stalled_call(true) > 0);
    }

    #[test]
    fn outside_a_runtime_or_on_a_current_thread_one_the_call_runs_as_it_is() {
        let journal = Stalled(Duration::ZERO);
        assert_eq!(OffWorker(&journal).create_started(&intent()), Ok(7));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let answer = runtime.block_on(async { OffWorker(&journal).create_started(&intent()) });
        assert_eq!(answer, Ok(7));
    }
}
