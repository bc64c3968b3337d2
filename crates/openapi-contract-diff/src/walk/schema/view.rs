//! A schema as the diff sees it: `$ref`s resolved and `allOf` flattened into a list of parts,
//! each with the pointer where it is written.
//!
//! Flattening makes `allOf: [{$ref: X}]` (the usual 3.0 way to make a reference nullable or
//! documented), a single-branch `oneOf`/`anyOf`, and `X` itself read the same, so wrapping or
//! inlining a component is no change. Keyword lookups say which part a keyword came from, so a
//! finding points at the line to edit.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use crate::load::document::Doc;
use crate::load::pointer;

/// One resolved object of a schema.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    pub node: &'a Map<String, Value>,
    pub ptr: String,
}

/// A resolved, `allOf`-flattened schema.
#[derive(Debug, Clone)]
pub struct Schema<'a> {
    /// The values the schema was built from (hashed to skip unchanged subtrees).
    pub roots: Vec<&'a Value>,
    pub parts: Vec<Part<'a>>,
    /// Where the schema is (after following its `$ref`); used for identity and locations.
    pub ptr: String,
}

/// What `additionalProperties` allows.
#[derive(Debug, Clone)]
pub enum Additional<'a> {
    Any,
    Never,
    Schema(&'a Value, String),
}

