//! Request bodies and responses: requiredness, media types, status codes, response headers, and
//! the body schemas (walked with the direction they travel in).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::judge::levels::Direction;
use crate::judge::rules::{Rule, Subject};
use crate::load::document::Doc;
use crate::load::pointer;
use crate::walk::emitter::Loc;
use crate::walk::operation::Operation;
use crate::walk::schema::{At, Schema, Walker};

/// Media type → (media type object, pointer); keys lower-cased without parameters, so
/// `application/json; charset=utf-8` is `application/json`.
pub(crate) fn content<'v>(node: &'v Value, ptr: &str) -> BTreeMap<String, (&'v Value, String)> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(map)) = node.get("content") {
        for (media, entry) in map {
            let key = media
                .split(';')
                .next()
                .unwrap_or(media)
                .trim()
                .to_ascii_lowercase();
            out.insert(
                key,
                (entry, format!("{ptr}/content/{}", pointer::escape(media))),
            );
        }
    }
    out
}

/// Compares the request bodies of two matched operations.
pub fn compare_request_body<'a>(w: &mut Walker<'a, '_>, b: &Operation<'a>, r: &Operation<'a>) {
    let body = |doc: &'a Doc, op: &Operation<'a>| {
        op.node
            .get("requestBody")
            .map(|v| doc.resolve(v, &format!("{}/requestBody", op.ptr)))
    };
    let required = |v: &Value| v.get("required").and_then(Value::as_bool) == Some(true);
    match (body(w.base, b), body(w.rev, r)) {
        (None, None) => {}
        (None, Some((rv, rp))) => {
            let (rule, what) = if required(rv) {
                (Rule::NewRequiredBody, "required")
            } else {
                (Rule::NewOptionalBody, "optional")
            };
            w.out.rule(
                rule,
                None,
                Loc::Rev(rp),
                "",
                format!("request body added ({what})"),
            );
        }
        (Some((_, bp)), None) => w.out.rule(
            Rule::RequestBodyRemoved,
            None,
            Loc::Base(bp),
            "",
            "request body removed".into(),
        ),
        (Some((bv, bp)), Some((rv, rp))) => {
            match (required(bv), required(rv)) {
                (false, true) => w.out.rule(
                    Rule::RequestBodyBecameRequired,
                    None,
                    Loc::Rev(rp.clone()),
                    "",
                    "request body became required".into(),
                ),
                (true, false) => w.out.rule(
                    Rule::RequestBodyBecameOptional,
                    None,
                    Loc::Rev(rp.clone()),
                    "",
                    "request body became optional".into(),
                ),
                _ => {}
            }
            let media = MediaRules {
                added: Rule::RequestMediaTypeAdded,
                removed: Rule::RequestMediaTypeRemoved,
                schema_added: Rule::RequestMediaTypeSchemaAdded,
                schema_removed: Rule::RequestMediaTypeSchemaRemoved,
            };
            compare_content(
                w,
                w.direction(Direction::Request),
                "request body",
                &media,
                (bv, &bp),
                (rv, &rp),
            );
        }
    }
}

/// The media-type rules of one direction (their guards come with the rule). A media type
/// without a schema (`application/json: {}`) allows any content: gaining a schema narrows it,
/// losing one widens it.
struct MediaRules {
    added: Rule,
    removed: Rule,
    schema_added: Rule,
    schema_removed: Rule,
}

fn compare_content<'a>(
    w: &mut Walker<'a, '_>,
    direction: Direction,
    root: &str,
    rules: &MediaRules,
    (bv, bp): (&'a Value, &str),
    (rv, rp): (&'a Value, &str),
) {
    let (bc, rc) = (content(bv, bp), content(rv, rp));
    for (media, (bentry, bptr)) in &bc {
        let Some((rentry, rptr)) = rc.get(media) else {
            w.out.rule(
                rules.removed,
                None,
                Loc::Base(bptr.clone()),
                media,
                format!("{root}: media type `{media}` removed"),
            );
            continue;
        };
        let (bs, rs) = match (bentry.get("schema"), rentry.get("schema")) {
            (Some(bs), Some(rs)) => (bs, rs),
            (None, None) => continue,
            (None, Some(_)) => {
                w.out.rule(
                    rules.schema_added,
                    None,
                    Loc::Rev(format!("{rptr}/schema")),
                    media,
                    format!(
                        "{root}: media type `{media}` gained a schema (it allowed any content)"
                    ),
                );
                continue;
            }
            (Some(_), None) => {
                w.out.rule(
                    rules.schema_removed,
                    None,
                    Loc::Base(format!("{bptr}/schema")),
                    media,
                    format!("{root}: media type `{media}` lost its schema (any content allowed)"),
                );
                continue;
            }
        };
        let at = At {
            direction,
            subject: Subject::Body,
            root: if bc.len() > 1 {
                format!("{root} ({media})")
            } else {
                root.to_string()
            },
            path: String::new(),
            optional: false,
            required: false,
        };
        let bs = Schema::new(w.base, bs, &format!("{bptr}/schema"));
        let rs = Schema::new(w.rev, rs, &format!("{rptr}/schema"));
        w.compare(&at, &bs, &rs);
    }
    for (media, (_, rptr)) in &rc {
        if !bc.contains_key(media) {
            w.out.rule(
                rules.added,
                None,
                Loc::Rev(rptr.clone()),
                media,
                format!("{root}: media type `{media}` added"),
            );
        }
    }
}

/// Status (upper-cased) → (the response, its pointer after `$ref`s, and the pointer of its
/// entry in the operation: where a status added or removed is reported, since the shared
/// component itself did not change).
pub(crate) type Responses<'a> = BTreeMap<String, (&'a Value, String, String)>;

