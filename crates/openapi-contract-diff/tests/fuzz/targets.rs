//! Where the fuzzer may edit: every schema, parameter list, response set, media-type map and
//! security requirement an operation reaches, with the direction it travels in. Schemas are
//! found the way a message is read: from parameters, bodies and response headers down through
//! `$ref`s, properties, items, compositions and the 2020-12 applicators (not `not` and `if`,
//! whose changes are judged as a whole at the keyword).

use std::collections::HashSet;

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Request,
    Response,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Request => "request",
            Dir::Response => "response",
        }
    }
}

/// One place an edit can go.
#[derive(Debug, Clone)]
pub enum Target {
    /// A schema object at `ptr` (after `$ref`s), in `dir`; `roots` are the pointers under
    /// which a finding about it may be reported (its own, and the branch it belongs to);
    /// `header` for response-header schemas (text on the wire).
    Schema {
        ptr: String,
        dir: Dir,
        roots: Vec<String>,
        header: bool,
    },
    /// An operation at `ptr`.
    Operation { ptr: String },
    /// A `content` map at `ptr` (of a request body or a response).
    Content { ptr: String, dir: Dir },
    /// A parameter object at `ptr` (after `$ref`s): how it is serialised.
    Parameter { ptr: String },
}

pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Follows `$ref`s from `ptr`; `None` for a loop or a dangling reference.
pub fn resolve<'a>(root: &'a Value, ptr: &str) -> Option<(&'a Value, String)> {
    let (mut value, mut ptr) = (root.pointer(ptr)?, ptr.to_string());
    for _ in 0..32 {
        match value.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let target = r.strip_prefix('#')?.to_string();
                value = root.pointer(&target)?;
                ptr = target;
            }
            None => return Some((value, ptr)),
        }
    }
    None
}

/// Every target of `root`.
pub fn collect(root: &Value) -> Vec<Target> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, _) in paths {
        let Some((item, item_ptr)) = resolve(root, &format!("/paths/{}", escape(path))) else {
            continue;
        };
        for method in [
            "get", "put", "post", "delete", "patch", "head", "options", "trace",
        ] {
            let Some(op) = item.get(method) else { continue };
            // Changes to draft and alpha operations break nobody by policy: nothing to assert.
            if matches!(
                op.get("x-stability-level").and_then(Value::as_str),
                Some("draft" | "alpha")
            ) {
                continue;
            }
            let op_ptr = format!("{item_ptr}/{method}");
            out.push(Target::Operation {
                ptr: op_ptr.clone(),
            });
            for (list, at) in [
                (item.get("parameters"), &item_ptr),
                (op.get("parameters"), &op_ptr),
            ] {
                for i in 0..list.and_then(Value::as_array).map_or(0, Vec::len) {
                    let Some((p, pp)) = resolve(root, &format!("{at}/parameters/{i}")) else {
                        continue;
                    };
                    out.push(Target::Parameter { ptr: pp.clone() });
                    if p.get("schema").is_some() {
                        schema(
                            root,
                            &format!("{pp}/schema"),
                            Dir::Request,
                            &[],
                            false,
                            &mut seen,
                            &mut out,
                        );
                    }
                }
            }
            if let Some((body, bp)) = resolve(root, &format!("{op_ptr}/requestBody"))
                .filter(|_| op.get("requestBody").is_some())
            {
                content(root, body, &bp, Dir::Request, &mut seen, &mut out);
            }
            for (status, _) in op
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let Some((resp, rp)) =
                    resolve(root, &format!("{op_ptr}/responses/{}", escape(status)))
                else {
                    continue;
                };
                content(root, resp, &rp, Dir::Response, &mut seen, &mut out);
                for (name, _) in resp
                    .get("headers")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    if name.eq_ignore_ascii_case("content-type") {
                        continue;
                    }
                    let hp = format!("{rp}/headers/{}", escape(name));
                    if let Some((h, hp)) =
                        resolve(root, &hp).filter(|(h, _)| h.get("schema").is_some())
                    {
                        let _ = h;
                        schema(
                            root,
                            &format!("{hp}/schema"),
                            Dir::Response,
                            &[],
                            true,
                            &mut seen,
                            &mut out,
                        );
                    }
                }
            }
        }
    }
    out
}

fn content(
    root: &Value,
    node: &Value,
    ptr: &str,
    dir: Dir,
    seen: &mut HashSet<(String, bool)>,
    out: &mut Vec<Target>,
) {
    let Some(map) = node.get("content").and_then(Value::as_object) else {
        return;
    };
    out.push(Target::Content {
        ptr: format!("{ptr}/content"),
        dir,
    });
    for (media, entry) in map {
        if entry.get("schema").is_some() {
            let sp = format!("{ptr}/content/{}/schema", escape(media));
            schema(root, &sp, dir, &[], false, seen, out);
        }
    }
}

fn schema(
    root: &Value,
    use_ptr: &str,
    dir: Dir,
    roots: &[String],
    header: bool,
    seen: &mut HashSet<(String, bool)>,
    out: &mut Vec<Target>,
) {
    let Some((node, ptr)) = resolve(root, use_ptr) else {
        return;
    };
    let Some(map) = node.as_object() else { return };
    if !seen.insert((ptr.clone(), dir == Dir::Request)) {
        return;
    }
    // The flag on the schema or on any of its `allOf` members, as the walk reads it.
    let flag = |k: &str| {
        let members = map
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        std::iter::once(node)
            .chain(members.filter_map(|m| {
                let r = m.get("$ref").and_then(Value::as_str)?.strip_prefix('#')?;
                root.pointer(r)
            }))
            .chain(
                map.get("allOf")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            )
            .any(|m| m.get(k).and_then(Value::as_bool) == Some(true))
    };
    // Never sent (received) in this direction: nothing in it is contract there.
    if (dir == Dir::Request && flag("readOnly")) || (dir == Dir::Response && flag("writeOnly")) {
        return;
    }
    let mut own = roots.to_vec();
    own.push(ptr.clone());
    out.push(Target::Schema {
        ptr: ptr.clone(),
        dir,
        roots: own.clone(),
        header,
    });
    let mut child = |p: String, branch: bool, out: &mut Vec<Target>| {
        let roots = if branch { vec![p.clone()] } else { Vec::new() };
        schema(root, &p, dir, &roots, false, seen, out);
    };
    for key in ["properties", "patternProperties", "dependentSchemas"] {
        for (name, _) in map
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            child(format!("{ptr}/{key}/{}", escape(name)), false, out);
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "contains",
        "propertyNames",
        "then",
        "else",
        "contentSchema",
        "unevaluatedProperties",
        "unevaluatedItems",
    ] {
        if map.get(key).is_some_and(Value::is_object) {
            child(format!("{ptr}/{key}"), false, out);
        }
    }
    for key in ["allOf", "oneOf", "anyOf", "prefixItems"] {
        let list = map.get(key).and_then(Value::as_array);
        let n = list.map_or(0, Vec::len);
        for i in 0..n {
            // A branch of two or more may be paired anew by the edit: its use pointer counts.
            let branch = n > 1 && key != "allOf" && key != "prefixItems";
            child(format!("{ptr}/{key}/{i}"), branch, out);
        }
    }
}
