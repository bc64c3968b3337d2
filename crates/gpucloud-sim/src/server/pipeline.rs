//! One request, start to finish: read the body up to the cap (413 beyond it), hand a path
//! under `/_sim/` to the control API (no credentials, no spec), find the provider and the
//! documented operation, check the credentials, let a fault refuse the request, validate it
//! against the spec, run the provider's handler, check the answer against the spec, then let
//! a fault delay, drop, cut or alter the answer. Every step answers in the provider's own
//! error shape.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Body as _;

use super::Shared;
use super::wire::{Wire, response};
use crate::control;
use crate::exchange::Exchange;
use crate::faults::FaultKind;
use crate::openapi::Route;
use crate::openapi::request::{self, RawRequest};
use crate::provider::Provider;
use crate::providers::capacity::Capacity;
use crate::providers::{self, Call};
use crate::reply::Reply;

/// How many exchanges the log keeps (see `RunningSim::exchanges`).
const EXCHANGES_KEPT: usize = 100_000;

/// The service error that makes hyper close the connection without an answer.
#[derive(Debug, thiserror::Error)]
#[error("connection dropped by an injected fault")]
pub(crate) struct Dropped;

/// Serves one request.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    request: http::Request<hyper::body::Incoming>,
) -> Result<http::Response<Full<Bytes>>, Dropped> {
    let (parts, body) = request.into_parts();
    let limit = shared.limits.max_body;
    let body = read_body(body, limit).await;
    let query: Vec<(String, String)> = parts
        .uri
        .query()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect()
        })
        .unwrap_or_default();
    let mut exchange = Exchange {
        provider: None,
        operation: None,
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        status: None,
        fault: None,
        spec_violations: Vec::new(),
    };
    let (wire, hold) = match &body {
        Some(body) => answer(&shared, &parts, &query, body, &mut exchange),
        None => (too_large(&parts, limit, &mut exchange), None),
    };
    exchange.status = wire.status();
    if let Ok(mut log) = shared.exchanges.lock() {
        // A simulator left running for days must not grow without bound.
        if log.len() >= EXCHANGES_KEPT {
            log.drain(..EXCHANGES_KEPT / 10);
        }
        log.push(exchange);
    }
    match wire {
        Wire::Drop => Err(Dropped),
        Wire::Send {
            status,
            headers,
            content_type,
            body,
            delay,
        } => {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            drop(hold);
            Ok(response(status, headers, content_type, body))
        }
    }
}

