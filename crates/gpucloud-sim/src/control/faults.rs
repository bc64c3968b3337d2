//! `/_sim/faults`: faults injected, listed and cleared over HTTP.
//!
//! - `POST /_sim/faults` with one fault or a list: `provider`, `operation` (optional: any),
//!   `kind`, and `times`, `status`, `retry_after`, `delay_ms` where the kind takes them. The
//!   whole body is checked before anything is injected; answers the active faults.
//! - `GET /_sim/faults`: the active faults. `DELETE /_sim/faults`: clears them.
//!
//! A bad body is answered 400 naming the field (`faults[1].kind`).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::method_not_allowed;
use crate::faults::{CREATE, Fault, FaultKind, Faults};
use crate::openapi::Specs;
use crate::provider::Provider;
use crate::reply::Reply;

/// The faults resource.
pub(crate) const PATH: &str = "/_sim/faults";
/// The longest `delay_ms` accepted (ten minutes).
const MAX_DELAY_MS: u64 = 600_000;

/// Answers a request to `/_sim/faults`.
pub(crate) fn handle(specs: &Specs, faults: &Faults, method: &http::Method, body: &[u8]) -> Reply {
    match *method {
        http::Method::GET => listing(faults),
        http::Method::DELETE => {
            faults.clear();
            listing(faults)
        }
        http::Method::POST => match parse(specs, body) {
            Ok(new) => {
                for fault in new {
                    faults.inject(fault);
                }
                listing(faults)
            }
            Err(message) => Reply::json(400, json!({ "error": message })),
        },
        _ => method_not_allowed(method, PATH, "GET, POST, DELETE"),
    }
}

fn listing(faults: &Faults) -> Reply {
    let list: Vec<Value> = faults.pending().iter().map(render).collect();
    Reply::json(200, json!({ "faults": list }))
}

/// A fault as the control API shows it (the same fields it accepts).
fn render(fault: &Fault) -> Value {
    let (kind, field, value) = match &fault.kind {
        FaultKind::RateLimited { retry_after_secs } => {
            ("rate_limited", "retry_after", json!(retry_after_secs))
        }
        FaultKind::ServerError { status } => ("server_error", "status", json!(status)),
        FaultKind::Slow { delay } => (
            "slow",
            "delay_ms",
            json!(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)),
        ),
        FaultKind::DropConnection => ("drop_connection", "", Value::Null),
        FaultKind::TruncatedBody => ("truncated_body", "", Value::Null),
        FaultKind::HtmlBody { status } => ("html_body", "status", json!(status)),
        FaultKind::OkWithErrorCode { code } => ("ok_with_error_code", "status", json!(code)),
        FaultKind::UnknownStatus { status } => ("unknown_status", "status", json!(status)),
        FaultKind::StatedPrice { cents_per_hour } => {
            ("stated_price", "cents_per_hour", json!(cents_per_hour))
        }
        FaultKind::FailProvisioning => ("fail_provisioning", "", Value::Null),
        FaultKind::AutomatedRemediation => ("automated_remediation", "", Value::Null),
    };
    let mut object = json!({
        "provider": fault.provider.as_str(),
        "operation": fault.operation,
        "kind": kind,
        "times": fault.times,
    });
    if !field.is_empty() {
        object[field] = value;
    }
    object
}

/// Every fault of the body, or why not (naming the field).
fn parse(specs: &Specs, body: &[u8]) -> Result<Vec<Fault>, String> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| format!("body: not JSON ({e}); expected a fault object or a list of them"))?;
    match value {
        Value::Object(object) => Ok(vec![fault(specs, &object, "")?]),
        Value::Array(list) if !list.is_empty() => list
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("faults[{i}].");
                match item {
                    Value::Object(object) => fault(specs, object, &at),
                    _ => Err(format!("faults[{i}]: must be an object")),
                }
            })
            .collect(),
        _ => Err("body: expected a fault object or a non-empty list of them".into()),
    }
}

/// The fields each kind takes besides `provider`, `operation`, `kind` and `times`.
const KINDS: &[(&str, &[&str])] = &[
    ("rate_limited", &["retry_after"]),
    ("server_error", &["status"]),
    ("slow", &["delay_ms"]),
    ("drop_connection", &[]),
    ("truncated_body", &[]),
    ("html_body", &["status"]),
    ("ok_with_error_code", &["status"]),
    ("unknown_status", &["status"]),
    ("stated_price", &["cents_per_hour"]),
    ("fail_provisioning", &[]),
    ("automated_remediation", &[]),
];

