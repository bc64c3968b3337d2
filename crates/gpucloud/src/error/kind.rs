//! [`ErrorKind`]: the one list of failure kinds, which the CLI's exit codes, the ledger's
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
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [Self; 24] = [
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
    ];

    /// The kind's stable name (`not_found`, `no_capacity`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Validation => "validation",
            Self::Configuration => "configuration",
            Self::Authentication => "authentication",
            Self::NotFound => "not_found",
            Self::Conflict => "conflict",
            Self::InsufficientFunds => "insufficient_funds",
            Self::NoCapacity => "no_capacity",
            Self::NoMatchingOffering => "no_matching_offering",
            Self::RateLimited => "rate_limited",
            Self::Timeout => "timeout",
            Self::Unsupported => "unsupported",
            Self::ClusterFailed => "cluster_failed",
            Self::Api => "api",
            Self::TransportConnect => "transport_connect",
            Self::TransportTimeout => "transport_timeout",
            Self::Transport => "transport",
            Self::Decode => "decode",
            Self::Journal => "journal",
            Self::NameClaimed => "name_claimed",
            Self::ResponseTooLarge => "response_too_large",
            Self::Undeletable => "undeletable",
            Self::NameInUse => "name_in_use",
            Self::NameTaken => "name_taken",
            Self::PriceAboveCeiling => "price_above_ceiling",
        }
    }
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

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    #[test]
    fn every_kind_has_its_own_stable_name() {
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
