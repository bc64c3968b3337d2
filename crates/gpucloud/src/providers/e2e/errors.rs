//! E2E's error answers. Its MyAccount API answers in several shapes — the
//! `{code, data, errors, message}` envelope, Django's `{detail}`, `{status_code}` — and
//! sometimes reports a failure inside an HTTP 200, with the real status in the envelope's
//! `code` or `status_code` (or only a `detail`, or `errors: true`): such an answer is an error
//! with that status, whichever way it arrives.

use std::time::Duration;

use gpucloud_e2e::types;

use super::PROVIDER;
use crate::cluster::ProviderKind;
use crate::error::{ApiError, Error};
use gpucloud_core::Scrubber;

use crate::providers::call::{ErrorEnvelope, ErrorRules, classify_by_words, scrub};

/// E2E's rules for error answers.
#[derive(Debug)]
pub(crate) struct Rules;

impl ErrorRules for Rules {
    const KIND: ProviderKind = ProviderKind::E2e;

    fn classify(mut api: ApiError, retry_after: Option<Duration>) -> Error {
        if let Some(code) = error_code_in_success(api.status, api.code.as_deref()) {
            api.status = code;
        }
        // E2E documents no code for "no capacity" either.
        classify_by_words(api, retry_after)
    }
}

/// The envelope every E2E answer comes in, as [`check_code`] reads it.
pub(super) trait Envelope: serde::Serialize {
    /// The envelope's `code`.
    fn code(&self) -> Option<i64>;
    /// The envelope's `message`.
    fn message(&self) -> &Option<String>;
}

/// [`Envelope`] for the generated answer types, which all carry `code` and `message`.
macro_rules! envelopes {
    ($($answer:ty),* $(,)?) => {$(
        impl Envelope for $answer {
            fn code(&self) -> Option<i64> {
                self.code
            }
            fn message(&self) -> &Option<String> {
                &self.message
            }
        }
    )*};
}

envelopes!(
    types::ClusterActionResponse,
    types::ClusterListResponse,
    types::ClusterResponse,
    types::DeleteClusterResponse,
    types::DeploymentImageListResponse,
    types::PlanListResponse,
);

/// The error status an HTTP 2xx answer carries in its `code`, if it carries one.
fn error_code_in_success(status: u16, code: Option<&str>) -> Option<u16> {
    let code = code?.trim().parse::<u16>().ok()?;
    ((200..300).contains(&status) && (400..600).contains(&code)).then_some(code)
}

/// Checks a decoded 2xx envelope the way E2E's own CLI does (e2ectl 0.6.1,
/// `buildFallbackApiError`): `code` or `status_code` ≥ 400, a non-empty `detail` or
/// `errors: true` make it an error. Its status is that code, else the answer's 200.
pub(super) fn check_code(
    scrubber: &Scrubber,
    operation: &'static str,
    code: Option<i64>,
    message: &Option<String>,
    envelope: &impl serde::Serialize,
) -> Result<(), Error> {
    let body = serde_json::to_value(envelope).unwrap_or_default();
    let error_code = |value: Option<i64>| value.filter(|code| *code >= 400);
    let status_code = error_code(body.get("status_code").and_then(serde_json::Value::as_i64));
    let detail = body
        .get("detail")
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|detail| !detail.is_empty());
    let errors_flag = body.get("errors") == Some(&serde_json::Value::Bool(true));
    let status = match error_code(code).or(status_code) {
        Some(code) => code,
        None if detail.is_some() || errors_flag => 200,
        None => return Ok(()),
    };
    Err(scrub(
        Rules::classify(
            ApiError {
                provider: PROVIDER,
                operation,
                status: u16::try_from(status).unwrap_or(u16::MAX),
                code: Some(status.to_string()),
                message: with_field_errors(
                    message.clone().or_else(|| detail.map(str::to_string)),
                    body.get("errors"),
                ),
                reason: None,
                retry_hint: None,
                body: serde_json::to_string(envelope).unwrap_or_default(),
            },
            None,
        ),
        scrubber,
    ))
}

impl ErrorEnvelope for types::E2eError {
    fn code(&self) -> Option<String> {
        self.code.or(self.status_code).map(|c| c.to_string())
    }

    /// The message, with every field error the answer lists (`errors: {"image_version_id":
    /// ["Invalid image version."]}`): the field and its rule are what a person fixes.
    fn message(&self) -> Option<String> {
        with_field_errors(
            self.message.clone().or_else(|| self.detail.clone()),
            self.errors.as_ref(),
        )
    }
}

