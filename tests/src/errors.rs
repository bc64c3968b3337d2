//! The generated clients' errors: taking them apart, and checking that no secret shows in them.
//!
//! All three generated crates re-export the same `progenitor_client::Error` and
//! `ResponseValue`; this crate names them through `gpucloud_together` (a direct dependency on
//! progenitor-client would only repeat that one).

use std::fmt::{Debug, Display};

use gpucloud_together::{Error, ResponseValue};

/// The documented error body of a call that must have failed with a declared error status.
pub fn error_response<T: Debug, E: Debug>(result: Result<T, Error<E>>) -> ResponseValue<E> {
    match result {
        Err(Error::ErrorResponse(value)) => value,
        other => panic!("expected Error::ErrorResponse, got {other:?}"),
    }
}

/// The message of a call its builder rejected before sending anything.
pub fn invalid_request<T: Debug, E: Debug>(result: Result<T, Error<E>>) -> String {
    match result {
        Err(Error::InvalidRequest(message)) => message,
        other => panic!("expected Error::InvalidRequest, got {other:?}"),
    }
}

/// Neither the Display (plain and alternate) nor the Debug (plain and pretty) of `value`
/// contains any of `secrets`.
pub fn assert_hides<T: Display + Debug + ?Sized>(value: &T, secrets: &[&str]) {
    assert_text_hides(
        &format!("{value} | {value:#} | {value:?} | {value:#?}"),
        secrets,
    );
}

/// `text` contains none of `secrets`.
pub fn assert_text_hides(text: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!text.contains(secret), "a secret leaked: {text}");
    }
}
