//! E2E's answers, in every shape its MyAccount API uses: the documented envelope
//! `{code, data, errors, message}` (400s map each field to its messages, Django REST framework
//! style), the documented `{code: 401, message: "Unauthorized access."}`, and DRF's bare
//! `{detail}`, which E2E's own command line (`e2ectl`) also handles.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::credentials::{E2E_API_KEY, E2E_AUTH_TOKEN, bearer};
use crate::openapi::request::FieldError;
use crate::reply::Reply;

/// The success envelope.
pub(crate) fn ok(code: u16, data: Value, message: &str) -> Reply {
    Reply::json(
        code,
        json!({"code": code, "data": data, "errors": {}, "message": message}),
    )
}

/// The error envelope.
pub(crate) fn error(code: u16, errors: Value, message: impl Into<String>) -> Reply {
    Reply::json(
        code,
        json!({"code": code, "errors": errors, "message": message.into()}),
    )
}

/// Both credentials: the `apikey` query parameter and the bearer token. No token at all gets
/// DRF's `{detail}`; a wrong or missing key or token gets the documented 401 envelope.
pub(crate) fn authenticate(
    headers: &http::HeaderMap,
    query: &[(String, String)],
) -> Result<(), Reply> {
    let Some(token) = bearer(headers) else {
        return Err(Reply::json(
            401,
            json!({"detail": "Authentication credentials were not provided."}),
        ));
    };
    let key = query
        .iter()
        .find(|(k, _)| k == "apikey")
        .map(|(_, v)| v.as_str());
    if token == E2E_AUTH_TOKEN && key == Some(E2E_API_KEY) {
        Ok(())
    } else {
        Err(Reply::json(
            401,
            json!({"code": 401, "message": "Unauthorized access."}),
        ))
    }
}

/// 400 with each field's messages.
pub(crate) fn invalid(errors: &[FieldError]) -> Reply {
    let mut fields: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for error in errors {
        fields.entry(&error.field).or_default().push(&error.message);
    }
    error(400, json!(fields), "Bad Request")
}

/// 400 naming one field.
pub(crate) fn bad_field(field: &str, message: impl Into<String>) -> Reply {
    error(400, json!({ field: [message.into()] }), "Bad Request")
}

pub(crate) fn not_found(what: &str) -> Reply {
    error(404, json!({}), format!("{what} not found."))
}

pub(crate) fn no_route(path_exists: bool) -> Reply {
    if path_exists {
        Reply::json(405, json!({"detail": "Method not allowed."}))
    } else {
        Reply::json(404, json!({"detail": "Not found."}))
    }
}

/// The error a fault answers with `status` (for an HTTP-200 fault, the code in the body).
pub(crate) fn status(status: u16, retry_after: Option<u64>) -> Reply {
    let message = match (status, retry_after) {
        (429, Some(secs)) => {
            format!("Request was throttled. Expected available in {secs} seconds.")
        }
        (429, None) => "Request was throttled.".to_string(),
        (400..=499, _) => "Bad Request".to_string(),
        _ => "Something went wrong. Please try again later.".to_string(),
    };
    error(status, json!({}), message)
}
