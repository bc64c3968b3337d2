//! The structural reading of one matched operation: parameters, request body, responses,
//! response headers, security and callbacks, keyed as the rules key them.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Collector, schema};
use crate::judge::levels::Direction;
use crate::load::document::Doc;
use crate::load::key_context::Ctx;
use crate::load::pointer;
use crate::walk::bodies::{content, headers, responses};
use crate::walk::operation::Operation;
use crate::walk::parameters::{Param, params};
use crate::walk::schema::Schema;

/// A node and its pointer.
type At<'a> = (&'a Value, String);

pub fn compare<'a>(c: &mut Collector<'a>, b: &Operation<'a>, r: &Operation<'a>) {
    if same_operation(c, b, r) {
        return;
    }
    parameters(c, b, r);
    let body = |doc: &'a Doc, op: &Operation<'a>| {
        op.node
            .get("requestBody")
            .map(|v| doc.resolve(v, &format!("{}/requestBody", op.ptr)))
    };
    match (body(c.base, b), body(c.rev, r)) {
        (Some(bb), Some(rb)) => message(c, Direction::Request, bb, rb, &["content"]),
        (None, None) => {}
        (bb, rb) => c.differ(Direction::Request, "requestBody", bb, rb),
    }
    let (br, rr) = (responses(c.base, b), responses(c.rev, r));
    for (status, (bv, bp, buse)) in &br {
        match rr.get(status) {
            Some((rv, rp, _)) => response(c, (bv, bp.clone()), (rv, rp.clone())),
            None => c.differ(
                Direction::Response,
                "response",
                Some((bv, buse.clone())),
                None,
            ),
        }
    }
    for (status, (rv, _, ruse)) in &rr {
        if !br.contains_key(status) {
            c.differ(
                Direction::Response,
                "response",
                None,
                Some((rv, ruse.clone())),
            );
        }
    }
    security(c, b, r);
    let callbacks = |op: &Operation<'a>| {
        op.node
            .get("callbacks")
            .map(|v| (v, format!("{}/callbacks", op.ptr)))
    };
    if let Some(diff) = differs(c, callbacks(b), callbacks(r)) {
        c.differ(Direction::None, "callbacks", diff.0, diff.1);
    }
}

/// Whether nothing an operation's messages depend on differs: the operation (references
/// followed, annotations ignored), its path item's parameters, the document's security and the
/// scheme definitions requirements name. Most operations of a revision are unchanged, and this
/// skips them at the cost of hashes the rules have already cached.
fn same_operation(c: &Collector, b: &Operation, r: &Operation) -> bool {
    let equal = |x: Option<&Value>, y: Option<&Value>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => c.same(x, y),
        _ => false,
    };
    const SCHEMES: &str = "/components/securitySchemes";
    c.same(b.value, r.value)
        && equal(b.path_item.get("parameters"), r.path_item.get("parameters"))
        && equal(c.base.tree.get("security"), c.rev.tree.get("security"))
        && equal(c.base.tree.pointer(SCHEMES), c.rev.tree.pointer(SCHEMES))
}

/// `Some((b, r))` when the two optional values differ.
fn differs<'a>(c: &Collector, b: Option<At<'a>>, r: Option<At<'a>>) -> Option<OptPair<'a>> {
    match (&b, &r) {
        (None, None) => None,
        (Some((x, _)), Some((y, _))) if c.same(x, y) => None,
        _ => Some((b, r)),
    }
}

type OptPair<'a> = (Option<At<'a>>, Option<At<'a>>);

fn parameters<'a>(c: &mut Collector<'a>, b: &Operation<'a>, r: &Operation<'a>) {
    let (bp, rp) = (params(c.base, b), params(c.rev, r));
    for (key, p) in &bp {
        let Some(q) = rp.get(key) else {
            c.differ(
                Direction::Request,
                "parameter",
                Some((p.node, p.ptr.clone())),
                None,
            );
            continue;
        };
        if p.required() != q.required() {
            let at = |node: &'a Value, ptr: &str| (node, format!("{ptr}/required"));
            let (bv, rv) = (flag(p.required()), flag(q.required()));
            c.differ(
                Direction::Request,
                "required",
                Some(at(bv, &p.ptr)),
                Some(at(rv, &q.ptr)),
            );
            if let Some(d) = c.last() {
                d.anchors = vec![p.ptr.clone(), q.ptr.clone()];
            }
        }
        match (p.schema(), q.schema()) {
            (Some((bs, bptr)), Some((rs, rptr))) => {
                let (bs, rs) = (
                    Schema::new(c.base, bs, &bptr),
                    Schema::new(c.rev, rs, &rptr),
                );
                schema::compare(c, Direction::Request, &bs, &rs, &[]);
            }
            (None, None) => {}
            (bs, rs) => c.differ(Direction::Request, "schema", bs, rs),
        }
        serialisation(c, p, q);
        let skip = [
            "name",
            "in",
            "required",
            "schema",
            "content",
            "deprecated",
            "style",
            "explode",
            "allowEmptyValue",
            "allowReserved",
        ];
        keys(
            c,
            Direction::Request,
            (p.node, &p.ptr),
            (q.node, &q.ptr),
            &skip,
        );
    }
    for (key, q) in &rp {
        if !bp.contains_key(key) {
            c.differ(
                Direction::Request,
                "parameter",
                None,
                Some((q.node, q.ptr.clone())),
            );
        }
    }
}

