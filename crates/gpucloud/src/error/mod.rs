//! One error type for every provider, with kinds a caller can act on.
//!
//! Modelled on aws-sdk-rust (RFC 0022): a `#[non_exhaustive]` enum of actionable kinds, a one-line
//! `Display` that does not repeat its source, the source chain through `Error::source`, and
//! [`Error::is_retryable`] on every error. No variant ever holds a credential: transport errors
//! are stored without their URL and provider bodies never contain ours.

use std::time::Duration;

use crate::cluster::ProviderKind;

mod classify;
mod detail;
mod difference;
mod journal;
mod kind;
mod not_ready;

pub(crate) use detail::excerpt;
pub use detail::{ApiError, DecodeError, ValidationError};
pub use difference::FieldDifference;
use difference::differences_in_words;
pub use journal::JournalError;
pub use kind::{ErrorKind, FailureClass, KindFacts, RetryKind};
pub use not_ready::{Cleanup, NotReady};

/// Everything that can go wrong in `gpucloud`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A request broke a documented rule; nothing was sent.
    #[error("invalid request: {0}")]
    Validation(#[from] ValidationError),

    /// The configuration is incomplete or malformed (names the variable or setting).
    #[error("configuration: {setting}: {problem}")]
    Configuration {
        /// The environment variable or `with_*` setting at fault.
        setting: String,
        /// What is wrong with it (never its value).
        problem: String,
    },

    /// The provider rejected the credentials (HTTP 401/403).
    #[error("authentication failed: {0}")]
    Authentication(ApiError),

    /// The cluster (or another resource) does not exist.
    #[error("not found: {0}")]
    NotFound(ApiError),

    /// The request conflicts with the resource's state (HTTP 409), e.g. a create with the same
    /// idempotency key still in progress.
    #[error("conflict: {0}")]
    Conflict(ApiError),

    /// The account's balance, budget or quota does not cover the request (HTTP 402).
    #[error("insufficient funds or quota: {0}")]
    InsufficientFunds(ApiError),

    /// The provider has no capacity for the request right now; nothing was created. Not retried
    /// automatically: capacity rarely returns within a backoff interval, and Runcrate documents
    /// its `launch_refused` as final. Try later, another offer or another provider.
    #[error("no capacity: {0}")]
    NoCapacity(ApiError),

    /// Nothing in the provider's catalog matches the request (GPU model, region, size, stack,
    /// billing or price ceiling); nothing was sent. `nearby` lists what the catalog has
    /// instead (other regions with that GPU, allowed node counts, other models).
    #[error(
        "no {provider} offering matches {wanted}{}",
        if nearby.is_empty() { String::new() } else { format!("; available: {}", nearby.join("; ")) }
    )]
    NoMatchingOffering {
        /// The provider.
        provider: ProviderKind,
        /// What was asked for, in words.
        wanted: String,
        /// What the catalog offers near it.
        nearby: Vec<String>,
    },

    /// Too many requests (HTTP 429); `retry_after` is the provider's `Retry-After`, if sent.
    #[error("rate limited{}: {error}", retry_after.map(|d| format!(" (retry after {})", for_people(d))).unwrap_or_default())]
    RateLimited {
        /// The provider's answer.
        error: ApiError,
        /// How long the provider asked us to wait.
        retry_after: Option<Duration>,
    },

    /// An operation did not finish in time (a request timeout, or a waiter's maximum wait).
    #[error("timed out after {}: {what}", for_people(*after))]
    Timeout {
        /// What timed out.
        what: String,
        /// How long we waited.
        after: Duration,
    },

    /// The provider does not document this operation (e.g. deleting a Runcrate cluster).
    #[error("{provider} does not support {operation}")]
    Unsupported {
        /// The provider.
        provider: ProviderKind,
        /// The operation.
        operation: &'static str,
    },

    /// The provider's API cannot delete a cluster, and the caller did not allow a cluster that
    /// cannot be: once started, it bills until a person stops it in the provider's console
    /// (see [`crate::Placement::allow_undeletable`]). Nothing was sent.
    #[error(
        "{provider}'s API cannot delete a cluster: one made there bills until it is stopped in \
         {console}"
    )]
    Undeletable {
        /// The provider.
        provider: ProviderKind,
        /// Where a person stops its clusters.
        console: &'static str,
    },

    /// The name already belongs to a cluster that a different request made (another size,
    /// GPU, region…): the cluster found is not the one asked for, so it is not returned as if
    /// it were. Nothing was sent. Use another name, or send the earlier request again.
    #[error(
        "the name {name:?} is taken by {provider} cluster {cluster}, made by a different \
         request{}; nothing was sent",
        differences_in_words(differences)
    )]
    NameInUse {
        /// The provider.
        provider: ProviderKind,
        /// The cluster name.
        name: String,
        /// The cluster that has it.
        cluster: crate::cluster::ClusterId,
        /// Where the two requests differ, field by field (empty when the earlier request's
        /// body is not on record, only its hash).
        differences: Vec<FieldDifference>,
    },

    /// A cluster of the name exists that gpucloud did not create (a teammate's, one made in the
    /// console, one of a run without a journal): it is not ours, so it is neither returned as
    /// this create's result nor recorded as ours, and nothing was sent. Use another name, or
    /// adopt it ([`crate::ClusterSpec::adopt`]; only a live cluster can be adopted).
    #[error(
        "{provider} already has a cluster named {name:?} ({cluster}, {state}) that gpucloud did \
         not create; nothing was sent{}",
        if *adoptable { "" } else { ", and a cluster in that state cannot be adopted" }
    )]
    NameTaken {
        /// The provider.
        provider: ProviderKind,
        /// The cluster name.
        name: String,
        /// The cluster that has it.
        cluster: crate::cluster::ClusterId,
        /// Its state, in words.
        state: String,
        /// Whether adopting it would have been allowed (it is live: not failed or deleting).
        adoptable: bool,
    },

    /// The provider's own answer about a cluster a placement created states a price over the
    /// placement's ceiling (the catalog's price, which the ceiling was checked against, was
    /// not what the cluster costs). A cluster this create started was deleted at once and the
    /// delete verified, unless `delete_error` says why not: then it may be billing.
    #[error(
        "{provider} cluster {cluster} costs {per_hour} {currency}/h by the provider's own answer, \
         over the ceiling of {ceiling} {currency}/h; {}",
        match (deleted, delete_error) {
            (true, _) => "it was deleted, and the delete verified".to_string(),
            (false, Some(why)) => format!("deleting it failed ({why}): it may be billing"),
            (false, None) => "it was not started by this create, and is left as it was".to_string(),
        }
    )]
    PriceAboveCeiling {
        /// The provider.
        provider: ProviderKind,
        /// The cluster.
        cluster: crate::cluster::ClusterId,
        /// The price per hour its answer states.
        per_hour: f64,
        /// The ceiling.
        ceiling: f64,
        /// The currency of both.
        currency: String,
        /// Whether it was deleted (and the delete verified).
        deleted: bool,
        /// Why the delete of a cluster this create started failed, if it did.
        delete_error: Option<String>,
    },

    /// The cluster reached a state it will not leave by itself while we waited for it to be ready.
    #[error("cluster {cluster_id} on {provider} failed: {reason}")]
    ClusterFailed {
        /// The provider.
        provider: ProviderKind,
        /// The cluster.
        cluster_id: String,
        /// The state and the provider's reason.
        reason: String,
    },

    /// Any other error answer from the provider.
    #[error("{0}")]
    Api(ApiError),

    /// The request never got an HTTP answer (connection refused or reset, DNS, TLS, timeout).
    #[error("transport error calling {operation} on {provider}")]
    Transport {
        /// The provider.
        provider: ProviderKind,
        /// The operation id.
        operation: &'static str,
        /// reqwest's error, with the URL removed (it may carry E2E's `apikey`).
        #[source]
        source: reqwest::Error,
    },

    /// The provider answered with a body we cannot decode.
    #[error("{0}")]
    Decode(DecodeError),

    /// The client's journal could not record the intent of a call; nothing was sent. The
    /// journal's error is the source, with what caused it (the database's error) below it.
    #[error("journal: {0}")]
    Journal(#[source] JournalError),

    /// Another caller's create of the same name, recorded in the shared journal, holds the
    /// name: it was still in flight when this create stopped waiting for it, or it stopped
    /// with its outcome unknown in a way this create cannot reconcile. Nothing was sent.
    #[error("another create of {name:?} holds the name ({reason}); nothing was sent")]
    NameClaimed {
        /// The cluster name.
        name: String,
        /// Who holds it and why this create did not go on.
        reason: String,
    },

    /// The provider's answer was longer than the client's cap
    /// ([`crate::ClientSettings::max_response_bytes`]); it was not read further.
    #[error("the answer to {operation} from {provider} is larger than the {limit}-byte limit")]
    ResponseTooLarge {
        /// The provider.
        provider: ProviderKind,
        /// The operation id.
        operation: &'static str,
        /// The cap, in bytes.
        limit: usize,
    },

    /// A cluster was created (or found) but did not become ready
    /// ([`crate::ClusterClient::create_and_wait`]): the wait's error, the cluster, and what
    /// was done about it ([`Cleanup`]). Its [`Error::kind`] is the wait error's.
    #[error(transparent)]
    NotReady(Box<NotReady>),

    /// A create made (or found) its cluster, but the journal could not record the outcome (a
    /// full disk, a lost database): the cluster may be billing where no sweep of that journal
    /// will see it. The create is not retried; the cluster is here, to be kept track of or
    /// stopped.
    #[error(
        "{} cluster {} ({:?}) was {} but the journal could not record it ({}): it may be billing, \
         and no sweep of that journal knows it",
        .0.created.cluster.provider,
        .0.created.cluster.id,
        .0.created.cluster.name,
        match .0.created.outcome {
            crate::cluster::CreateOutcome::Created
            | crate::cluster::CreateOutcome::CreatedReconciled => "created",
            _ => "found",
        },
        .0.error
    )]
    Unrecorded(Box<Unrecorded>),
}

