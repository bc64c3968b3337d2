//! The data an [`Error`](super::Error) carries: a broken rule, a provider's error answer, an
//! undecodable body.

use std::fmt;

use crate::cluster::ProviderKind;

use super::RetryKind;

/// A request that breaks a documented rule, found before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// The provider whose rule it is.
    pub provider: ProviderKind,
    /// The field, as the provider names it (`num_gpus`, `node_count`, …).
    pub field: String,
    /// The rule, in words.
    pub rule: String,
    /// Where the rule is documented.
    pub source: &'static str,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} ({})",
            self.provider, self.field, self.rule, self.source
        )
    }
}

impl std::error::Error for ValidationError {}

/// An error answer from a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The provider.
    pub provider: ProviderKind,
    /// The operation id (`create_cluster`, …).
    pub operation: &'static str,
    /// The HTTP status (for E2E's HTTP 200 with an error `code`, that code).
    pub status: u16,
    /// The provider's error code (`BUDGET_REACHED`, `launch_refused`, …), if it sent one.
    pub code: Option<String>,
    /// The provider's message, if it sent one.
    pub message: Option<String>,
    /// A machine-readable reason from the error details (`idempotency_in_progress`), if any.
    pub reason: Option<String>,
    /// The provider's own word that repeating the same request may succeed, where its docs
    /// give an error answer that meaning (Runcrate's 409 `idempotency_in_progress`: the first
    /// request under the key is still being worked on). `None` leaves it to the status.
    pub retry_hint: Option<RetryKind>,
    /// The response body exactly as received (up to 64 KiB).
    pub body: String,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} answered HTTP {}",
            self.provider, self.operation, self.status
        )?;
        // E2E repeats the status as its code: said once.
        if let Some(code) = self
            .code
            .as_ref()
            .filter(|c| **c != self.status.to_string())
        {
            write!(f, " [{code}]")?;
        }
        match &self.message {
            Some(message) => write!(f, ": {message}"),
            None if !self.body.is_empty() => write!(f, ": {}", excerpt(&self.body, 200)),
            None => Ok(()),
        }
    }
}

/// A response body that does not match the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The provider.
    pub provider: ProviderKind,
    /// The operation id.
    pub operation: &'static str,
    /// The HTTP status of the response, where known (progenitor does not report it for a body
    /// that fails to decode).
    pub status: Option<u16>,
    /// The JSON path that failed (`gpu_worker_nodes[3].memory_gib`), `.` for the whole body.
    pub path: String,
    /// What serde said.
    pub message: String,
    /// The start of the body (up to 512 bytes).
    pub body_excerpt: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot decode {} {} response",
            self.provider, self.operation
        )?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        write!(f, " at {}: {}", self.path, self.message)?;
        if self.body_excerpt.is_empty() {
            return Ok(());
        }
        write!(f, "; body starts: {}", self.body_excerpt)
    }
}

/// The first `max` bytes of `text` (on a character boundary), with `…` when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
