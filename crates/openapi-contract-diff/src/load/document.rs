//! One side of a diff: the document tree, `$ref` resolution, and content hashes.
//!
//! Every `$ref` is checked when the document is loaded, so an unresolved or external reference
//! fails the run (exit 2) with the file and the pointer of the `$ref`, instead of silently hiding
//! part of the contract; after that, resolution cannot fail.
//!
//! The content hash identifies a subtree *with everything it references*, ignoring names and
//! documentation. Equal hashes mean the two sides say the same thing, so the walk can skip them;
//! this is what makes a renamed or inlined component "no change" cheaply.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use crate::load::key_context::Ctx;
use crate::load::{openapi31_rewrite, outline, pointer, yaml};

/// A loaded, normalised spec.
#[derive(Debug)]
pub struct Doc {
    /// How messages name it: a path, or `REV:path`.
    pub name: String,
    pub tree: Value,
    /// The input was OpenAPI 3.1 (normalised to 3.0 in memory).
    pub was_31: bool,
    /// Content hashes of `$ref` targets (by pointer) and of inline nodes (by address).
    hashes: RefCell<HashMap<HashKey, u64>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum HashKey {
    Pointer(String),
    Address(usize),
}

impl Doc {
    /// Parses `text` (YAML or JSON), named `name` in messages, then normalises and checks it.
    pub fn parse(name: String, text: &str) -> Result<Doc> {
        let tree = yaml::tree(&name, text)?;
        Doc::new(tree, name)
    }

    /// Checks a parsed spec's outline (`openapi`, `info`, `paths`; see `outline`), then
    /// normalises it and checks every `$ref`.
    pub fn new(mut tree: Value, name: String) -> Result<Doc> {
        outline::check(&name, &tree)?;
        let was_31 = openapi31_rewrite::normalise(&mut tree);
        check_refs(&name, &tree, &tree, Ctx::Keywords, &mut String::new())?;
        Ok(Doc {
            name,
            tree,
            was_31,
            hashes: RefCell::new(HashMap::new()),
        })
    }

    /// Follows `value`'s `$ref` chain; returns the target and its pointer (or `value` and `ptr`).
    pub fn resolve<'a>(&'a self, value: &'a Value, ptr: &str) -> (&'a Value, String) {
        let (mut value, mut ptr) = (value, ptr.to_string());
        // Chains are checked for loops at load time; the bound is a second safety net.
        for _ in 0..64 {
            let Some(target) = ref_target(value) else {
                break;
            };
            match self.tree.pointer(&target) {
                Some(next) => {
                    value = next;
                    ptr = target;
                }
                None => break,
            }
        }
        (value, ptr)
    }

    /// The value at `ptr`, resolved.
    pub fn at(&self, ptr: &str) -> Option<(&Value, String)> {
        self.tree.pointer(ptr).map(|v| self.resolve(v, ptr))
    }

    /// Content hash of `value` with its references followed.
    pub fn hash(&self, value: &Value) -> u64 {
        self.hash_inner(value, Ctx::Keywords, &mut Vec::new(), &mut false)
    }

    /// `ctx` says what the keys of `value` are (see [`Ctx`]): a node is always reached in the
    /// same context (a `$ref` target is a schema, parameter… of keywords), so the cache by
    /// address stays right.
    fn hash_inner(
        &self,
        value: &Value,
        ctx: Ctx,
        stack: &mut Vec<String>,
        cyclic: &mut bool,
    ) -> u64 {
        // Only an object of keywords can be a reference: a property named `$ref` is a property.
        let reference = (ctx == Ctx::Keywords).then(|| ref_target(value)).flatten();
        if let Some(target) = reference {
            if let Some(h) = self.hashes.borrow().get(&HashKey::Pointer(target.clone())) {
                return *h;
            }
            if stack.contains(&target) {
                *cyclic = true;
                let mut h = DefaultHasher::new();
                ("cycle", &target).hash(&mut h);
                return h.finish();
            }
            let Some(next) = self.tree.pointer(&target) else {
                return 0;
            };
            stack.push(target.clone());
            let mut inner = false;
            let h = self.hash_inner(next, Ctx::Keywords, stack, &mut inner);
            stack.pop();
            if inner {
                *cyclic = true;
            } else {
                self.hashes.borrow_mut().insert(HashKey::Pointer(target), h);
            }
            return h;
        }
        let address = HashKey::Address(value as *const Value as usize);
        if let Some(h) = self.hashes.borrow().get(&address) {
            return *h;
        }
        let mut h = DefaultHasher::new();
        let mut inner = false;
        match value {
            Value::Object(map) => {
                "object".hash(&mut h);
                let mut keys: Vec<&String> = map.keys().filter(|k| !ctx.is_annotation(k)).collect();
                keys.sort();
                for key in keys {
                    key.hash(&mut h);
                    self.hash_inner(&map[key], ctx.child(key), stack, &mut inner)
                        .hash(&mut h);
                }
            }
            Value::Array(items) => {
                ("array", items.len()).hash(&mut h);
                for item in items {
                    self.hash_inner(item, ctx.item(), stack, &mut inner)
                        .hash(&mut h);
                }
            }
            other => other.to_string().hash(&mut h),
        }
        let result = h.finish();
        if inner {
            *cyclic = true;
        } else if matches!(value, Value::Object(_) | Value::Array(_)) {
            self.hashes.borrow_mut().insert(address, result);
        }
        result
    }
}

