//! A dry run: the exact request a create would send, with credentials redacted.

use std::fmt;

use gpucloud_core::CapturedRequest;
use serde::Serialize;

use crate::cluster::ProviderKind;

/// A request that was planned, not sent: what the generated client built, byte for byte in
/// meaning, with every credential replaced by `REDACTED`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedRequest {
    /// The provider.
    pub provider: ProviderKind,
    /// The operation id.
    pub operation: &'static str,
    /// HTTP method.
    pub method: String,
    /// Full URL, query included (secrets replaced by `REDACTED`).
    pub url: String,
    /// Every header the client sets on the request, in order, names in lower case
    /// (credentials replaced by `REDACTED`). The HTTP client adds `user-agent` and
    /// `content-length` when it sends.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`null` without one; a string if the body is not JSON).
    pub body: serde_json::Value,
    /// The catalog ids resolution filled in, and why (empty when the request named them).
    pub resolved: Vec<crate::catalog::Choice>,
}

impl PlannedRequest {
    pub(crate) fn from_captured(provider: ProviderKind, captured: CapturedRequest) -> Self {
        let body = match captured.body {
            None => serde_json::Value::Null,
            Some(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned())
            }),
        };
        Self {
            provider,
            operation: captured.operation,
            method: captured.method,
            url: captured.url,
            headers: captured.headers,
            body,
            resolved: Vec::new(),
        }
    }

    /// The value of header `name` (case-insensitive), if set.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for PlannedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.method, self.url)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {value}")?;
        }
        writeln!(f)?;
        let body = serde_json::to_string_pretty(&self.body).map_err(|_| fmt::Error)?;
        writeln!(f, "{body}")?;
        if !self.resolved.is_empty() {
            writeln!(f, "\nResolved from {}'s catalog:", self.provider)?;
            for choice in &self.resolved {
                writeln!(f, "  {} = {}  ({})", choice.field, choice.value, choice.why)?;
            }
        }
        Ok(())
    }
}
