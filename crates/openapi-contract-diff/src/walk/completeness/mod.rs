//! The completeness guarantee: after `$ref` resolution, every difference between BASE and
//! REVISION in a keyword that constrains the wire is claimed by a rule or reported as an
//! `unclassified-change` (WARN) with both values and its pointer. "No changes" then means the
//! contracts are equal, not that no rule happened to look.
//!
//! This is a second, independent reading of each matched operation, simpler than the rules and
//! judging nothing: [`operation`] walks parameters, bodies, responses, headers and security in
//! the shape the rules use (media types, statuses and header names normalised the same way,
//! parameters matched by location and name), and [`schema`] compares schemas keyword by
//! keyword with `allOf` flattened. Its differences are then subtracted from what the rules did.
//! A difference is claimed by a finding of the same operation at or under its pointer, by a
//! finding at one of its anchors (the property or parameter a keyword is reported at, such as
//! `required`), by any finding under one of its subtrees (a `oneOf` judged branch by branch),
//! or by a rule's claim on a subtree above it (a type swap, a property never sent).
//!
//! Annotations (descriptions, titles, examples, `deprecated`, `x-` extensions) are not wire
//! constraints. `servers` are read whole by their own rules (`servers.rs`: every URL and each
//! variable's values and default), so this pass does not read them again. Drift (`--against`)
//! asks another question and does not run this pass.

mod operation;
mod schema;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::judge::finding::Change;
use crate::judge::levels::Direction;
use crate::load::document::Doc;
use crate::walk::emitter::{Emitter, Loc};
use crate::walk::operation::operations;

/// One difference found by the structural reading.
#[derive(Debug)]
struct Difference {
    direction: Direction,
    /// Where it is in BASE (absent when REVISION added it).
    base: Option<String>,
    /// Where it is in REVISION (absent when REVISION removed it).
    rev: Option<String>,
    /// Pointers at which a finding claims this difference exactly.
    anchors: Vec<String>,
    /// Pointers under which any finding claims it.
    subtrees: Vec<String>,
    /// What differs, for the message: a keyword, `property`, `parameter`, …
    what: String,
    before: Option<String>,
    after: Option<String>,
}

/// What one operation's reading collects.
struct Collector<'a> {
    base: &'a Doc,
    rev: &'a Doc,
    diffs: Vec<Difference>,
    visited: HashSet<(Direction, String, String)>,
}

impl Collector<'_> {
    /// Values at `b` and `r` (either may be missing) differ; `what` names them.
    fn differ(
        &mut self,
        direction: Direction,
        what: &str,
        b: Option<(&Value, String)>,
        r: Option<(&Value, String)>,
    ) {
        self.diffs.push(Difference {
            direction,
            before: b.as_ref().map(|(v, _)| show(v)),
            after: r.as_ref().map(|(v, _)| show(v)),
            base: b.map(|(_, p)| p),
            rev: r.map(|(_, p)| p),
            anchors: Vec::new(),
            subtrees: Vec::new(),
            what: what.to_string(),
        });
    }

    /// The last difference pushed, to add anchors or subtrees to it.
    fn last(&mut self) -> Option<&mut Difference> {
        self.diffs.last_mut()
    }

    /// Whether two values (one per document) say the same, references followed and
    /// annotations ignored.
    fn same(&self, b: &Value, r: &Value) -> bool {
        self.base.hash(b) == self.rev.hash(r)
    }
}

/// A value as messages show it: compact JSON, cut at 80 characters.
fn show(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// What the rules reported, per operation label.
pub struct Reported<'c> {
    /// Finding locations, per operation.
    locations: HashMap<&'c str, Vec<&'c str>>,
    /// Subtrees claimed, per operation.
    claims: HashMap<&'c str, Vec<&'c str>>,
}

impl<'c> Reported<'c> {
    pub fn new(changes: &'c [Change], claims: &'c [(String, String)]) -> Reported<'c> {
        let mut locations: HashMap<&str, Vec<&str>> = HashMap::new();
        for c in changes {
            locations
                .entry(c.operation.as_str())
                .or_default()
                .push(c.location.as_str());
        }
        let mut by_op: HashMap<&str, Vec<&str>> = HashMap::new();
        for (op, ptr) in claims {
            by_op.entry(op.as_str()).or_default().push(ptr.as_str());
        }
        Reported {
            locations,
            claims: by_op,
        }
    }

    fn claimed(&self, op: &str, d: &Difference) -> bool {
        let locations = self
            .locations
            .get(op)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let claims = self.claims.get(op).map(Vec::as_slice).unwrap_or_default();
        let own = || d.base.iter().chain(&d.rev);
        own().any(|p| locations.iter().any(|l| under(l, p)))
            || own().any(|p| claims.iter().any(|c| under(p, c)))
            || d.anchors.iter().any(|a| locations.contains(&a.as_str()))
            || d.subtrees
                .iter()
                .any(|s| locations.iter().any(|l| under(l, s)))
    }
}