/// Loads two documents at once, BASE here and REVISION on a second thread: parsing YAML is most
/// of the run time on large specs. When both fail, BASE's error is the one returned.
pub fn load_pair(
    base: impl FnOnce() -> Result<Doc>,
    revision: impl FnOnce() -> Result<Doc> + Send,
    revision_name: impl FnOnce() -> String,
) -> Result<(Doc, Doc)> {
    std::thread::scope(|s| {
        let other = s.spawn(revision);
        let base = base()?;
        let revision = other
            .join()
            .unwrap_or_else(|_| Err(anyhow!("{}: loading panicked", revision_name())))?;
        Ok((base, revision))
    })
}

/// The JSON pointer a `{"$ref": "#/…"}` object points at.
pub fn ref_target(value: &Value) -> Option<String> {
    let reference = value.get("$ref")?.as_str()?;
    let fragment = reference.strip_prefix('#')?;
    Some(percent_decode(fragment))
}

/// The last token of a `$ref` (the component name), for matching renamed `oneOf` branches.
pub fn ref_name(value: &Value) -> Option<&str> {
    value.get("$ref")?.as_str()?.rsplit('/').next()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Fails on the first `$ref` that is external, dangling, or part of a pure reference loop.
fn check_refs(name: &str, root: &Value, value: &Value, ctx: Ctx, ptr: &mut String) -> Result<()> {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").filter(|_| ctx == Ctx::Keywords) {
                let text = reference.as_str().unwrap_or_default();
                let Some(target) = ref_target(value) else {
                    bail!(
                        "{name}: at {ptr}/$ref: unsupported $ref {text:?} (only references inside the document, `#/…`)"
                    );
                };
                let mut seen = vec![target.clone()];
                let mut current = root.pointer(&target);
                while let Some(next) = current.and_then(ref_target) {
                    if seen.contains(&next) {
                        bail!("{name}: at {ptr}/$ref: $ref {text:?} is a loop of references");
                    }
                    seen.push(next.clone());
                    current = root.pointer(&next);
                }
                if current.is_none() {
                    bail!(
                        "{name}: at {ptr}/$ref: unresolved $ref {text:?} ({} does not exist)",
                        seen.last().map(String::as_str).unwrap_or_default()
                    );
                }
            }
            for (key, child) in map {
                let len = ptr.len();
                ptr.push('/');
                ptr.push_str(&pointer::escape(key));
                check_refs(name, root, child, ctx.child(key), ptr)?;
                ptr.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let len = ptr.len();
                ptr.push_str(&format!("/{i}"));
                check_refs(name, root, child, ctx.item(), ptr)?;
                ptr.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `text` with the `info` (and, if it has none, the `paths`) every document needs.
    fn doc(text: &str) -> Result<Doc> {
        let paths = if text.contains("\npaths:") {
            ""
        } else {
            "paths: {}\n"
        };
        Doc::parse(
            "t.yaml".into(),
            &format!("{text}info: {{title: t, version: '1'}}\n{paths}"),
        )
    }

    #[test]
    fn unresolved_ref_names_file_and_pointer() {
        let err = doc("openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/Nope'\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.yaml: at /paths/~1a/get/parameters/0/$ref: unresolved $ref"),
            "{err}"
        );
    }

    #[test]
    fn renamed_component_hashes_equal() {
        let d = doc("openapi: 3.0.3\ncomponents:\n  schemas:\n    A: {type: object, description: a, properties: {x: {$ref: '#/components/schemas/S'}}}\n    B: {type: object, properties: {x: {$ref: '#/components/schemas/T'}}}\n    S: {type: string, enum: [a]}\n    T: {type: string, enum: [a], title: other}\n").unwrap();
        let a = d.tree.pointer("/components/schemas/A").unwrap();
        let b = d.tree.pointer("/components/schemas/B").unwrap();
        assert_eq!(d.hash(a), d.hash(b));
        assert_ne!(d.hash(a), d.hash(&json!({"type": "object"})));
    }

    #[test]
    fn properties_named_like_annotations_are_hashed() {
        let d = doc("openapi: 3.0.3\ncomponents:\n  schemas:\n    A: {type: object, properties: {description: {type: string}, x-id: {type: string}}}\n    B: {type: object, properties: {description: {type: integer}, x-id: {type: string}}}\n    C: {type: object, properties: {description: {type: string}, x-id: {type: string, maxLength: 1}}}\n").unwrap();
        let h = |n: &str| d.hash(d.tree.pointer(&format!("/components/schemas/{n}")).unwrap());
        assert_ne!(h("A"), h("B"));
        assert_ne!(h("A"), h("C"));
    }

    #[test]
    fn cycles_hash_and_resolve() {
        let d = doc("openapi: 3.0.3\ncomponents:\n  schemas:\n    N: {type: object, properties: {next: {$ref: '#/components/schemas/N'}}}\n").unwrap();
        let n = d.tree.pointer("/components/schemas/N").unwrap();
        assert_eq!(d.hash(n), d.hash(n));
        let (_, ptr) = d.resolve(&n["properties"]["next"], "/x");
        assert_eq!(ptr, "/components/schemas/N");
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/paths/~1a%7Bid%7D"), "/paths/~1a{id}");
    }
}
