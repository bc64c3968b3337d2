//! What finally goes on the wire for a handler's [`Reply`], once faults have had their say.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;

use crate::reply::Reply;

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
