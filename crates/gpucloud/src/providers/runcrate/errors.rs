//! Runcrate's error answers: the `{error: {code, message, details}}` envelope (and the three
//! other shapes its Python SDK reads), and the two
//! answers its docs give a meaning of their own — a 503 on create ("refused for lack of
//! capacity, nothing was created") and the code `launch_refused` (final) are
//! [`Error::NoCapacity`]. A 503 on a read is an ordinary unavailable service, retried like any
//! other.

use std::time::Duration;

use gpucloud_runcrate::{operation_ids, types};

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
        let refused_create = api.status == 503 && api.operation == operation_ids::CREATE_CLUSTER;
        if refused_create || api.code.as_deref() == Some("launch_refused") {
            Error::NoCapacity(api)
        } else {
            classify(api, retry_after)
        }
    }
}

/// The four shapes Runcrate's Python SDK reads, in its order: the documented
/// `{error: {code, message, details}}`, `{error: "text"}`, `{message, code}` and `{detail}`.
impl ErrorEnvelope for types::ErrorEnvelope {
    fn code(&self) -> Option<String> {
        match &self.error {
            Some(types::ErrorEnvelopeError::ErrorBody(body)) if body.code.is_some() => {
                body.code.clone()
            }
            _ => match &self.code {
                Some(serde_json::Value::String(code)) => Some(code.clone()),
                Some(serde_json::Value::Number(code)) => Some(code.to_string()),
                _ => None,
            },
        }
    }

    fn message(&self) -> Option<String> {
        let documented = match &self.error {
            Some(types::ErrorEnvelopeError::ErrorBody(body)) => body.message.clone(),
            Some(types::ErrorEnvelopeError::String(text)) => Some(text.clone()),
            None => None,
        };
        documented
            .or_else(|| self.message.clone())
            .or_else(|| match &self.detail {
                Some(serde_json::Value::String(text)) => Some(text.clone()),
                _ => None,
            })
    }

    fn reason(&self) -> Option<String> {
        match &self.error {
            Some(types::ErrorEnvelopeError::ErrorBody(body)) => {
                body.details.as_ref().and_then(|d| d.reason.clone())
            }
            _ => None,
        }
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

    #[test]
    fn every_shape_the_python_sdk_reads_gives_its_code_and_message() {
        let read = |body: serde_json::Value| {
            let envelope: types::ErrorEnvelope = serde_json::from_value(body).unwrap();
            (envelope.code(), envelope.message(), envelope.reason())
        };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            read(
                serde_json::json!({"error": {"code": "conflict", "message": "busy",
                "details": {"reason": "idempotency_in_progress"}}})
            ),
            (
                some("conflict"),
                some("busy"),
                some("idempotency_in_progress")
            )
        );
        assert_eq!(
            read(serde_json::json!({"error": "Invalid API key"})),
            (None, some("Invalid API key"), None)
        );
        assert_eq!(
            read(serde_json::json!({"message": "Key in use", "code": "conflict"})),
            (some("conflict"), some("Key in use"), None)
        );
        assert_eq!(
            read(serde_json::json!({"message": "slow down", "code": 429})),
            (some("429"), some("slow down"), None)
        );
        assert_eq!(
            read(serde_json::json!({"detail": "Not authenticated"})),
            (None, some("Not authenticated"), None)
        );
        // FastAPI's validation list is not a message; the raw body still keeps it.
        assert_eq!(
            read(serde_json::json!({"detail": [{"msg": "required"}]})),
            (None, None, None)
        );
        // The documented object without a code: the top-level one, if any.
        assert_eq!(
            read(serde_json::json!({"error": {"message": "x"}, "code": "late"})),
            (some("late"), some("x"), None)
        );
    }
}