/// `ptr` is `root` or below it.
fn under(ptr: &str, root: &str) -> bool {
    ptr == root
        || (ptr.len() > root.len() && ptr.starts_with(root) && ptr.as_bytes()[root.len()] == b'/')
}

/// Every difference of the matched operations of `base` and `rev` that `reported` does not
/// account for, as `unclassified-change` findings.
pub fn unclaimed(base: &Doc, rev: &Doc, reported: &Reported) -> Vec<Change> {
    let (bops, rops) = (operations(base), operations(rev));
    let mut out = Vec::new();
    for (key, b) in &bops {
        let Some(r) = rops.get(key) else {
            continue; // an operation added or removed is a finding of its own
        };
        let mut c = Collector {
            base,
            rev,
            diffs: Vec::new(),
            visited: HashSet::new(),
        };
        operation::compare(&mut c, b, r);
        // Findings of a matched operation are named after BASE (see `walk::diff`).
        let label = b.label();
        let mut emitter = Emitter::new(label.clone());
        for mut d in c.diffs {
            if reported.claimed(&label, &d) {
                continue;
            }
            if b.webhook {
                // The API sends a webhook's request and the client answers it.
                d.direction = match d.direction {
                    Direction::Request => Direction::Response,
                    Direction::Response => Direction::Request,
                    other => other,
                };
            }
            let none = || "absent".to_string();
            let message = format!(
                "`{}` changed from {} to {}: no rule judges this change, review it",
                d.what,
                d.before.unwrap_or_else(none),
                d.after.unwrap_or_else(none)
            );
            let loc = match (d.rev, d.base) {
                (Some(p), _) => Loc::Rev(p),
                (None, Some(p)) => Loc::Base(p),
                (None, None) => Loc::Rev(r.ptr.clone()),
            };
            emitter.unclassified(d.direction, loc, &d.what, message);
        }
        out.extend(emitter.changes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::under;
    use crate::{Level, Options, diff};

    #[test]
    fn an_unjudged_difference_names_both_values_and_its_pointer() {
        let spec = |encoding: &str| {
            format!(
                "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /c:\n    post:\n      requestBody:\n        content:\n          multipart/form-data:\n            schema: {{type: object}}\n            encoding: {{file: {{contentType: {encoding}}}}}\n      responses: {{'200': {{description: ok}}}}\n"
            )
        };
        let (png, jpeg) = (spec("image/png"), spec("image/jpeg"));
        let report = diff(&png, &jpeg, &Options::default()).unwrap();
        let findings: Vec<_> = report.findings().collect();
        assert_eq!(findings.len(), 1, "{findings:#?}");
        let f = findings[0];
        assert_eq!(
            (
                f.id.as_str(),
                f.level,
                f.location.as_str(),
                f.operation.as_str()
            ),
            (
                "unclassified-change",
                Level::Warn,
                "/paths/~1c/post/requestBody/content/multipart~1form-data/encoding",
                "POST /c"
            )
        );
        assert_eq!(
            f.message,
            "`encoding` changed from {\"file\":{\"contentType\":\"image/png\"}} to {\"file\":{\"contentType\":\"image/jpeg\"}}: no rule judges this change, review it"
        );
    }

    #[test]
    fn a_parameter_written_with_its_defaults_is_no_change() {
        let spec = |serialisation: &str| {
            format!(
                "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /c:\n    get:\n      parameters:\n      - {{name: q, in: query, {serialisation}schema: {{type: array}}}}\n      responses: {{'200': {{description: ok}}}}\n"
            )
        };
        let written =
            spec("style: form, explode: true, allowEmptyValue: false, allowReserved: false, ");
        let same = diff(&spec(""), &written, &Options::default()).unwrap();
        assert_eq!(same.findings().count(), 0);
    }

    #[test]
    fn under_is_by_whole_tokens() {
        assert!(under("/a/b", "/a"));
        assert!(under("/a", "/a"));
        assert!(!under("/ab", "/a"));
        assert!(!under("/a", "/a/b"));
    }
}
