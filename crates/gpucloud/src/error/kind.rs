//! [`ErrorKind`]: the one list of failure kinds (and [`RetryKind`], why one may be retried), which the CLI's exit codes, the ledger's
//! records and the tests all read, so that a new kind cannot be forgotten by one of them.

use std::fmt;

/// What kind of failure an [`Error`](super::Error) is, without its data.
///
/// [`ErrorKind::as_str`] is stable: the ledger stores it, and scripts may match on it. A
/// transport failure is split by what is known of it (no connection, no answer in time, or a
/// broken answer), because the three call for different actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A request broke a documented rule; nothing was sent.
    Validation,
    /// The configuration is incomplete or malformed.
    Configuration,
    /// The provider rejected the credentials.
    Authentication,
    /// The cluster (or another resource) does not exist.
    NotFound,
    /// The request conflicts with the resource's state.
    Conflict,
    /// The account's balance, budget or quota does not cover the request.
    InsufficientFunds,
    /// The provider has no capacity for the request.
    NoCapacity,
    /// Nothing in the provider's catalog matches the request.
    NoMatchingOffering,
    /// Too many requests.
    RateLimited,
    /// An operation did not finish in time.
    Timeout,
    /// The provider does not document the operation.
    Unsupported,
    /// The cluster reached a state it will not leave by itself.
    ClusterFailed,
    /// Any other error answer from the provider.
    Api,
    /// No connection could be made (refused, DNS, TLS): nothing reached the provider.
    TransportConnect,
    /// The request got no answer in time.
    TransportTimeout,
    /// The connection broke after the request may have reached the provider.
    Transport,
    /// The provider answered with a body we cannot decode.
    Decode,
    /// The client's journal could not record the intent of a call.
    Journal,
    /// Another caller's create of the same name holds the name.
    NameClaimed,
    /// The answer was larger than the client's cap.
    ResponseTooLarge,
    /// The provider's API cannot delete a cluster, and the caller did not allow one.
    Undeletable,
    /// The name belongs to a cluster that a different request made.
    NameInUse,
    /// The name belongs to a cluster that gpucloud did not create.
    NameTaken,
    /// A created cluster's own answer states a price over the placement's ceiling.
    PriceAboveCeiling,
    /// A create made its cluster, but the journal could not record it.
    Unrecorded,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [Self; 25] = [
        Self::Validation,
        Self::Configuration,
        Self::Authentication,
        Self::NotFound,
        Self::Conflict,
        Self::InsufficientFunds,
        Self::NoCapacity,
        Self::NoMatchingOffering,
        Self::RateLimited,
        Self::Timeout,
        Self::Unsupported,
        Self::ClusterFailed,
        Self::Api,
        Self::TransportConnect,
        Self::TransportTimeout,
        Self::Transport,
        Self::Decode,
        Self::Journal,
        Self::NameClaimed,
        Self::ResponseTooLarge,
        Self::Undeletable,
        Self::NameInUse,
        Self::NameTaken,
        Self::PriceAboveCeiling,
        Self::Unrecorded,
    ];

    /// The kind's stable name (`not_found`, `no_capacity`, …).
    pub fn as_str(self) -> &'static str {
        self.facts().name
    }

    /// What this kind of failure means: the one table that placement (fail over, or stop)
    /// and the command line's exit codes read, so that a new kind is placed here and nowhere
    /// else. Whether a retry may help and whether the request may have had an effect depend
    /// on the answer too (its status): [`super::Error::retry_kind`] and
    /// [`super::Error::is_ambiguous`].
    pub fn facts(self) -> KindFacts {
        use FailureClass::{Local, Network, Provider, Request, Timeout};
        // name, refusal (failover), sent nothing, class
        let row = |name, refusal, sent_nothing, class| KindFacts {
            name,
            refusal,
            sent_nothing,
            class,
        };
        match self {
            Self::Validation => row("validation", true, true, Request),
            Self::Configuration => row("configuration", true, true, Request),
            Self::Authentication => row("authentication", false, false, Provider),
            Self::NotFound => row("not_found", false, false, Provider),
            Self::Conflict => row("conflict", false, false, Provider),
            Self::InsufficientFunds => row("insufficient_funds", true, false, Provider),
            Self::NoCapacity => row("no_capacity", true, false, Provider),
            Self::NoMatchingOffering => row("no_matching_offering", true, true, Provider),
            Self::RateLimited => row("rate_limited", false, false, Provider),
            Self::Timeout => row("timeout", false, false, Timeout),
            Self::Unsupported => row("unsupported", true, true, Provider),
            Self::ClusterFailed => row("cluster_failed", false, false, Timeout),
            Self::Api => row("api", false, false, Provider),
            Self::TransportConnect => row("transport_connect", false, false, Network),
            Self::TransportTimeout => row("transport_timeout", false, false, Timeout),
            Self::Transport => row("transport", false, false, Provider),
            Self::Decode => row("decode", false, false, Provider),
            Self::Journal => row("journal", false, true, Request),
            Self::NameClaimed => row("name_claimed", false, true, Provider),
            Self::ResponseTooLarge => row("response_too_large", false, false, Provider),
            Self::Undeletable => row("undeletable", true, true, Provider),
            Self::NameInUse => row("name_in_use", false, true, Provider),
            Self::NameTaken => row("name_taken", false, true, Provider),
            Self::PriceAboveCeiling => row("price_above_ceiling", false, false, Provider),
            Self::Unrecorded => row("unrecorded", false, false, Local),
        }
    }
}

