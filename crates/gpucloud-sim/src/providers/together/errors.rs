//! Together's error answers. The cluster service sits behind grpc-gateway (its operation ids
//! are `GPUClusterService_Create`, `RegionService_List`, …), so its errors are gRPC statuses as
//! JSON, `{code, message, details}` with the gRPC code number: grpc-gateway's convention, since
//! Together documents no error body for its cluster operations. The API gateway in front of it
//! rejects a bad key with Together's common `{error: {...}}` object, as its other APIs do. Both
//! shapes fit the spec's `ErrorResponse`.

use serde_json::{Value, json};

use crate::credentials::{TOGETHER_API_KEY, bearer};
use crate::openapi::request::FieldError;
use crate::reply::Reply;

/// gRPC status codes (google.rpc.Code) used here.
pub(crate) const INVALID_ARGUMENT: i64 = 3;
pub(crate) const NOT_FOUND: i64 = 5;
pub(crate) const FAILED_PRECONDITION: i64 = 9;

/// `Authorization: Bearer <TOGETHER_API_KEY>` or a 401 from the gateway.
pub(crate) fn authenticate(headers: &http::HeaderMap) -> Result<(), Reply> {
    if bearer(headers) == Some(TOGETHER_API_KEY) {
        return Ok(());
    }
    Err(Reply::json(
        401,
        json!({"error": {
            "message": "Invalid API key provided. You can find your API key at https://api.together.ai/settings/api-keys.",
            "type": "invalid_request_error",
            "param": null,
            "code": "invalid_api_key",
        }}),
    ))
}

/// A gRPC-style error with the HTTP status grpc-gateway maps `code` to.
pub(crate) fn grpc(code: i64, message: impl Into<String>, details: Vec<Value>) -> Reply {
    let status = match code {
        INVALID_ARGUMENT | FAILED_PRECONDITION | 11 => 400,
        NOT_FOUND => 404,
        6 | 10 => 409,
        7 => 403,
        8 => 429,
        12 => 501,
        14 => 503,
        4 => 504,
        16 => 401,
        _ => 500,
    };
    Reply::json(
        status,
        json!({"code": code, "message": message.into(), "details": details}),
    )
}

/// INVALID_ARGUMENT naming each field, with a `google.rpc.BadRequest` detail as grpc-gateway's
/// validators produce.
pub(crate) fn invalid(operation: &str, errors: &[FieldError]) -> Reply {
    let message = errors
        .iter()
        .map(|e| format!("invalid {operation}.{}: {}", e.field, e.message))
        .collect::<Vec<_>>()
        .join("; ");
    let violations: Vec<Value> = errors
        .iter()
        .map(|e| json!({"field": e.field, "description": e.message}))
        .collect();
    grpc(
        INVALID_ARGUMENT,
        message,
        vec![
            json!({"@type": "type.googleapis.com/google.rpc.BadRequest", "field_violations": violations}),
        ],
    )
}

/// One business rule broken by one field.
pub(crate) fn bad_field(operation: &str, field: &str, message: impl Into<String>) -> Reply {
    invalid(
        operation,
        &[FieldError {
            part: crate::openapi::request::Part::Body,
            field: field.into(),
            message: message.into(),
        }],
    )
}

pub(crate) fn not_found(what: &str, id: &str) -> Reply {
    grpc(NOT_FOUND, format!("{what} {id:?} not found"), Vec::new())
}

pub(crate) fn no_route(path_exists: bool) -> Reply {
    if path_exists {
        Reply::json(
            405,
            json!({"code": 12, "message": "Method Not Allowed", "details": []}),
        )
    } else {
        grpc(NOT_FOUND, "Not Found", Vec::new())
    }
}

/// The error a fault answers with `status`.
pub(crate) fn status(status: u16, operation: &str) -> Reply {
    let code = match status {
        400 => INVALID_ARGUMENT,
        401 => 16,
        403 => 7,
        404 => NOT_FOUND,
        409 => 10,
        429 => 8,
        501 => 12,
        502 | 503 => 14,
        504 => 4,
        _ => 13,
    };
    let message = match status {
        429 => format!("rate limit exceeded for {operation}"),
        502..=504 => "upstream connect error or disconnect/reset before headers".to_string(),
        _ => "internal error".to_string(),
    };
    Reply::json(
        status,
        json!({"code": code, "message": message, "details": []}),
    )
}