fn fault(specs: &Specs, object: &Map<String, Value>, at: &str) -> Result<Fault, String> {
    let err = |field: &str, rule: &str| format!("{at}{field}: {rule}");
    let provider: Provider = match object.get("provider") {
        None => return Err(err("provider", "is required (together, runcrate or e2e)")),
        Some(Value::String(name)) => name
            .parse()
            .map_err(|_| err("provider", "must be together, runcrate or e2e"))?,
        Some(_) => return Err(err("provider", "must be a string")),
    };
    let names: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
    let kind_name = match object.get("kind") {
        None => return Err(err("kind", &format!("is required: {}", names.join(", ")))),
        Some(Value::String(k)) if names.contains(&k.as_str()) => k.as_str(),
        Some(_) => return Err(err("kind", &format!("must be one of {}", names.join(", ")))),
    };
    let takes = KINDS
        .iter()
        .find(|(k, _)| *k == kind_name)
        .map_or(&[][..], |(_, t)| *t);
    for key in object.keys() {
        let common = ["provider", "operation", "kind", "times"].contains(&key.as_str());
        if !common && !takes.contains(&key.as_str()) {
            let known =
                ["status", "retry_after", "delay_ms", "cents_per_hour"].contains(&key.as_str());
            let rule = if known {
                format!("does not apply to kind {kind_name}")
            } else {
                "is not a field of a fault".to_string()
            };
            return Err(err(key, &rule));
        }
    }
    let operation = match object.get("operation") {
        None | Some(Value::Null) => None,
        Some(Value::String(op)) => {
            let ids = specs.of(provider).operation_ids();
            if !ids.contains(&op.as_str()) {
                return Err(err(
                    "operation",
                    &format!(
                        "{provider} has no operation {op:?}; it has {}",
                        ids.join(", ")
                    ),
                ));
            }
            Some(op.clone())
        }
        Some(_) => return Err(err("operation", "must be a string (an operationId)")),
    };
    if kind_name == "fail_provisioning" && operation.as_deref().is_some_and(|op| op != CREATE) {
        return Err(err(
            "operation",
            "fail_provisioning hits only create_cluster",
        ));
    }
    if kind_name == "automated_remediation"
        && (provider != Provider::Together
            || operation
                .as_deref()
                .is_some_and(|op| op != crate::faults::CREATE_REMEDIATION))
    {
        return Err(err(
            "operation",
            "automated_remediation hits only together's create_remediation",
        ));
    }
    let times = match object.get("times") {
        None => 1,
        Some(v) => v
            .as_u64()
            .and_then(|t| u32::try_from(t).ok())
            .filter(|t| *t >= 1)
            .ok_or_else(|| err("times", "must be a whole number ≥ 1"))?,
    };
    let number =
        |field: &str, default: u64, range: std::ops::RangeInclusive<u64>| match object.get(field) {
            None => Ok(default),
            Some(v) => v.as_u64().filter(|n| range.contains(n)).ok_or_else(|| {
                err(
                    field,
                    &format!(
                        "must be a whole number in {}..={}",
                        range.start(),
                        range.end()
                    ),
                )
            }),
        };
    let status = |default: u16| {
        number("status", u64::from(default), 100..=599).map(|s| u16::try_from(s).unwrap_or(500))
    };
    let kind = match kind_name {
        "rate_limited" => FaultKind::RateLimited {
            retry_after_secs: number("retry_after", 1, 0..=86_400)?,
        },
        "server_error" => FaultKind::ServerError {
            status: status(500)?,
        },
        "slow" => FaultKind::Slow {
            delay: Duration::from_millis(number("delay_ms", 1000, 0..=MAX_DELAY_MS)?),
        },
        "drop_connection" => FaultKind::DropConnection,
        "truncated_body" => FaultKind::TruncatedBody,
        "html_body" => FaultKind::HtmlBody {
            status: status(502)?,
        },
        "ok_with_error_code" => FaultKind::OkWithErrorCode { code: status(500)? },
        "unknown_status" => match object.get("status") {
            Some(Value::String(word)) if !word.trim().is_empty() => FaultKind::UnknownStatus {
                status: word.clone(),
            },
            _ => {
                return Err(err(
                    "status",
                    "is required for unknown_status: the status word to show",
                ));
            }
        },
        "stated_price" => match object.get("cents_per_hour") {
            Some(v) if v.as_u64().is_some_and(|c| c <= 100_000_000) => FaultKind::StatedPrice {
                cents_per_hour: v.as_u64().unwrap_or_default(),
            },
            _ => {
                return Err(err(
                    "cents_per_hour",
                    "is required for stated_price: a whole number in 0..=100000000",
                ));
            }
        },
        "automated_remediation" => FaultKind::AutomatedRemediation,
        _ => FaultKind::FailProvisioning,
    };
    Ok(Fault {
        provider,
        operation,
        kind,
        times,
    })
}