/// One row of the kinds' table ([`ErrorKind::facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KindFacts {
    /// The stable name ([`ErrorKind::as_str`]).
    pub name: &'static str,
    /// A refusal that certainly created nothing, where another provider or region may well
    /// succeed (no capacity, funds or matching offering; a request the candidate cannot take):
    /// a placement goes on to the next candidate, unless the error is ambiguous.
    pub refusal: bool,
    /// Raised before anything was sent to create.
    pub sent_nothing: bool,
    /// Whose failure it is.
    pub class: FailureClass,
}

/// Whose failure an error is: what a command line's exit code says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureClass {
    /// The request, the configuration or the local journal: fix it and run again.
    Request,
    /// The provider refused or answered wrongly.
    Provider,
    /// Something did not finish in time (a wait, a request, a cluster that failed to start).
    Timeout,
    /// No connection could be made: the network or the address.
    Network,
    /// Our own side failed after the provider acted (the journal could not record a cluster
    /// that exists): keep track of what was made.
    Local,
}

/// As its stable name ([`ErrorKind::as_str`]).
impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a failed request may succeed when repeated (see [`super::Error::retry_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetryKind {
    /// The connection failed or timed out, or the request timed out (408).
    Transient,
    /// The provider asked us to slow down (429, or a keyed request still in progress).
    Throttling,
    /// The provider failed (500, 502, 503, 504).
    Server,
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    #[test]
    fn every_kind_has_its_own_stable_name() {
        use super::FailureClass;
        // A few rows of the table, exactly: what placement and exit codes act on.
        let facts = |k: ErrorKind| {
            let f = k.facts();
            (f.refusal, f.sent_nothing, f.class)
        };
        assert_eq!(
            facts(ErrorKind::NoCapacity),
            (true, false, FailureClass::Provider)
        );
        assert_eq!(
            facts(ErrorKind::Validation),
            (true, true, FailureClass::Request)
        );
        assert_eq!(
            facts(ErrorKind::Journal),
            (false, true, FailureClass::Request)
        );
        assert_eq!(
            facts(ErrorKind::TransportConnect),
            (false, false, FailureClass::Network)
        );
        assert_eq!(
            facts(ErrorKind::ClusterFailed),
            (false, false, FailureClass::Timeout)
        );
        let mut names: Vec<_> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        assert_eq!(ErrorKind::NotFound.to_string(), "not_found");
        assert_eq!(
            ErrorKind::NoMatchingOffering.as_str(),
            "no_matching_offering"
        );
    }
}
