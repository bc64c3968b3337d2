//! What a scenario answers instead of (or with) the normal answer.

use std::time::Duration;

use serde_json::{Value, json};

use super::Faulted;
use crate::fake::{Delivery, Reply};
use crate::hostile::{EVIL, echo};

const MIB: usize = 1024 * 1024;

pub fn none(f: &Faulted<'_>) -> Reply {
    f.normal.clone()
}

pub fn status_500(f: &Faulted<'_>) -> Reply {
    f.provider.error(500, "internal_error", "internal error")
}

pub fn status_503(f: &Faulted<'_>) -> Reply {
    f.provider
        .error(503, "unavailable", "service unavailable")
        .header("Retry-After", "1")
}

pub fn html_502(_: &Faulted<'_>) -> Reply {
    Reply::raw(
        502,
        "text/html",
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
         <center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    )
}

pub fn plain_text_503(_: &Faulted<'_>) -> Reply {
    Reply::raw(
        503,
        "text/plain",
        "upstream connect error or disconnect/reset before headers. reset reason: overflow",
    )
}

pub fn throttled(f: &Faulted<'_>, retry_after: &str) -> Reply {
    f.provider
        .error(429, "rate_limited", "slow down")
        .header("Retry-After", retry_after)
}

pub fn retry_after_100000(f: &Faulted<'_>) -> Reply {
    throttled(f, "100000")
}

pub fn retry_after_beyond_u64(f: &Faulted<'_>) -> Reply {
    throttled(f, "184467440737095516150000")
}

pub fn retry_after_far_date(f: &Faulted<'_>) -> Reply {
    throttled(f, "Fri, 31 Dec 9999 23:59:59 GMT")
}

pub fn retry_after_garbage(f: &Faulted<'_>) -> Reply {
    throttled(f, "soon, maybe")
}

pub fn retry_after_1(f: &Faulted<'_>) -> Reply {
    throttled(f, "1")
}

pub fn bad_request(f: &Faulted<'_>) -> Reply {
    f.provider.error(
        400,
        "invalid_request_error",
        "num_gpus: must be a multiple of 8",
    )
}

pub fn unauthorized(f: &Faulted<'_>) -> Reply {
    f.provider.error(401, "unauthorized", "invalid API key")
}

pub fn conflict(f: &Faulted<'_>) -> Reply {
    f.provider
        .error(409, "conflict", "a cluster with this name exists")
}

pub fn payment_required(f: &Faulted<'_>) -> Reply {
    f.provider
        .error(402, "insufficient_funds", "add credit to continue")
}

pub fn not_found(f: &Faulted<'_>) -> Reply {
    f.provider.error(404, "not_found", "no such cluster")
}

pub fn reset(f: &Faulted<'_>) -> Reply {
    f.normal.clone().delivered(Delivery::Reset)
}

/// Longer than the matrix's `--request-timeout 2s`.
pub fn slow(f: &Faulted<'_>) -> Reply {
    f.normal.clone().after(Duration::from_secs(3))
}

pub fn truncated(f: &Faulted<'_>) -> Reply {
    f.normal.clone().delivered(Delivery::Truncated)
}

/// Past the facade's 32 MiB cap.
pub fn huge(f: &Faulted<'_>) -> Reply {
    let mut reply = f.normal.clone();
    reply.body = r#"{"message":""#.into();
    reply.delivered(Delivery::Huge(40 * MIB))
}

pub fn endless(f: &Faulted<'_>) -> Reply {
    let mut reply = f.normal.clone();
    reply.body = r#"{"clusters":[""#.into();
    reply.delivered(Delivery::Endless)
}

pub fn echo_400(f: &Faulted<'_>) -> Reply {
    f.provider
        .error(400, "invalid_request_error", &echo(f.request))
}

pub fn echo_500(f: &Faulted<'_>) -> Reply {
    f.provider.error(500, "internal_error", &echo(f.request))
}

pub fn escapes_in_error(f: &Faulted<'_>) -> Reply {
    f.provider.error(
        422,
        "invalid\u{1b}[31m_request\n",
        &format!("bad request: {EVIL}\r\n\u{9b}2J\u{202e}"),
    )
}

/// E2E's way: HTTP 200, the real outcome in `code`. Sent to every provider.
pub fn ok_with_code_500(_: &Faulted<'_>) -> Reply {
    Reply::json(
        200,
        &json!({ "code": 500, "data": {}, "errors": { "detail": "boom" }, "message": "Internal Server Error" }),
    )
}

pub fn invalid_json(_: &Faulted<'_>) -> Reply {
    Reply::raw(
        200,
        "application/json",
        r#"{"cluster_id": "c-1", "status": "#,
    )
}

pub fn empty_200(_: &Faulted<'_>) -> Reply {
    Reply::raw(200, "application/json", "")
}

pub fn wrong_types(_: &Faulted<'_>) -> Reply {
    Reply::json(
        200,
        &json!({ "cluster_id": 42, "clusters": "none", "code": "two hundred", "data": [1, 2], "status": {} }),
    )
}

/// The normal answer with every `id` and `cluster_id` removed.
pub fn missing_ids(f: &Faulted<'_>) -> Reply {
    pub fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("id");
                map.remove("cluster_id");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut reply = f.normal.clone();
    if let Ok(mut body) = serde_json::from_str::<Value>(&reply.body) {
        strip(&mut body);
        reply.body = body.to_string();
    }
    reply
}