pub(crate) fn responses<'a>(doc: &'a Doc, op: &Operation<'a>) -> Responses<'a> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(map)) = op.node.get("responses") {
        for (status, v) in map {
            let ptr = format!("{}/responses/{}", op.ptr, pointer::escape(status));
            let (v, resolved) = doc.resolve(v, &ptr);
            out.insert(status.to_ascii_uppercase(), (v, resolved, ptr));
        }
    }
    out
}

/// Compares the responses of two matched operations.
pub fn compare_responses<'a>(w: &mut Walker<'a, '_>, b: &Operation<'a>, r: &Operation<'a>) {
    let (br, rr) = (responses(w.base, b), responses(w.rev, r));
    let success = |status: &str| status.starts_with('2');
    for (status, (bv, bp, buse)) in &br {
        let Some((rv, rp, _)) = rr.get(status) else {
            let rule = if success(status) {
                Rule::SuccessStatusRemoved
            } else {
                Rule::NonSuccessStatusRemoved
            };
            w.out.rule(
                rule,
                None,
                Loc::Base(buse.clone()),
                status,
                format!("response status {status} removed"),
            );
            continue;
        };
        let media = MediaRules {
            added: Rule::ResponseMediaTypeAdded,
            removed: Rule::ResponseMediaTypeRemoved,
            schema_added: Rule::ResponseMediaTypeSchemaAdded,
            schema_removed: Rule::ResponseMediaTypeSchemaRemoved,
        };
        let root = format!("response body ({status})");
        let direction = w.direction(Direction::Response);
        compare_content(w, direction, &root, &media, (bv, bp), (rv, rp));
        compare_headers(w, status, (bv, bp), (rv, rp));
    }
    for (status, (_, _, ruse)) in &rr {
        if !br.contains_key(status) {
            let (rule, note) = if success(status) {
                (
                    Rule::SuccessStatusAdded,
                    ": clients generated from BASE treat it as an unexpected response",
                )
            } else {
                (Rule::NonSuccessStatusAdded, "")
            };
            w.out.rule(
                rule,
                None,
                Loc::Rev(ruse.clone()),
                status,
                format!("response status {status} added{note}"),
            );
        }
    }
}

pub(crate) fn headers<'a>(
    doc: &'a Doc,
    (v, ptr): (&'a Value, &str),
) -> BTreeMap<String, (&'a str, &'a Value, String)> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(map)) = v.get("headers") {
        for (name, h) in map {
            let key = name.to_ascii_lowercase();
            if key == "content-type" {
                continue; // ignored by OpenAPI; the media type says it
            }
            let (h, hptr) = doc.resolve(h, &format!("{ptr}/headers/{}", pointer::escape(name)));
            out.insert(key, (name.as_str(), h, hptr));
        }
    }
    out
}

fn compare_headers<'a>(
    w: &mut Walker<'a, '_>,
    status: &str,
    b: (&'a Value, &str),
    r: (&'a Value, &str),
) {
    let (bh, rh) = (headers(w.base, b), headers(w.rev, r));
    let required = |v: &Value| v.get("required").and_then(Value::as_bool) == Some(true);
    for (key, (name, bv, bp)) in &bh {
        let label = format!("response header `{name}` ({status})");
        let Some((rname, rv, rp)) = rh.get(key) else {
            let rule = if required(bv) {
                Rule::RequiredHeaderRemoved
            } else {
                Rule::OptionalHeaderRemoved
            };
            w.out.rule(
                rule,
                None,
                Loc::Base(bp.clone()),
                key,
                format!("{label} removed"),
            );
            continue;
        };
        match (required(bv), required(rv)) {
            (true, false) => w.out.rule(
                Rule::HeaderBecameOptional,
                None,
                Loc::Rev(rp.clone()),
                key,
                format!("{label} became optional"),
            ),
            (false, true) => w.out.rule(
                Rule::HeaderBecameRequired,
                None,
                Loc::Rev(rp.clone()),
                key,
                format!("{label} became required"),
            ),
            _ => {}
        }
        if let (Some(bs), Some(rs)) = (bv.get("schema"), rv.get("schema")) {
            let at = At {
                direction: w.direction(Direction::Response),
                subject: Subject::Header,
                root: "response header".into(),
                path: rname.to_string(),
                optional: false,
                required: false,
            };
            let (bs, rs) = (
                Schema::new(w.base, bs, &format!("{bp}/schema")),
                Schema::new(w.rev, rs, &format!("{rp}/schema")),
            );
            w.compare(&at, &bs, &rs);
        }
    }
    for (key, (name, _, rp)) in &rh {
        if !bh.contains_key(key) {
            w.out.rule(
                Rule::HeaderAdded,
                None,
                Loc::Rev(rp.clone()),
                key,
                format!("response header `{name}` ({status}) added"),
            );
        }
    }
}
