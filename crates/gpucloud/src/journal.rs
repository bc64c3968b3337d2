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

/// A create about to be sent. Holds no secret: the request body's hash, and its fields with
/// every script and long text replaced by a digest (see [`Self::request`]).
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
    /// The request body as recorded, so that a later request under the same name can be
    /// shown how it differs: every field, but a script, and any text longer than
    /// [`RECORDED_TEXT_LIMIT`] bytes, only as `sha256:<hex> (<n> bytes)` (a lifecycle script
    /// may hold a secret). `None` where it was not recorded.
    pub request: Option<serde_json::Value>,
    /// When the cluster is to be deleted, if the request set a `ttl`: the moment the intent
    /// was recorded plus the ttl.
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
    /// Where the create was sent and as whom ([`crate::ClientSettings::origin`]): a 404 from
    /// another endpoint or account says nothing about this cluster. `None` where unknown.
    pub origin: Option<String>,
}

/// The longest text a recorded request keeps as it is (see [`CreateIntent::request`]).
pub const RECORDED_TEXT_LIMIT: usize = 128;

impl CreateIntent {
    /// The intent of creating `name` with `body`: its hash and its recorded form.
    pub(crate) fn of_body(
        provider: ProviderKind,
        name: &str,
        scope: Option<String>,
        idempotency_key: Option<String>,
        body: &serde_json::Value,
    ) -> Self {
        Self {
            provider,
            name: name.to_string(),
            scope,
            idempotency_key,
            request_sha256: body_sha256(body),
            request: Some(recorded(None, body)),
            deadline: None,
            origin: None,
        }
    }
}

/// `value` with every script, and every text over [`RECORDED_TEXT_LIMIT`] bytes, replaced by
/// its digest; `key` is the field `value` is under.
fn recorded(key: Option<&str>, value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), recorded(Some(k), v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| recorded(key, v)).collect()),
        Value::String(text)
            if text.len() > RECORDED_TEXT_LIMIT
                || key.is_some_and(|k| k.to_ascii_lowercase().contains("script")) =>
        {
            use sha2::Digest as _;
            let digest: String = sha2::Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            Value::String(format!("sha256:{digest} ({} bytes)", text.len()))
        }
        other => other.clone(),
    }
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
    /// deleted: it is the answer, once the provider confirms it exists, if it was made by the
    /// same request.
    Exists {
        /// The create that made it.
        intent: IntentId,
        /// The cluster.
        cluster: ClusterId,
        /// Whether that create sent the same request (the same body hash).
        same_request: bool,
        /// That create's request as recorded ([`CreateIntent::request`]), if it was.
        request: Option<serde_json::Value>,
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
    /// Where it was sent and as whom ([`CreateIntent::origin`]); `None` where unknown.
    pub origin: Option<String>,
}

/// Where a list of the account was taken: the provider, the client's origin
/// ([`crate::ClientSettings::origin`]: endpoint and credentials) and the scope a name is
/// unique in (for E2E, its project and location).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedAt<'a> {
    /// The provider.
    pub provider: ProviderKind,
    /// The client's origin.
    pub origin: &'a str,
    /// The scope, as the client names it.
    pub scope: &'a str,
}

/// One cluster of a list of the account: its name and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedName {
    /// The cluster's name.
    pub name: String,
    /// Its id.
    pub id: ClusterId,
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

    /// The idempotency key of an earlier create of the same request (provider, name, scope
    /// and request hash as in `intent`) whose cluster may exist: its outcome unknown, or its
    /// cluster made and not known to be gone. A keyed create without a key of its own is sent
    /// under it: if that earlier create made a cluster, the provider answers with it instead
    /// of starting a second one. Default: none.
    fn earlier_key(&self, intent: &CreateIntent) -> Result<Option<String>, JournalError> {
        let _ = intent;
        Ok(None)
    }

    /// The client at `origin` ([`crate::ClientSettings::origin`]) saw `cluster` (after a
    /// create or a get): its state, and price where the provider states one, for a journal
    /// that keeps the last known state. Only a create sent to the same origin is about this
    /// cluster: the same id elsewhere is another. Default: nothing.
    fn cluster_seen(&self, cluster: &Cluster, origin: &str) -> Result<(), JournalError> {
        let _ = (cluster, origin);
        Ok(())
    }

    /// The provider at `origin` ([`crate::ClientSettings::origin`]) answered that it has no
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
        Err(JournalError(format!(
            "this journal cannot settle intent {intent}: it lists no unsettled creates"
        )))
    }
}

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

/// SHA-256 (hex) of `body` as compact JSON.
pub(crate) fn body_sha256(body: &serde_json::Value) -> String {
    use sha2::Digest as _;
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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
        assert_eq!(intent.request_sha256, body_sha256(&body), "hashed as sent");
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