/// [`Error::Unrecorded`]: the cluster a create made, and why the journal did not record it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Unrecorded {
    /// What the create made.
    pub created: crate::cluster::Created,
    /// The journal's error.
    pub error: JournalError,
}

/// `d` rounded for people: `0.3s` and `2.0s` under ten seconds, whole seconds under a minute
/// (`42s`), and humantime's words beyond (`1h 2m 3s`); never `2.005376586s`.
pub(crate) fn for_people(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        humantime::format_duration(Duration::from_secs(d.as_secs())).to_string()
    }
}

/// Shorthand used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_rounded_for_people() {
        let timeout = |after: Duration| {
            Error::Timeout {
                what: "waiting".into(),
                after,
            }
            .to_string()
        };
        assert_eq!(
            timeout(Duration::from_nanos(2_005_376_586)),
            "timed out after 2.0s: waiting"
        );
        assert_eq!(
            timeout(Duration::from_millis(300)),
            "timed out after 0.3s: waiting"
        );
        assert_eq!(
            timeout(Duration::from_millis(42_700)),
            "timed out after 42s: waiting"
        );
        assert_eq!(
            timeout(Duration::from_secs(3723)),
            "timed out after 1h 2m 3s: waiting"
        );
    }

    fn api(status: u16) -> ApiError {
        ApiError {
            provider: ProviderKind::Runcrate,
            operation: "create_cluster",
            status,
            code: Some("BUDGET_REACHED".into()),
            message: Some("monthly budget reached".into()),
            reason: None,
            retry_hint: None,
            body: "{}".into(),
        }
    }

    #[test]
    fn differences_between_two_requests_are_listed_field_by_field() {
        let earlier = serde_json::json!({
            "name": "a", "num_gpus": 2, "gpu_type": "H100_SXM",
            "volume": { "size_tib": 1, "a/b": 1 }, "old": true
        });
        let now = serde_json::json!({
            "name": "a", "num_gpus": 4, "gpu_type": "B200",
            "volume": { "size_tib": 1, "a/b": 2 }, "new": [1]
        });
        let found = FieldDifference::between(&earlier, &now);
        let shown: Vec<(&str, Option<&str>, Option<&str>)> = found
            .iter()
            .map(|d| {
                (
                    d.field.as_str(),
                    d.earlier.as_deref(),
                    d.requested.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("/gpu_type", Some("\"H100_SXM\""), Some("\"B200\"")),
                ("/new", None, Some("[1]")),
                ("/num_gpus", Some("2"), Some("4")),
                ("/old", Some("true"), None),
                ("/volume/a~1b", Some("1"), Some("2")),
            ]
        );
        assert!(FieldDifference::between(&earlier, &earlier).is_empty());
        let error = Error::NameInUse {
            provider: ProviderKind::Together,
            name: "a".into(),
            cluster: crate::cluster::ClusterId::new("c-1"),
            differences: found[2..3].to_vec(),
        };
        assert_eq!(
            error.to_string(),
            "the name \"a\" is taken by together cluster c-1, made by a different request \
             (/num_gpus: 2 then, 4 now); nothing was sent"
        );
    }

    #[test]
    fn display_is_one_line_with_provider_status_code_and_message() {
        assert_eq!(
            Error::InsufficientFunds(api(402)).to_string(),
            "insufficient funds or quota: runcrate create_cluster answered HTTP 402 [BUDGET_REACHED]: monthly budget reached"
        );
        let limited = Error::RateLimited {
            error: api(429),
            retry_after: Some(Duration::from_secs(3)),
        };
        assert!(
            limited
                .to_string()
                .starts_with("rate limited (retry after 3.0s): ")
        );
    }

    #[test]
    fn retryability_follows_the_kind() {
        assert!(
            Error::RateLimited {
                error: api(429),
                retry_after: None
            }
            .is_retryable()
        );
        assert!(Error::Api(api(503)).is_retryable());
        assert!(!Error::Api(api(400)).is_retryable());
        assert!(!Error::InsufficientFunds(api(402)).is_retryable());
        assert!(
            !Error::Unsupported {
                provider: ProviderKind::Runcrate,
                operation: "delete"
            }
            .is_retryable()
        );
        let mut in_progress = api(409);
        in_progress.retry_hint = Some(RetryKind::Throttling);
        assert!(Error::Conflict(in_progress).is_retryable());
        assert!(!Error::Conflict(api(409)).is_retryable());
    }

    #[test]
    fn ambiguity_only_where_the_request_may_have_landed() {
        assert!(Error::Api(api(502)).is_ambiguous());
        assert!(!Error::Api(api(429)).is_ambiguous());
        assert!(!Error::NotFound(api(404)).is_ambiguous());
    }

    #[test]
    fn excerpt_cuts_on_char_boundaries() {
        assert_eq!(excerpt("ééé", 3), "é…");
        assert_eq!(excerpt("abc", 3), "abc");
    }
}