/// How the parameter is written, defaults filled in (OpenAPI 3: `form` for query and cookie
/// parameters, `simple` for path and header ones; `explode` true only for `form`; the `allow*`
/// flags false), so writing out a default is no difference; and `content` (a media type)
/// against `schema`.
fn serialisation(c: &mut Collector, p: &Param, q: &Param) {
    let media = |x: &Param| x.media().map_or(Value::Null, Value::from);
    let facts = [
        ("content", media(p), media(q)),
        ("style", Value::from(p.style()), Value::from(q.style())),
        (
            "explode",
            Value::Bool(p.explode()),
            Value::Bool(q.explode()),
        ),
        (
            "allowEmptyValue",
            Value::Bool(p.flag("allowEmptyValue")),
            Value::Bool(q.flag("allowEmptyValue")),
        ),
        (
            "allowReserved",
            Value::Bool(p.flag("allowReserved")),
            Value::Bool(q.flag("allowReserved")),
        ),
    ];
    for (key, bv, rv) in facts {
        if bv != rv {
            let at = |x: &Param| format!("{}/{key}", x.ptr);
            c.diffs.push(super::Difference {
                direction: Direction::Request,
                base: Some(at(p)),
                rev: Some(at(q)),
                anchors: Vec::new(),
                subtrees: Vec::new(),
                what: key.to_string(),
                before: Some(super::show(&bv)),
                after: Some(super::show(&rv)),
            });
        }
    }
}

/// `true` or `false` as a value to show.
fn flag(value: bool) -> &'static Value {
    const TRUE: Value = Value::Bool(true);
    const FALSE: Value = Value::Bool(false);
    if value { &TRUE } else { &FALSE }
}

/// A request body or a response: `required`, the media types, and the other keys.
fn message<'a>(c: &mut Collector<'a>, dir: Direction, b: At<'a>, r: At<'a>, skip: &[&str]) {
    let required = |v: &Value| v.get("required").and_then(Value::as_bool) == Some(true);
    if required(b.0) != required(r.0) {
        let (bv, rv) = (flag(required(b.0)), flag(required(r.0)));
        c.differ(
            dir,
            "required",
            Some((bv, format!("{}/required", b.1))),
            Some((rv, format!("{}/required", r.1))),
        );
        if let Some(d) = c.last() {
            d.anchors = vec![b.1.clone(), r.1.clone()];
        }
    }
    let (bc, rc) = (content(b.0, &b.1), content(r.0, &r.1));
    for (media, (bm, bptr)) in &bc {
        let Some((rm, rptr)) = rc.get(media) else {
            c.differ(dir, "media type", Some((bm, bptr.clone())), None);
            continue;
        };
        let schema_at =
            |m: &'a Value, ptr: &str| m.get("schema").map(|s| (s, format!("{ptr}/schema")));
        match (schema_at(bm, bptr), schema_at(rm, rptr)) {
            (Some((bs, bp)), Some((rs, rp))) => {
                let (bs, rs) = (Schema::new(c.base, bs, &bp), Schema::new(c.rev, rs, &rp));
                schema::compare(c, dir, &bs, &rs, &[]);
            }
            (None, None) => {}
            (bs, rs) => c.differ(dir, "schema", bs, rs),
        }
        keys(c, dir, (bm, bptr), (rm, rptr), &["schema"]);
    }
    for (media, (rm, rptr)) in &rc {
        if !bc.contains_key(media) {
            c.differ(dir, "media type", None, Some((rm, rptr.clone())));
        }
    }
    let mut all_skip = vec!["required", "content"];
    all_skip.extend_from_slice(skip);
    keys(c, dir, (b.0, &b.1), (r.0, &r.1), &all_skip);
}