impl<'a> Schema<'a> {
    /// The schema written at `ptr` (a `$ref` or an inline schema).
    pub fn new(doc: &'a Doc, value: &'a Value, ptr: &str) -> Schema<'a> {
        Schema::union(doc, &[(value, ptr.to_string())])
    }

    /// The conjunction of several schemas (a property defined in two `allOf` parts).
    pub fn union(doc: &'a Doc, values: &[(&'a Value, String)]) -> Schema<'a> {
        let mut schema = Schema {
            roots: values.iter().map(|(v, _)| *v).collect(),
            parts: Vec::new(),
            ptr: String::new(),
        };
        let mut seen = HashSet::new();
        for (value, ptr) in values {
            let (node, ptr) = doc.resolve(value, ptr);
            if schema.ptr.is_empty() {
                schema.ptr = ptr.clone();
            }
            schema.expand(doc, node, ptr, &mut seen);
        }
        schema
    }

    fn expand(&mut self, doc: &'a Doc, node: &'a Value, ptr: String, seen: &mut HashSet<String>) {
        let Some(map) = node.as_object() else {
            return;
        };
        if !seen.insert(ptr.clone()) {
            return;
        }
        self.parts.push(Part {
            node: map,
            ptr: ptr.clone(),
        });
        let mut nested = Vec::new();
        if let Some(Value::Array(list)) = map.get("allOf") {
            nested.extend(
                list.iter()
                    .enumerate()
                    .map(|(i, v)| (v, format!("{ptr}/allOf/{i}"))),
            );
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(list)) = map.get(key)
                && list.len() == 1
            {
                nested.push((&list[0], format!("{ptr}/{key}/0")));
            }
        }
        for (value, at) in nested {
            let (node, ptr) = doc.resolve(value, &at);
            self.expand(doc, node, ptr, seen);
        }
    }

    /// The first part that has `key`, with the pointer of that keyword.
    pub fn get(&self, key: &str) -> Option<(&'a Value, String)> {
        self.parts.iter().find_map(|p| {
            p.node
                .get(key)
                .map(|v| (v, format!("{}/{}", p.ptr, pointer::escape(key))))
        })
    }

    fn flag(&self, key: &str) -> bool {
        self.parts
            .iter()
            .any(|p| p.node.get(key).and_then(Value::as_bool) == Some(true))
    }

    /// `type`, or the type its keywords imply (`properties` → object, `items` → array).
    pub fn type_name(&self) -> Option<&'a str> {
        if let Some((Value::String(t), _)) = self.get("type") {
            return Some(t);
        }
        if self.get("properties").is_some() || self.get("additionalProperties").is_some() {
            Some("object")
        } else if self.get("items").is_some() {
            Some("array")
        } else {
            // `enum` alone fixes the type too (the provider's 3.1 documents often omit it).
            let (values, _) = self.enum_values()?;
            let kind = |v: &Value| match v {
                Value::String(_) => Some("string"),
                Value::Bool(_) => Some("boolean"),
                Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
                Value::Number(_) => Some("number"),
                _ => None,
            };
            let first = kind(values.first()?)?;
            values
                .iter()
                .all(|v| kind(v) == Some(first))
                .then_some(first)
        }
    }

    /// `pattern` and its pointer, unless it matches every string (then it constrains nothing).
    pub fn pattern(&self) -> Option<(&'a Value, String)> {
        self.get("pattern")
            .filter(|(v, _)| !v.as_str().is_some_and(matches_everything))
    }

    pub fn format(&self) -> Option<&'a str> {
        self.get("format").and_then(|(v, _)| v.as_str())
    }

    pub fn nullable(&self) -> bool {
        self.flag("nullable")
            || self
                .get("enum")
                .and_then(|(v, _)| v.as_array())
                .is_some_and(|vs| vs.iter().any(Value::is_null))
    }

    pub fn read_only(&self) -> bool {
        self.flag("readOnly")
    }

    pub fn write_only(&self) -> bool {
        self.flag("writeOnly")
    }

    pub fn deprecated(&self) -> bool {
        self.flag("deprecated")
    }

    /// The non-null enum values and the pointer of the `enum` keyword; a 3.1 `const` is an
    /// enum of one value (with the pointer of `const`).
    pub fn enum_values(&self) -> Option<(Vec<&'a Value>, String)> {
        if let Some((values, ptr)) = self.get("enum") {
            let values = values.as_array()?.iter().filter(|v| !v.is_null()).collect();
            return Some((values, ptr));
        }
        let (value, ptr) = self.get("const")?;
        Some((
            (!value.is_null()).then_some(value).into_iter().collect(),
            ptr,
        ))
    }

    /// The values are a `const`, not an `enum`.
    pub fn is_const(&self) -> bool {
        self.get("enum").is_none() && self.get("const").is_some()
    }

    /// The types allowed: `type` as one name or a 3.1 list (without `null`), or the one type
    /// the keywords imply.
    pub fn types(&self) -> Option<BTreeSet<&'a str>> {
        match self.get("type") {
            Some((Value::Array(list), _)) => Some(
                list.iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect(),
            ),
            _ => self.type_name().map(|t| BTreeSet::from([t])),
        }
    }

    /// Whether generated clients accept values this enum does not list: a named string enum in
    /// `components/schemas` is taken to become an open Rust enum (one with an `Unknown(..)`
    /// variant), and `x-extensible-enum: true` says so explicitly.
    pub fn open_enum(&self) -> bool {
        if self.flag("x-extensible-enum") {
            return true;
        }
        self.get("enum").is_some_and(|(_, ptr)| {
            let owner = ptr.trim_end_matches("/enum");
            owner
                .strip_prefix("/components/schemas/")
                .is_some_and(|name| !name.contains('/'))
                && self.type_name() == Some("string")
        })
    }

    /// The strictest value of a numeric keyword across the parts, with its pointer.
    pub fn bound(&self, key: &str, upper: bool) -> Option<(f64, bool, String)> {
        let exclusive_key = match key {
            "maximum" => Some("exclusiveMaximum"),
            "minimum" => Some("exclusiveMinimum"),
            _ => None,
        };
        let mut best: Option<(f64, bool, String)> = None;
        for part in &self.parts {
            let flag = exclusive_key.and_then(|k| part.node.get(k).map(|v| (k, v)));
            // OpenAPI 3.0's boolean `exclusiveMaximum` qualifies the `maximum` beside it and
            // constrains nothing alone; a number there (JSON Schema 2020-12, met in 3.0
            // documents too) is an exclusive bound of its own.
            let mut candidates = Vec::with_capacity(2);
            if let Some(n) = part.node.get(key).and_then(Value::as_f64) {
                let exclusive = flag.and_then(|(_, v)| v.as_bool()).unwrap_or(false);
                candidates.push((n, exclusive, format!("{}/{key}", part.ptr)));
            }
            if let Some((k, n)) = flag.and_then(|(k, v)| v.as_f64().map(|n| (k, n))) {
                candidates.push((n, true, format!("{}/{k}", part.ptr)));
            }
            for (n, exclusive, ptr) in candidates {
                // Stricter: a tighter value, or the same value made exclusive.
                let stricter = match &best {
                    None => true,
                    Some((b, e, _)) if n == *b => exclusive && !e,
                    Some((b, _, _)) if upper => n < *b,
                    Some((b, _, _)) => n > *b,
                };
                if stricter {
                    best = Some((n, exclusive, ptr));
                }
            }
        }
        best
    }

    /// Properties of all parts: name → the schemas that define it (usually one).
    pub fn properties(&self) -> BTreeMap<&'a str, Vec<(&'a Value, String)>> {
        let mut out: BTreeMap<&'a str, Vec<(&'a Value, String)>> = BTreeMap::new();
        for part in &self.parts {
            if let Some(Value::Object(props)) = part.node.get("properties") {
                for (name, schema) in props {
                    let ptr = format!("{}/properties/{}", part.ptr, pointer::escape(name));
                    out.entry(name.as_str()).or_default().push((schema, ptr));
                }
            }
        }
        out
    }

    pub fn required(&self) -> BTreeSet<&'a str> {
        self.parts
            .iter()
            .filter_map(|p| p.node.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    pub fn additional(&self) -> Additional<'a> {
        match self.get("additionalProperties") {
            Some((Value::Bool(false), _)) => Additional::Never,
            Some((value @ Value::Object(map), ptr)) if !map.is_empty() => {
                Additional::Schema(value, ptr)
            }
            _ => Additional::Any,
        }
    }

    /// `oneOf` or `anyOf` with two or more branches: the keyword and the branches.
    pub fn branches(&self) -> Option<(&'static str, Vec<(&'a Value, String)>)> {
        for key in ["oneOf", "anyOf"] {
            for part in &self.parts {
                if let Some(Value::Array(list)) = part.node.get(key)
                    && list.len() > 1
                {
                    let branches = list
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, format!("{}/{key}/{i}", part.ptr)))
                        .collect();
                    return Some((key, branches));
                }
            }
        }
        None
    }

    /// Whether the schema says anything besides its composition.
    pub fn has_structure(&self) -> bool {
        const STRUCTURAL: [&str; 6] = [
            "type",
            "properties",
            "items",
            "enum",
            "additionalProperties",
            "format",
        ];
        self.parts
            .iter()
            .any(|p| STRUCTURAL.iter().any(|k| p.node.contains_key(*k)))
    }

    /// Content hash of the whole schema (with references followed).
    pub fn hash(&self, doc: &Doc) -> u64 {
        use std::hash::{DefaultHasher, Hash, Hasher};
        match self.roots.as_slice() {
            [one] => doc.hash(one),
            many => {
                let mut h = DefaultHasher::new();
                for root in many {
                    doc.hash(root).hash(&mut h);
                }
                h.finish()
            }
        }
    }
}