/// `message` with the field errors of `errors` after it, in parentheses (see
/// [`field_errors`]).
fn with_field_errors(
    message: Option<String>,
    errors: Option<&serde_json::Value>,
) -> Option<String> {
    let fields = errors.map(field_errors).unwrap_or_default();
    match (message, fields.is_empty()) {
        (message, true) => message,
        (None, false) => Some(fields.join("; ")),
        (Some(message), false) => Some(format!("{message} ({})", fields.join("; "))),
    }
}

/// `field: message` for each field of E2E's `errors` object (Django REST framework's shape:
/// a list of messages per field, or one message), by field name; at most 20.
fn field_errors(errors: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let Value::Object(fields) = errors else {
        return Vec::new();
    };
    let text = |value: &Value| match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // By field name whatever order the map keeps (serde_json's `preserve_order`, which a
    // program may enable, keeps the answer's).
    let mut fields: Vec<_> = fields.iter().collect();
    fields.sort_by_key(|(field, _)| *field);
    fields
        .into_iter()
        .take(20)
        .map(|(field, value)| {
            let said = match value {
                Value::Array(messages) => messages.iter().map(text).collect::<Vec<_>>().join(" "),
                other => text(other),
            };
            format!("{field}: {said}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::call::tests::{api, kind};

    #[test]
    fn field_errors_are_part_of_the_message() {
        let answer: types::E2eError = serde_json::from_value(serde_json::json!({
            "code": 400,
            "message": "Bad Request",
            "errors": {
                "image_version_id": ["Invalid image version."],
                "sku_id": ["This field is required.", "Must be positive."],
                "name": "Too long."
            }
        }))
        .unwrap();
        assert_eq!(
            answer.message().as_deref(),
            Some(
                "Bad Request (image_version_id: Invalid image version.; name: Too long.; sku_id: \
                 This field is required. Must be positive.)"
            )
        );
        let bare: types::E2eError =
            serde_json::from_value(serde_json::json!({"errors": {"x": ["y"]}})).unwrap();
        assert_eq!(bare.message().as_deref(), Some("x: y"));
        let none: types::E2eError =
            serde_json::from_value(serde_json::json!({"message": "m", "errors": {}})).unwrap();
        assert_eq!(none.message().as_deref(), Some("m"));
    }

    #[test]
    fn an_error_code_inside_a_success_is_that_error() {
        let e2e = |status, code| Rules::classify(api(ProviderKind::E2e, status, code), None);
        let error = e2e(200, Some("404"));
        assert_eq!(
            (kind(&error), error.status()),
            ("NotFound".into(), Some(404))
        );
        assert_eq!(e2e(200, Some("503")).status(), Some(503));
        assert_eq!(
            e2e(200, Some("200")).status(),
            Some(200),
            "a success code stays"
        );
        assert_eq!(
            e2e(200, Some("700")).status(),
            Some(200),
            "not an HTTP error code"
        );
        assert_eq!(
            e2e(500, Some("404")).status(),
            Some(500),
            "only inside a 2xx"
        );
        assert_eq!(e2e(200, None).status(), Some(200));
    }

    #[test]
    fn check_code_accepts_successes_and_classifies_errors() {
        assert!(check_code(&Scrubber::default(), "get_cluster", Some(200), &None, &()).is_ok());
        assert!(check_code(&Scrubber::default(), "get_cluster", None, &None, &()).is_ok());
        let error = check_code(
            &Scrubber::default(),
            "get_cluster",
            Some(401),
            &Some("no".into()),
            &(),
        )
        .unwrap_err();
        assert_eq!(kind(&error), "Authentication");
    }

    #[test]
    fn a_success_with_the_cli_s_other_failure_signals_is_an_error() {
        let check = |body: serde_json::Value| {
            check_code(&Scrubber::default(), "get_cluster", None, &None, &body)
        };
        let error = check(serde_json::json!({"status_code": 404, "message": "x"})).unwrap_err();
        assert_eq!(
            (kind(&error), error.status()),
            ("NotFound".into(), Some(404))
        );
        let error = check(serde_json::json!({"detail": "Invalid token."})).unwrap_err();
        assert_eq!((kind(&error), error.status()), ("Api".into(), Some(200)));
        assert!(format!("{error}").contains("Invalid token."), "{error}");
        assert_eq!(
            check(serde_json::json!({"errors": true}))
                .unwrap_err()
                .status(),
            Some(200)
        );
        for fine in [
            serde_json::json!({"code": 200, "errors": {}, "detail": ""}),
            serde_json::json!({"status_code": 200, "detail": null, "errors": false}),
        ] {
            assert!(check(fine.clone()).is_ok(), "{fine}");
        }
    }
}
