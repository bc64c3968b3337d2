//! Runcrate's error answers: the `{error: {code, message, details}}` envelope, and the two
//! answers its docs give a meaning of their own — a 503 on create ("refused for lack of
//! capacity, nothing was created") and the code `launch_refused` (final) are
//! [`Error::NoCapacity`]. A 503 on a read is an ordinary unavailable service, retried like any
//! other.

use std::time::Duration;

use gpucloud_runcrate::types;

use crate::cluster::ProviderKind;
use crate::error::{ApiError, Error, RetryKind};
use crate::providers::call::{ErrorEnvelope, ErrorRules, classify};

/// Runcrate's rules for error answers.
#[derive(Debug)]
pub(crate) struct Rules;

impl ErrorRules for Rules {
    const KIND: ProviderKind = ProviderKind::Runcrate;

    fn classify(mut api: ApiError, retry_after: Option<Duration>) -> Error {
        // The first request under this idempotency key is still being worked on: the same
        // request, repeated after a pause, gets its answer.
        if api.status == 409 && api.reason.as_deref() == Some("idempotency_in_progress") {
            api.retry_hint = Some(RetryKind::Throttling);
        }
        let refused_create = api.status == 503 && api.operation == "create_cluster";
        if refused_create || api.code.as_deref() == Some("launch_refused") {
            Error::NoCapacity(api)
        } else {
            classify(api, retry_after)
        }
    }
}

impl ErrorEnvelope for types::ErrorEnvelope {
    fn code(&self) -> Option<String> {
        Some(self.error.code.clone())
    }

    fn message(&self) -> Option<String> {
        Some(self.error.message.clone())
    }

    fn reason(&self) -> Option<String> {
        self.error.details.as_ref().and_then(|d| d.reason.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::call::tests::{api, kind};

    #[test]
    fn capacity_refusals_are_runcrate_rules() {
        let runcrate =
            |status, code| Rules::classify(api(ProviderKind::Runcrate, status, code), None);
        assert_eq!(kind(&runcrate(503, None)), "NoCapacity");
        assert_eq!(kind(&runcrate(502, Some("launch_refused"))), "NoCapacity");
        assert_eq!(kind(&runcrate(502, None)), "Api");
        assert_eq!(kind(&runcrate(402, None)), "InsufficientFunds");
        assert_eq!(kind(&runcrate(409, None)), "Conflict");
        let mut read = api(ProviderKind::Runcrate, 503, None);
        read.operation = "get_cluster";
        assert_eq!(kind(&Rules::classify(read, None)), "Api");
    }

    #[test]
    fn a_keyed_create_still_in_progress_is_worth_repeating() {
        let mut in_progress = api(ProviderKind::Runcrate, 409, Some("conflict"));
        in_progress.reason = Some("idempotency_in_progress".into());
        let error = Rules::classify(in_progress, None);
        assert_eq!(kind(&error), "Conflict");
        assert_eq!(error.retry_kind(), Some(RetryKind::Throttling));
        let other = Rules::classify(api(ProviderKind::Runcrate, 409, Some("conflict")), None);
        assert_eq!(other.retry_kind(), None);
    }
}