/// The body, or `None` if it is longer than `limit`: judged from `Content-Length` before
/// reading anything, else by reading at most `limit` bytes and one frame more. A client that
/// goes away mid-body leaves an empty body, which validation then refuses.
async fn read_body(body: hyper::body::Incoming, limit: usize) -> Option<Bytes> {
    let declared = usize::try_from(body.size_hint().lower()).unwrap_or(usize::MAX);
    if declared > limit {
        return None;
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Some(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => None,
        Err(_) => Some(Bytes::new()),
    }
}

/// `413 Payload Too Large`, in the provider's error shape when the path names one (the
/// connection is closed after it: the rest of the body is never read).
fn too_large(parts: &http::request::Parts, limit: usize, exchange: &mut Exchange) -> Wire {
    let message = format!("request body larger than {limit} bytes");
    let reply = match Provider::split_path(parts.uri.path()) {
        Some((provider, _)) => {
            exchange.provider = Some(provider);
            let kind = FaultKind::ServerError { status: 413 };
            let mut reply = providers::refusal(provider, "", &kind);
            // Runcrate nests its message in `error`; Together and E2E keep it at the top.
            let pointer = match reply.body.pointer("/error/message") {
                Some(_) => "/error/message",
                None => "/message",
            };
            if let Some(text) = reply.body.pointer_mut(pointer) {
                *text = serde_json::Value::String(message);
            }
            reply
        }
        None => Reply::json(413, serde_json::json!({ "error": message })),
    };
    Wire::json(&reply.with_header(http::header::CONNECTION, "close"))
}

/// Decides the answer; the second value must live until it has been sent.
fn answer(
    shared: &Shared,
    parts: &http::request::Parts,
    query: &[(String, String)],
    body: &Bytes,
    exchange: &mut Exchange,
) -> (Wire, Option<Box<dyn Send>>) {
    if control::owns(parts.uri.path()) {
        let control = control::Control {
            specs: shared.specs,
            faults: &shared.faults,
            capacity: Capacity::new(shared.state.clone(), shared.clock.clone()),
        };
        let reply = control::handle(&control, &parts.method, parts.uri.path(), body);
        return (Wire::json(&reply), None);
    }
    let Some((provider, rest)) = Provider::split_path(parts.uri.path()) else {
        return (Wire::json(&unknown_prefix()), None);
    };
    exchange.provider = Some(provider);
    let spec = shared.specs.of(provider);
    let (op, path_params) = match spec.route(&parts.method, rest) {
        Route::Found(op, params) => (op, params),
        Route::MethodNotAllowed(allow) => {
            return (
                Wire::json(&providers::method_not_allowed(provider, &allow)),
                None,
            );
        }
        Route::NotFound => return (Wire::json(&providers::no_route(provider, false)), None),
    };
    exchange.operation = Some(op.id.clone());
    if let Err(reply) = providers::authenticate(provider, &parts.headers, query) {
        exchange.spec_violations = spec.check_response(op, reply.status, &reply.body);
        return (Wire::json(&reply), None);
    }
    let fault = shared.faults.take(provider, &op.id);
    exchange.fault = fault.clone();
    if let Some(kind) = fault.as_ref().filter(|k| k.refuses()) {
        let reply = providers::refusal(provider, &op.id, kind);
        // A 200 carrying an error is off-spec on purpose; the other refusals must fit it.
        if !matches!(kind, FaultKind::OkWithErrorCode { .. }) {
            exchange.spec_violations = spec.check_response(op, reply.status, &reply.body);
        }
        return (Wire::json(&reply), None);
    }
    let raw = RawRequest {
        path_params: &path_params,
        query,
        headers: &parts.headers,
        body,
    };
    let mut reply = match request::check(spec, op, &raw) {
        Err(errors) => providers::invalid(provider, &op.id, &errors),
        Ok(checked) => {
            let call = Call {
                operation: &op.id,
                params: &checked.params,
                body: checked.body.as_ref(),
                now: shared.clock.elapsed(),
                fail_provisioning: fault == Some(FaultKind::FailProvisioning),
                automated: fault == Some(FaultKind::AutomatedRemediation),
            };
            match shared.state.lock() {
                Ok(mut state) => providers::handle(provider, &mut state, &call),
                // Poisoned by a panicking handler: answer like a provider's own 500.
                Err(_) => {
                    providers::refusal(provider, &op.id, &FaultKind::ServerError { status: 500 })
                }
            }
        }
    };
    exchange.spec_violations = spec.check_response(op, reply.status, &reply.body);
    let hold = reply.hold.take();
    (damage(provider, reply, fault), hold)
}

/// Applies a fault that lets the operation happen but spoils its answer.
fn damage(provider: Provider, mut reply: Reply, fault: Option<FaultKind>) -> Wire {
    match fault {
        Some(FaultKind::DropConnection) => Wire::Drop,
        Some(FaultKind::Slow { delay }) => match Wire::json(&reply) {
            Wire::Send {
                status,
                headers,
                content_type,
                body,
                ..
            } => Wire::Send {
                status,
                headers,
                content_type,
                body,
                delay,
            },
            Wire::Drop => Wire::Drop,
        },
        Some(FaultKind::TruncatedBody) => {
            let mut body = serde_json::to_vec(&reply.body).unwrap_or_default();
            body.truncate(body.len() / 2);
            Wire::Send {
                status: reply.status,
                headers: reply.headers,
                content_type: "application/json",
                body,
                delay: std::time::Duration::ZERO,
            }
        }
        Some(FaultKind::HtmlBody { status }) => Wire::Send {
            status,
            headers: Vec::new(),
            content_type: "text/html",
            body: html_page(status).into_bytes(),
            delay: std::time::Duration::ZERO,
        },
        Some(FaultKind::UnknownStatus { status }) => {
            if reply.status < 300 {
                providers::set_status(provider, &mut reply.body, &status);
            }
            Wire::json(&reply)
        }
        Some(FaultKind::StatedPrice { cents_per_hour }) => {
            if reply.status < 300 {
                // Hundredths to a price: exact for any price a test states.
                #[allow(clippy::cast_precision_loss)]
                let per_hour = cents_per_hour as f64 / 100.0;
                providers::set_price(provider, &mut reply.body, per_hour);
            }
            Wire::json(&reply)
        }
        _ => Wire::json(&reply),
    }
}

/// A reverse proxy's error page, like the one E2E's nginx sends with a 502.
fn html_page(status: u16) -> String {
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    format!(
        "<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )
}

fn unknown_prefix() -> Reply {
    let prefixes: Vec<&str> = Provider::ALL.iter().map(|p| p.path_prefix()).collect();
    Reply::json(
        404,
        serde_json::json!({
            "error": "no simulated provider serves this path",
            "prefixes": prefixes,
        }),
    )
}
