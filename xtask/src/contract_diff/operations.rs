//! The operation model and the top of the comparison: paths and operations matched with the
//! path-parameter names ignored (`/clusters/{id}` ≡ `/clusters/{cluster_id}`, oasdiff issue #202),
//! then each matched pair compared part by part.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::doc::Doc;
use super::emit::{Emitter, Loc};
use super::finding::{Change, Guard};
use super::rules::Rule;
use super::schema::Walker;
use super::{messages, parameters, security};
use crate::spec::escape_pointer_token;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation of a spec.
#[derive(Debug, Clone)]
pub struct Operation<'a> {
    pub method: &'static str,
    /// The path template as written.
    pub path: &'a str,
    pub node: &'a Map<String, Value>,
    /// Pointer of the operation object.
    pub ptr: String,
    pub path_item: &'a Map<String, Value>,
    pub path_item_ptr: String,
}

impl Operation<'_> {
    /// `METHOD /path` as findings name it.
    pub fn label(&self) -> String {
        format!("{} {}", self.method.to_ascii_uppercase(), self.path)
    }

    pub fn deprecated(&self) -> bool {
        self.node.get("deprecated").and_then(Value::as_bool) == Some(true)
    }
}

/// `/a/{id}/b` → `/a/{}/b`: the matching key of a path.
pub fn normalise_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            _ if in_param => {}
            _ => out.push(c),
        }
    }
    out
}

/// Every operation of `doc`, keyed by `METHOD normalised-path`.
pub fn operations(doc: &Doc) -> BTreeMap<String, Operation<'_>> {
    let mut out = BTreeMap::new();
    let Some(paths) = doc.tree.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        let item_ptr = format!("/paths/{}", escape_pointer_token(path));
        let (item, item_ptr) = doc.resolve(item, &item_ptr);
        let Some(item) = item.as_object() else {
            continue;
        };
        for method in METHODS {
            if let Some(Value::Object(node)) = item.get(method) {
                let key = format!("{} {}", method.to_ascii_uppercase(), normalise_path(path));
                out.insert(
                    key,
                    Operation {
                        method,
                        path,
                        node,
                        ptr: format!("{item_ptr}/{method}"),
                        path_item: item,
                        path_item_ptr: item_ptr.clone(),
                    },
                );
            }
        }
    }
    out
}

/// Compares two specs: every change, unjudged.
pub fn diff(base: &Doc, rev: &Doc) -> Vec<Change> {
    let (bops, rops) = (operations(base), operations(rev));
    let paths = |ops: &BTreeMap<String, Operation>| -> BTreeSet<String> {
        ops.values().map(|o| normalise_path(o.path)).collect()
    };
    let (bpaths, rpaths) = (paths(&bops), paths(&rops));
    let mut changes = Vec::new();
    for (key, b) in &bops {
        let mut out = Emitter::new(b.label());
        match rops.get(key) {
            Some(r) => compare_operation(base, rev, &mut out, b, r),
            None => {
                let whole_path = !rpaths.contains(&normalise_path(b.path));
                let deprecated = b.deprecated();
                let rule = match (whole_path, deprecated) {
                    (true, false) => Rule::PathRemovedWithoutDeprecation,
                    (true, true) => Rule::PathRemovedWithDeprecation,
                    (false, false) => Rule::RemovedWithoutDeprecation,
                    (false, true) => Rule::RemovedWithDeprecation,
                };
                let what = if whole_path { "path" } else { "operation" };
                let note = if deprecated {
                    " (it was deprecated)"
                } else {
                    ""
                };
                out.rule(
                    rule,
                    None,
                    Loc::Base(b.ptr.clone()),
                    "",
                    format!("{what} {} removed{note}", b.label()),
                );
            }
        }
        changes.extend(out.changes);
    }
    for (key, r) in &rops {
        if bops.contains_key(key) {
            continue;
        }
        let mut out = Emitter::new(r.label());
        let (rule, what) = if bpaths.contains(&normalise_path(r.path)) {
            (Rule::OperationAdded, "operation")
        } else {
            (Rule::PathAdded, "path")
        };
        out.rule(
            rule,
            None,
            Loc::Rev(r.ptr.clone()),
            "",
            format!("{what} {} added", r.label()),
        );
        changes.extend(out.changes);
    }
    changes
}

fn compare_operation<'a>(
    base: &'a Doc,
    rev: &'a Doc,
    out: &mut Emitter,
    b: &Operation<'a>,
    r: &Operation<'a>,
) {
    let label = r.label();
    match (b.deprecated(), r.deprecated()) {
        (false, true) => out.rule(
            Rule::Deprecated,
            None,
            Loc::Rev(format!("{}/deprecated", r.ptr)),
            "",
            format!("{label} deprecated"),
        ),
        (true, false) => out.rule(
            Rule::Reactivated,
            None,
            Loc::Rev(r.ptr.clone()),
            "",
            format!("{label} is no longer deprecated"),
        ),
        _ => {}
    }
    let op_id = |o: &Operation| {
        o.node
            .get("operationId")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let (Some(x), Some(y)) = (op_id(b), op_id(r))
        && x != y
    {
        let message = format!(
            "operationId changed from `{x}` to `{y}`: the wire is unchanged, but the generated method is renamed"
        );
        out.rule(
            Rule::OperationIdChanged,
            None,
            Loc::Rev(format!("{}/operationId", r.ptr)),
            "",
            message,
        );
    }
    security::compare(base, rev, out, b, r);
    let mut walker = Walker::new(base, rev, out);
    parameters::compare(&mut walker, b, r);
    messages::compare_request_body(&mut walker, b, r);
    messages::compare_responses(&mut walker, b, r);
}

/// Guard for removing something that BASE had marked deprecated.
pub fn deprecation(node: &Value) -> Option<Guard> {
    (node.get("deprecated").and_then(Value::as_bool) == Some(true)).then_some(Guard::Deprecated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keys_ignore_parameter_names() {
        assert_eq!(normalise_path("/a/{id}/b/{x_y}"), "/a/{}/b/{}");
        assert_eq!(normalise_path("/a"), "/a");
    }
}
