//! What a handler answers, and what finally goes on the wire once faults have had their say.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use serde_json::Value;

/// A JSON answer from a provider handler.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Value,
    pub(crate) headers: Vec<(http::HeaderName, String)>,
    /// Kept alive until the answer has been sent, then dropped: Runcrate's in-flight
    /// idempotency key is released only when the first request is really over.
    pub(crate) hold: Option<Box<dyn Send>>,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("status", &self.status)
            .field("body", &self.body)
            .finish_non_exhaustive()
    }
}

impl Reply {
    pub(crate) fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            body,
            headers: Vec::new(),
            hold: None,
        }
    }

    pub(crate) fn with_header(mut self, name: http::HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub(crate) fn holding(mut self, guard: impl Send + 'static) -> Self {
        self.hold = Some(Box::new(guard));
        self
    }
}

/// What is sent.
#[derive(Debug)]
pub(crate) enum Wire {
    /// A response with this status, content type and body.
    Send {
        status: u16,
        headers: Vec<(http::HeaderName, String)>,
        content_type: &'static str,
        body: Vec<u8>,
        delay: Duration,
    },
    /// Close the connection without answering.
    Drop,
}

impl Wire {
    pub(crate) fn json(reply: &Reply) -> Self {
        Self::Send {
            status: reply.status,
            headers: reply.headers.clone(),
            content_type: "application/json",
            body: serde_json::to_vec(&reply.body).unwrap_or_default(),
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            Self::Send { status, .. } => Some(*status),
            Self::Drop => None,
        }
    }
}

/// The hyper response for a [`Wire::Send`].
pub(crate) fn response(
    status: u16,
    headers: Vec<(http::HeaderName, String)>,
    content_type: &'static str,
    body: Vec<u8>,
) -> http::Response<Full<Bytes>> {
    let mut response = http::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() =
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    let map = response.headers_mut();
    map.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    for (name, value) in headers {
        if let Ok(value) = http::HeaderValue::from_str(&value) {
            map.insert(name, value);
        }
    }
    response
}
