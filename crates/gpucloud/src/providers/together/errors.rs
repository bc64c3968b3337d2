//! Together's error answers: one permissive envelope that carries either of the two shapes
//! Together uses (`{error: {code, message}}` or a gRPC status `{code, message}`), and no rule
//! beyond the shared status table.

use gpucloud_together::types;

use crate::cluster::ProviderKind;
use crate::providers::call::{ErrorEnvelope, ErrorRules};

/// Together's rules for error answers: the shared table.
#[derive(Debug)]
pub(crate) struct Rules;

impl ErrorRules for Rules {
    const KIND: ProviderKind = ProviderKind::Together;
}

impl ErrorEnvelope for types::ErrorResponse {
    fn code(&self) -> Option<String> {
        let nested = self.error.as_ref().and_then(|e| e.code.clone());
        nested.or_else(|| match &self.code {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
    }

    fn message(&self) -> Option<String> {
        self.error
            .as_ref()
            .and_then(|e| e.message.clone())
            .or_else(|| self.message.clone())
    }
}
