//! Lints a spec for what progenitor 0.15 mishandles, before it gets the chance to panic or to
//! generate a client that silently loses data.
//!
//! Each violation names the spec file and the JSON pointer of the offending node, and all of them
//! are reported at once so a spec author fixes them in one pass. `operations` checks paths,
//! parameters, request bodies and responses; `schemas` checks every schema, components and
//! inline.

mod operations;
mod schemas;
#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value;

use crate::spec::SpecFile;

/// One rule broken at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// RFC 6901 pointer into the spec.
    pub pointer: String,
    /// What is wrong and why it matters.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.message)
    }
}

/// Returns every violation in `spec`, in document order.
pub fn lint(spec: &SpecFile) -> Vec<Violation> {
    let mut out = Vec::new();
    let tree = &spec.tree;
    let version = tree.get("openapi").and_then(Value::as_str).unwrap_or("");
    if !version.starts_with("3.0.") {
        push(
            &mut out,
            "/openapi",
            format!("version {version:?} must be 3.0.x"),
        );
    }
    operations::lint(tree, &mut out);
    schemas::lint(tree, "", &mut out);
    out
}

fn push(out: &mut Vec<Violation>, pointer: impl Into<String>, message: impl Into<String>) {
    out.push(Violation {
        pointer: pointer.into(),
        message: message.into(),
    });
}
