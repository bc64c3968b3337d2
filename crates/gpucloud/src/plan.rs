//! A dry run: the exact request a create would send, with credentials redacted.

use std::fmt;

use serde::Serialize;

use crate::cluster::ProviderKind;

/// A request that was planned, not sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedRequest {
    /// The provider.
    pub provider: ProviderKind,
    /// The operation id.
    pub operation: &'static str,
    /// HTTP method.
    pub method: &'static str,
    /// Full URL, query included (secrets replaced by `REDACTED`).
    pub url: String,
    /// Headers that matter to the provider (credentials replaced by `REDACTED`).
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: serde_json::Value,
}

impl fmt::Display for PlannedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.method, self.url)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {value}")?;
        }
        writeln!(f)?;
        let body = serde_json::to_string_pretty(&self.body).map_err(|_| fmt::Error)?;
        writeln!(f, "{body}")
    }
}

/// `Authorization` as every provider sends it, redacted.
pub(crate) fn bearer_redacted() -> (String, String) {
    (
        "Authorization".into(),
        format!("Bearer {}", gpucloud_core::REDACTED),
    )
}

/// `Content-Type: application/json`.
pub(crate) fn json_content_type() -> (String, String) {
    ("Content-Type".into(), "application/json".into())
}