fn response<'a>(c: &mut Collector<'a>, b: At<'a>, r: At<'a>) {
    let dir = Direction::Response;
    message(c, dir, b.clone(), r.clone(), &["headers", "links"]);
    let (bh, rh) = (headers(c.base, (b.0, &b.1)), headers(c.rev, (r.0, &r.1)));
    for (key, (_, bv, bp)) in &bh {
        let Some((_, rv, rp)) = rh.get(key) else {
            c.differ(dir, "header", Some((bv, bp.clone())), None);
            continue;
        };
        message(
            c,
            dir,
            (bv, bp.clone()),
            (rv, rp.clone()),
            &["schema", "deprecated"],
        );
        let schema_at =
            |h: &'a Value, ptr: &str| h.get("schema").map(|s| (s, format!("{ptr}/schema")));
        match (schema_at(bv, bp), schema_at(rv, rp)) {
            (Some((bs, bsp)), Some((rs, rsp))) => {
                let (bs, rs) = (Schema::new(c.base, bs, &bsp), Schema::new(c.rev, rs, &rsp));
                schema::compare(c, dir, &bs, &rs, &[]);
            }
            (None, None) => {}
            (bs, rs) => c.differ(dir, "schema", bs, rs),
        }
    }
    for (key, (_, rv, rp)) in &rh {
        if !bh.contains_key(key) {
            c.differ(dir, "header", None, Some((rv, rp.clone())));
        }
    }
}

/// Compares the keys of two objects that no caller handled, as values (references followed,
/// annotations ignored).
fn keys<'v>(
    c: &mut Collector,
    dir: Direction,
    b: (&'v Value, &str),
    r: (&'v Value, &str),
    skip: &[&str],
) {
    let (Some(bm), Some(rm)) = (b.0.as_object(), r.0.as_object()) else {
        return;
    };
    let names: BTreeSet<&String> = bm.keys().chain(rm.keys()).collect();
    for key in names {
        if skip.contains(&key.as_str()) || Ctx::Keywords.is_annotation(key) {
            continue;
        }
        let at = |m: &'v serde_json::Map<String, Value>, ptr: &str| {
            m.get(key.as_str())
                .map(|v| (v, format!("{ptr}/{}", pointer::escape(key))))
        };
        let (bv, rv) = (at(bm, b.1), at(rm, r.1));
        if let Some((bv, rv)) = differs(c, bv, rv) {
            c.differ(dir, key, bv, rv);
        }
    }
}

/// The security requirements of an operation as a set of alternatives, each scheme read as
/// what it asks of a client (its definition, annotations ignored) with its scopes, so a scheme
/// renamed with the same definition is no difference.
fn requirements(doc: &Doc, op: &Operation) -> (BTreeSet<String>, String) {
    let (list, ptr) = match op.node.get("security") {
        Some(list) => (Some(list), format!("{}/security", op.ptr)),
        None => (doc.tree.get("security"), "/security".to_string()),
    };
    let mut out = BTreeSet::new();
    for alt in list.and_then(Value::as_array).into_iter().flatten() {
        let Some(map) = alt.as_object() else {
            continue;
        };
        let mut parts: Vec<String> = map
            .iter()
            .map(|(name, scopes)| {
                let scheme = format!("/components/securitySchemes/{}", pointer::escape(name));
                let identity = doc.at(&scheme).map_or_else(
                    || format!("undefined {name}"),
                    |(s, _)| doc.hash(s).to_string(),
                );
                let mut scopes: Vec<&str> = scopes
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                scopes.sort_unstable();
                format!("{identity}{scopes:?}")
            })
            .collect();
        parts.sort();
        out.insert(parts.join("+"));
    }
    if out.is_empty() {
        out.insert(String::new()); // no requirement: anonymous
    }
    (out, ptr)
}

fn security(c: &mut Collector, b: &Operation, r: &Operation) {
    let (bs, bptr) = requirements(c.base, b);
    let (rs, rptr) = requirements(c.rev, r);
    if bs == rs {
        return;
    }
    let count = |n: usize| Value::from(format!("{n} alternative(s)"));
    let (bv, rv) = (count(bs.len()), count(rs.len()));
    c.diffs.push(super::Difference {
        direction: Direction::Request,
        base: Some(bptr.clone()),
        rev: Some(rptr.clone()),
        anchors: Vec::new(),
        // Scheme definitions edited in place are reported at the scheme.
        subtrees: vec![bptr, rptr, "/components/securitySchemes".into()],
        what: "security".into(),
        before: Some(super::show(&bv)),
        after: Some(super::show(&rv)),
    });
}
