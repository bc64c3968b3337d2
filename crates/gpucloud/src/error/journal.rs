//! The error a journal answers with: defined beside [`Error`](super::Error), which carries it,
//! so the error module needs nothing from the journal module that records calls.

use std::fmt;

/// A journal could not record an intent: the call is not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalError(pub String);

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JournalError {}
