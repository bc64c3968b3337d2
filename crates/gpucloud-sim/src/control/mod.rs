//! The operator's control API under `/_sim/`, on the simulator's own port, in the spirit of
//! LocalStack's chaos API (`/_localstack/chaos/faults`): faults and capacity set, listed and
//! reset over HTTP, from outside the process. It takes no provider credentials.
//!
//! - `/_sim/faults` (`faults`): inject, list and clear faults.
//! - `/_sim/capacity` (`capacity`): list offerings with what is left of them, set what is
//!   available, restore the defaults.
//!
//! A bad body is answered 400 naming the field; another method 405 with `Allow`; any other
//! path under `/_sim/` 404 with the list of endpoints.

mod capacity;
mod faults;

use serde_json::json;

use crate::faults::Faults;
use crate::openapi::Specs;
use crate::providers::capacity::Capacity;
use crate::reply::Reply;

/// Where the control API lives.
pub(crate) const PREFIX: &str = "/_sim";

/// What a control request may act on.
#[derive(Debug)]
pub(crate) struct Control<'a> {
    pub(crate) specs: &'a Specs,
    pub(crate) faults: &'a Faults,
    pub(crate) capacity: Capacity,
}

/// Whether `path` belongs to the control API.
pub(crate) fn owns(path: &str) -> bool {
    path == PREFIX || path.starts_with("/_sim/")
}

/// Answers a control request.
pub(crate) fn handle(
    control: &Control<'_>,
    method: &http::Method,
    path: &str,
    body: &[u8],
) -> Reply {
    match path {
        faults::PATH => faults::handle(control.specs, control.faults, method, body),
        capacity::PATH => capacity::handle(&control.capacity, method, body),
        _ => Reply::json(
            404,
            json!({
                "error": format!("no control endpoint at {path}"),
                "endpoints": [faults::PATH, capacity::PATH],
            }),
        ),
    }
}

/// The 405 for a method `path` does not take, with the `Allow` header listing those it does.
fn method_not_allowed(method: &http::Method, path: &str, allow: &str) -> Reply {
    Reply::json(
        405,
        json!({ "error": format!("{method} is not allowed on {path}") }),
    )
    .with_header(http::header::ALLOW, allow)
}
