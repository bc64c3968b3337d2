//! What a journal records and answers: a create's intent, its outcome, a claim on a name and
//! what an earlier create left unsettled, and how long a claim may be waited for.

use std::time::Duration;

use serde::Serialize;

use crate::cluster::{ClusterId, CreateOutcome, ProviderKind};
use crate::error::Error;

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
    /// Where the create was sent and as whom ([`crate::ClusterClient::origin`]): a 404 from
    /// another endpoint or account says nothing about this cluster. `None` where unknown.
    pub origin: Option<String>,
    /// When the provider itself ends the cluster, if the request asks it to (Together's
    /// `RESERVED` billing, for `duration_days` from the intent): a deadline that holds with
    /// no sweep running. `None`: only a sweep or a person ends it.
    pub provider_ends_at: Option<chrono::DateTime<chrono::Utc>>,
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
            provider_ends_at: None,
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

/// What a shared journal answered to a claim on a cluster name (see [`super::Journal::claim_create`]).
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
        /// That create's deadline ([`CreateIntent::deadline`]), if its request set a ttl.
        deadline: Option<chrono::DateTime<chrono::Utc>>,
    },
}

/// What a shared journal answered to a claim on a cluster's delete (see
/// [`super::Journal::claim_delete`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteClaim {
    /// This caller deletes it: its intent is recorded, and it sends the delete.
    Owned(IntentId),
    /// Another caller's delete of this cluster is in flight (its lease live), or the provider
    /// accepted one within the lease: this caller sends none, and waits for the cluster to be
    /// gone like the other does.
    Held {
        /// Who deletes it (host and process id; no secret).
        owner: String,
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
/// ([`crate::ClusterClient::origin`]: endpoint and credentials) and the scope a name is
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

/// SHA-256 (hex) of `body` as compact JSON.
pub(crate) fn body_sha256(body: &serde_json::Value) -> String {
    use sha2::Digest as _;
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
