//! The shared error classification, `Retry-After`, raw bodies and decoding errors; `api` and
//! `kind` are shared with the providers' error-rule tests.

use super::*;

/// The shared rules alone, as a provider without rules of its own would have them.
struct Plain;

impl ErrorRules for Plain {
    const KIND: ProviderKind = ProviderKind::Together;
}

#[test]
fn retry_after_seconds_and_dates() {
    let mut headers = HeaderMap::new();
    headers.insert(RETRY_AFTER, "7".parse().unwrap());
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
    headers.insert(
        RETRY_AFTER,
        "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap(),
    );
    assert_eq!(retry_after(&headers), Some(Duration::ZERO));
    headers.insert(RETRY_AFTER, "soon".parse().unwrap());
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, "-5".parse().unwrap());
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, "99999999999999999999999999".parse().unwrap());
    assert_eq!(retry_after(&headers), Some(Duration::MAX));
    headers.insert(
        RETRY_AFTER,
        "Fri, 01 Jan 9999 00:00:00 GMT".parse().unwrap(),
    );
    assert!(retry_after(&headers).unwrap() > Duration::from_secs(200 * 365 * 86400));
}

#[test]
fn untyped_bodies_yield_code_and_message() {
    let error = from_untyped_body::<Plain>(
        "get_cluster",
        401,
        &HeaderMap::new(),
        r#"{"detail":"Authentication credentials were not provided."}"#.into(),
    );
    let Error::Authentication(api) = error else {
        panic!("{error:?}")
    };
    assert_eq!(api.provider, ProviderKind::Together);
    assert_eq!(
        api.message.as_deref(),
        Some("Authentication credentials were not provided.")
    );

    let html = "<html><body>502 Bad Gateway</body></html>".to_string();
    let error = from_untyped_body::<Plain>("get_cluster", 502, &HeaderMap::new(), html.clone());
    assert!(error.is_retryable());
    let Error::Api(api) = error else { panic!() };
    assert_eq!((api.status, api.body), (502, html));

    let error = from_untyped_body::<Plain>(
        "get_cluster",
        200,
        &HeaderMap::new(),
        r#"{"code": 404, "message": "x"}"#.into(),
    );
    assert_eq!(
        error.status(),
        Some(200),
        "no provider rule: the status stands"
    );
    let api = error.api_error().unwrap();
    assert_eq!(
        (api.code.as_deref(), api.message.as_deref()),
        (Some("404"), Some("x")),
        "a numeric code is read as its digits"
    );
}

pub(crate) fn api(provider: ProviderKind, status: u16, code: Option<&str>) -> ApiError {
    ApiError {
        provider,
        operation: "create_cluster",
        status,
        code: code.map(str::to_string),
        message: None,
        reason: None,
        retry_hint: None,
        body: String::new(),
    }
}

/// The variant's name, as `Debug` prints it.
pub(crate) fn kind(error: &Error) -> String {
    format!("{error:?}")
        .split(['(', ' '])
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn classification_table() {
    let together = |status| classify(api(ProviderKind::Together, status, None), None);
    assert_eq!(kind(&together(401)), "Authentication");
    assert_eq!(kind(&together(403)), "Authentication");
    assert_eq!(kind(&together(402)), "InsufficientFunds");
    assert_eq!(kind(&together(404)), "NotFound");
    assert_eq!(kind(&together(409)), "Conflict");
    assert_eq!(kind(&together(429)), "RateLimited");
    assert_eq!(kind(&together(503)), "Api");
    assert_eq!(kind(&together(400)), "Api");
    let limited = classify(
        api(ProviderKind::Together, 429, None),
        Some(Duration::from_secs(9)),
    );
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(9)));
}

#[test]
fn refusals_that_say_capacity_or_quota_are_read_as_such() {
    let words = |status, code: Option<&str>, message: Option<&str>| {
        let mut api = api(ProviderKind::Together, status, code);
        api.message = message.map(str::to_string);
        kind(&classify_by_words(api, None))
    };
    assert_eq!(
        words(400, Some("insufficient_capacity"), None),
        "NoCapacity"
    );
    assert_eq!(
        words(400, None, Some("Insufficient Capacity: 8 H100 left")),
        "NoCapacity"
    );
    assert_eq!(
        words(422, None, Some("GPU quota exceeded")),
        "InsufficientFunds"
    );
    assert_eq!(words(400, None, Some("name is taken")), "Api");
    // Only refusals: a 5xx that mentions capacity may still have created something, and
    // the statuses with a meaning of their own keep it.
    assert_eq!(words(503, None, Some("no capacity")), "Api");
    assert_eq!(words(409, None, Some("capacity")), "Conflict");
    assert_eq!(words(404, Some("insufficient_capacity"), None), "NotFound");
    assert_eq!(words(429, None, Some("capacity")), "RateLimited");
}

#[test]
fn decode_errors_name_the_json_path() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Node {
        gpus: u32,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Body {
        nodes: Vec<Node>,
    }
    let error = decode_error::<Body>(
        ProviderKind::Together,
        "get_cluster",
        Some(200),
        br#"{"nodes":[{"gpus":8},{"gpus":"eight"}]}"#,
        "x",
    );
    assert_eq!(error.path, "nodes[1].gpus");
    assert!(error.message.starts_with("invalid type: string \"eight\""));
}
