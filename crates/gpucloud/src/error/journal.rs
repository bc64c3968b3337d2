//! The error a journal answers with: defined beside [`Error`](super::Error), which carries it,
//! so the error module needs nothing from the journal module that records calls.

use std::fmt;
use std::sync::Arc;

/// A journal could not record (or read) what a call needs: the call is not made. It keeps the
/// error that caused it (the database's, say) as its [`std::error::Error::source`], so a caller
/// can tell a full disk from a locked file.
#[derive(Debug, Clone)]
pub struct JournalError {
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl JournalError {
    /// An error with no underlying cause.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// An error that `source` caused.
    pub fn caused_by(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            message: message.into(),
            source: Some(Arc::new(source)),
        }
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Equal when they say the same: a source is compared by what it says too.
impl PartialEq for JournalError {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
            && self.source.as_ref().map(ToString::to_string)
                == other.source.as_ref().map(ToString::to_string)
    }
}

impl Eq for JournalError {}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
