//! The operation model: every operation of a document with the path item it belongs to, keyed
//! by method and path template with the path-parameter names ignored, and what `deprecated: true`
//! means for a removal.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::judge::levels::Guard;
use crate::load::document::Doc;
use crate::load::pointer;

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
    /// The same object as a value (for content hashes).
    pub value: &'a Value,
    /// Pointer of the operation object.
    pub ptr: String,
    pub path_item: &'a Map<String, Value>,
    pub path_item_ptr: String,
    /// An OpenAPI 3.1 webhook (`path` is its name): the API sends the request and the client
    /// answers, so the directions of its messages are reversed.
    pub webhook: bool,
}

impl Operation<'_> {
    /// `METHOD /path` as findings name it.
    pub fn label(&self) -> String {
        let method = self.method.to_ascii_uppercase();
        if self.webhook {
            format!("{method} webhook {}", self.path)
        } else {
            format!("{method} {}", self.path)
        }
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

/// Every operation of `doc`, keyed by `METHOD normalised-path` (`METHOD webhook name` for the
/// 3.1 webhooks).
pub fn operations(doc: &Doc) -> BTreeMap<String, Operation<'_>> {
    let mut out = BTreeMap::new();
    for (section, webhook) in [("paths", false), ("webhooks", true)] {
        collect(doc, section, webhook, &mut out);
    }
    out
}

fn collect<'a>(
    doc: &'a Doc,
    section: &str,
    webhook: bool,
    out: &mut BTreeMap<String, Operation<'a>>,
) {
    let Some(paths) = doc.tree.get(section).and_then(Value::as_object) else {
        return;
    };
    for (path, item) in paths {
        if path.starts_with("x-") {
            continue; // an extension, not a path
        }
        let item_ptr = format!("/{section}/{}", pointer::escape(path));
        let (item, item_ptr) = doc.resolve(item, &item_ptr);
        let Some(item) = item.as_object() else {
            continue;
        };
        for method in METHODS {
            if let Some(value @ Value::Object(node)) = item.get(method) {
                let name = if webhook {
                    format!("webhook {path}")
                } else {
                    normalise_path(path)
                };
                let key = format!("{} {name}", method.to_ascii_uppercase());
                out.insert(
                    key,
                    Operation {
                        method,
                        path,
                        node,
                        value,
                        ptr: format!("{item_ptr}/{method}"),
                        path_item: item,
                        path_item_ptr: item_ptr.clone(),
                        webhook,
                    },
                );
            }
        }
    }
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
