//! What an [`Error`] means for the caller's next step: whether a retry may help and why
//! ([`RetryKind`], smithy-rs's classes), whether the request may have had an effect
//! (ambiguity), its kind, and the provider's answer it carries.

use std::time::Duration;

use super::{ApiError, Error, ErrorKind, RetryKind};

/// The [`ApiError`] of `$error` (an `&Error` or `&mut Error`), for every variant that carries
/// one: the list of those variants, written once.
macro_rules! api_error_of {
    ($error:expr) => {
        match $error {
            Error::Authentication(e)
            | Error::NotFound(e)
            | Error::Conflict(e)
            | Error::InsufficientFunds(e)
            | Error::NoCapacity(e)
            | Error::Api(e)
            | Error::RateLimited { error: e, .. } => Some(e),
            _ => None,
        }
    };
}

impl Error {
    /// Whether sending the same request again later may succeed. `false` means: change
    /// something first (the request, the credentials, the account).
    pub fn is_retryable(&self) -> bool {
        self.retry_kind().is_some()
    }

    /// Why a retry may help, as smithy-rs's standard retry strategy classifies failures; `None`
    /// for a failure a retry cannot mend.
    pub fn retry_kind(&self) -> Option<RetryKind> {
        if let Self::NotReady(failed) = self {
            return failed.error.retry_kind();
        }
        // The provider's error rules said so (see `ApiError::retry_hint`).
        if let Some(hint) = self.api_error().and_then(|e| e.retry_hint) {
            return Some(hint);
        }
        match self {
            Self::RateLimited { .. } => Some(RetryKind::Throttling),
            Self::Transport { .. } | Self::Timeout { .. } => Some(RetryKind::Transient),
            Self::Api(e) if e.status == 408 => Some(RetryKind::Transient),
            Self::Api(e) if matches!(e.status, 500 | 502 | 503 | 504) => Some(RetryKind::Server),
            Self::Decode(e) if e.status.is_some_and(|s| s >= 500) => Some(RetryKind::Server),
            _ => None,
        }
    }

    /// Whether the request may have reached the provider and had an effect that we did not see.
    /// Creating again after such an error could double a cluster: reconcile first.
    pub fn is_ambiguous(&self) -> bool {
        match self {
            Self::Transport { source, .. } => !source.is_connect(),
            Self::Timeout { .. } => true,
            // A redirect that was not followed (to another origin) may come after the
            // provider acted on the request, as a 303 after a POST does.
            Self::Api(e) => e.status >= 500 || (300..400).contains(&e.status),
            // A success body we cannot read may well mean the create happened.
            Self::Decode(_) | Self::ResponseTooLarge { .. } => true,
            Self::NotReady(failed) => failed.error.is_ambiguous(),
            _ => false,
        }
    }

    /// The HTTP status of the provider's answer, if there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Decode(e) => e.status,
            _ => self.api_error().map(|e| e.status),
        }
    }

    /// The provider's error answer, for every kind that carries one.
    pub fn api_error(&self) -> Option<&ApiError> {
        api_error_of!(self)
    }

    /// [`Self::api_error`], to change (the facade scrubs what the provider sent back).
    pub(crate) fn api_error_mut(&mut self) -> Option<&mut ApiError> {
        api_error_of!(self)
    }

    /// What kind of failure this is, without its data (see [`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Validation(_) => ErrorKind::Validation,
            Self::Configuration { .. } => ErrorKind::Configuration,
            Self::Authentication(_) => ErrorKind::Authentication,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Conflict(_) => ErrorKind::Conflict,
            Self::InsufficientFunds(_) => ErrorKind::InsufficientFunds,
            Self::NoCapacity(_) => ErrorKind::NoCapacity,
            Self::NoMatchingOffering { .. } => ErrorKind::NoMatchingOffering,
            Self::RateLimited { .. } => ErrorKind::RateLimited,
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::Unsupported { .. } => ErrorKind::Unsupported,
            Self::Undeletable { .. } => ErrorKind::Undeletable,
            Self::NameInUse { .. } => ErrorKind::NameInUse,
            Self::NameTaken { .. } => ErrorKind::NameTaken,
            Self::PriceAboveCeiling { .. } => ErrorKind::PriceAboveCeiling,
            Self::ClusterFailed { .. } => ErrorKind::ClusterFailed,
            Self::Api(_) => ErrorKind::Api,
            Self::Transport { source, .. } if source.is_timeout() => ErrorKind::TransportTimeout,
            Self::Transport { source, .. } if source.is_connect() => ErrorKind::TransportConnect,
            Self::Transport { .. } => ErrorKind::Transport,
            Self::Decode(_) => ErrorKind::Decode,
            Self::Journal(_) => ErrorKind::Journal,
            Self::NameClaimed { .. } => ErrorKind::NameClaimed,
            Self::ResponseTooLarge { .. } => ErrorKind::ResponseTooLarge,
            Self::NotReady(failed) => failed.error.kind(),
            Self::Unrecorded(_) => ErrorKind::Unrecorded,
        }
    }

    /// The `Retry-After` the provider sent with a throttling answer.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
