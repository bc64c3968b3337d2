//! Runcrate's error answers: `{"error": {"code", "message", "details"}}` on every 4xx/5xx (the
//! docs page's seven error examples), with the codes its SDKs know (`not_found`,
//! `rate_limited`, `BUDGET_REACHED`, …) and `details.reason` for the idempotency conflict.

use serde_json::{Value, json};

use crate::credentials::{RUNCRATE_API_KEY, bearer};
use crate::openapi::request::{FieldError, Part};
use crate::reply::Reply;

pub(crate) fn error(status: u16, code: &str, message: impl Into<String>, details: Value) -> Reply {
    Reply::json(
        status,
        json!({"error": {"code": code, "message": message.into(), "details": details}}),
    )
}

/// `Authorization: Bearer rc_live_…` or 401.
pub(crate) fn authenticate(headers: &http::HeaderMap) -> Result<(), Reply> {
    match bearer(headers) {
        Some(RUNCRATE_API_KEY) => Ok(()),
        Some(_) => Err(error(401, "unauthorized", "Invalid API key.", json!({}))),
        None => Err(error(
            401,
            "unauthorized",
            "Missing API key: send Authorization: Bearer rc_live_…",
            json!({}),
        )),
    }
}

/// 400 for malformed requests (bad JSON, bad parameters or headers), 422 for a body that
/// parses but breaks the schema, as the spec's responses describe them.
pub(crate) fn invalid(errors: &[FieldError]) -> Reply {
    let body_only = errors.iter().all(|e| e.part == Part::Body);
    let (status, code) = if body_only {
        (422, "validation_error")
    } else {
        (400, "bad_request")
    };
    let first = errors.first();
    let message = first.map_or_else(String::new, |e| format!("{}: {}", e.field, e.message));
    let fields: Vec<Value> = errors
        .iter()
        .map(|e| json!({"field": e.field, "message": e.message}))
        .collect();
    error(
        status,
        code,
        message,
        json!({"field": first.map(|e| e.field.clone()), "errors": fields}),
    )
}

/// A business rule broken by one body field (422).
pub(crate) fn bad_field(field: &str, message: impl Into<String>) -> Reply {
    invalid(&[FieldError {
        part: Part::Body,
        field: field.into(),
        message: message.into(),
    }])
}

pub(crate) fn not_found(what: &str, id: &str) -> Reply {
    error(
        404,
        "not_found",
        format!("{what} {id:?} not found"),
        json!({}),
    )
}

pub(crate) fn no_route(path_exists: bool) -> Reply {
    if path_exists {
        error(405, "method_not_allowed", "Method not allowed", json!({}))
    } else {
        error(404, "not_found", "No such endpoint", json!({}))
    }
}

/// The error a fault answers with `status`.
pub(crate) fn status(status: u16) -> Reply {
    let (code, message) = match status {
        429 => (
            "rate_limited",
            "Too many requests; retry after the Retry-After delay.",
        ),
        503 => (
            "no_capacity",
            "No capacity right now; nothing was created. Retry later.",
        ),
        502 | 504 => (
            "upstream_error",
            "An upstream service did not answer in time.",
        ),
        400..=499 => ("bad_request", "The request was refused."),
        _ => ("internal_error", "Internal server error."),
    };
    error(status, code, message, json!({}))
}
