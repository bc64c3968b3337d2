//! What a provider handler answers: a status, a JSON body and headers. The server checks it
//! against the spec and turns it into bytes (`server::wire`) once faults have had their say;
//! this module sits below both, so neither imports the other for it.

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
