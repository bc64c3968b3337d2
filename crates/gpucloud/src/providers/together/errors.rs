//! Together's error answers: one permissive envelope that carries either of the two shapes
//! Together uses (`{error: {code, message}}` or a gRPC status `{code, message}`). Together
//! documents no code for "no capacity", so a refusal that says so in words is read as one
//! ([`classify_by_words`]).

use gpucloud_together::types;

use std::time::Duration;

use crate::cluster::ProviderKind;
use crate::error::{ApiError, Error};
use crate::providers::call::{ErrorEnvelope, ErrorRules, classify_by_words};

/// Together's rules for error answers: the shared table.
#[derive(Debug)]
pub(crate) struct Rules;

impl ErrorRules for Rules {
    const KIND: ProviderKind = ProviderKind::Together;

    fn classify(api: ApiError, retry_after: Option<Duration>) -> Error {
        classify_by_words(api, retry_after)
    }
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