/// Whether an ECMA-262 pattern, applied unanchored as JSON Schema does, matches every string:
/// the empty pattern, `.*` (with at most one anchor: `^.*$` refuses line breaks), or
/// `[\s\S]*` with any anchors; each optionally in a group.
pub fn matches_everything(pattern: &str) -> bool {
    let (start, p) = match pattern.strip_prefix('^') {
        Some(p) => (true, p),
        None => (false, pattern),
    };
    let (end, p) = match p.strip_suffix('$') {
        Some(p) => (true, p),
        None => (false, p),
    };
    let p = p
        .strip_prefix("(?:")
        .or_else(|| p.strip_prefix('('))
        .and_then(|q| q.strip_suffix(')'))
        .unwrap_or(p);
    match p {
        "" => !(start && end),
        ".*" => !(start && end),
        "[\\s\\S]*" | "[\\S\\s]*" => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::matches_everything;

    #[test]
    fn patterns_that_constrain_nothing() {
        for p in ["", ".*", "^.*", ".*$", "(.*)", "(?:.*)", "^[\\s\\S]*$"] {
            assert!(matches_everything(p), "{p}");
        }
        for p in ["^.*$", "^$", "a*", "^[a-z]+$", ".+", "^(.*)$"] {
            assert!(!matches_everything(p), "{p}");
        }
    }
}
