//! The error of the public API: why a diff could not be made.

use std::fmt;

/// Why a diff could not be made: an unreadable file, one that is not a regular file or is over
/// its size limit ([`input`](crate::load::input)), invalid YAML or JSON, a document that is not
/// OpenAPI 3.0 or 3.1 (Swagger 2.0 is named as such) or whose `openapi`, `info` or `paths` is
/// missing or of the wrong type, an unresolved `$ref`, an unknown git revision, or a malformed
/// acknowledgement file. The message names the file and, where there is one, the JSON pointer of
/// the offending node; it may span several lines only when an underlying tool's message does.
pub struct Error(anyhow::Error);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The alternate form joins the context chain: `specs/x.yaml: cannot read the file: …`.
        write!(f, "{:#}", self.0)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?})", format!("{:#}", self.0))
    }
}

impl std::error::Error for Error {}

impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Error {
        Error(e)
    }
}
