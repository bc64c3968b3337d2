//! Request parameters: path-level and operation-level merged (the operation wins, as OpenAPI
//! says; oasdiff issues #378 and #608), matched by location and name, with path parameters
//! matched by their position in the template so a rename is not a removal. Header names are
//! case-insensitive.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::judge::levels::Direction;
use crate::judge::rules::{Rule, Subject};
use crate::load::document::Doc;
use crate::load::pointer;
use crate::walk::emitter::Loc;
use crate::walk::operation::{Operation, deprecation};
use crate::walk::schema::{At, Schema, Walker};

pub(crate) struct Param<'a> {
    pub name: &'a str,
    pub location: &'a str,
    pub node: &'a Value,
    pub ptr: String,
}

impl<'a> Param<'a> {
    pub fn required(&self) -> bool {
        self.location == "path" || self.node.get("required").and_then(Value::as_bool) == Some(true)
    }

    /// `style` as it applies: OpenAPI 3's default is `form` for query and cookie parameters,
    /// `simple` for path and header ones, so writing out the default is no change.
    pub fn style(&self) -> &'a str {
        self.node
            .get("style")
            .and_then(Value::as_str)
            .unwrap_or(match self.location {
                "query" | "cookie" => "form",
                _ => "simple",
            })
    }

    /// `explode` as it applies: true by default only for `form`.
    pub fn explode(&self) -> bool {
        self.node
            .get("explode")
            .and_then(Value::as_bool)
            .unwrap_or(self.style() == "form")
    }

    /// A boolean keyword that is false unless written (`allowEmptyValue`, `allowReserved`).
    pub fn flag(&self, key: &str) -> bool {
        self.node.get(key).and_then(Value::as_bool) == Some(true)
    }

    /// The media type of `content` when the parameter is serialised as a message rather than
    /// by `style`.
    pub fn media(&self) -> Option<&'a str> {
        let content = self.node.get("content")?.as_object()?;
        content.keys().next().map(String::as_str)
    }

    /// `schema`, or the schema of the first `content` entry.
    pub fn schema(&self) -> Option<(&'a Value, String)> {
        if let Some(s) = self.node.get("schema") {
            return Some((s, format!("{}/schema", self.ptr)));
        }
        let (media, entry) = self.node.get("content")?.as_object()?.iter().next()?;
        let s = entry.get("schema")?;
        let media = pointer::escape(media);
        Some((s, format!("{}/content/{media}/schema", self.ptr)))
    }
}

pub(crate) fn params<'a>(
    doc: &'a Doc,
    op: &Operation<'a>,
) -> BTreeMap<(String, String), Param<'a>> {
    let template: Vec<&str> = op
        .path
        .split('{')
        .skip(1)
        .filter_map(|s| s.split('}').next())
        .collect();
    let mut out = BTreeMap::new();
    let lists = [
        (
            op.path_item.get("parameters"),
            format!("{}/parameters", op.path_item_ptr),
        ),
        (op.node.get("parameters"), format!("{}/parameters", op.ptr)),
    ];
    for (list, list_ptr) in lists {
        let Some(Value::Array(list)) = list else {
            continue;
        };
        for (i, raw) in list.iter().enumerate() {
            let (node, ptr) = doc.resolve(raw, &format!("{list_ptr}/{i}"));
            let (Some(name), Some(location)) = (
                node.get("name").and_then(Value::as_str),
                node.get("in").and_then(Value::as_str),
            ) else {
                continue;
            };
            let key = match location {
                "path" => match template.iter().position(|t| *t == name) {
                    Some(index) => format!("#{index}"),
                    None => name.to_string(),
                },
                "header" => name.to_ascii_lowercase(),
                _ => name.to_string(),
            };
            out.insert(
                (location.to_string(), key),
                Param {
                    name,
                    location,
                    node,
                    ptr,
                },
            );
        }
    }
    out
}

/// Compares the parameters of two matched operations.
pub fn compare<'a>(w: &mut Walker<'a, '_>, b: &Operation<'a>, r: &Operation<'a>) {
    let (bp, rp) = (params(w.base, b), params(w.rev, r));
    for (key, p) in &bp {
        let label = format!("{} parameter `{}`", p.location, p.name);
        let Some(q) = rp.get(key) else {
            let node = p.node.as_object();
            let early = node.and_then(|n| w.lifecycle.before_sunset(n));
            let unreadable = node.and_then(|n| w.lifecycle.unreadable_sunset(n));
            let (rule, note) = match (early, deprecation(p.node)) {
                (Some(date), _) => (
                    Rule::ParameterRemovedBeforeSunset,
                    format!(" before its sunset {date}"),
                ),
                (None, _) if unreadable.is_some() => (
                    Rule::ParameterSunsetParse,
                    format!(
                        ": it was deprecated, but its x-sunset {} is not a date, so whether the sunset has passed cannot be told",
                        unreadable.as_deref().unwrap_or_default()
                    ),
                ),
                (None, Some(_)) => (
                    Rule::ParameterRemovedWithDeprecation,
                    " (it was deprecated)".into(),
                ),
                (None, None) => (Rule::ParameterRemoved, String::new()),
            };
            w.out.rule(
                rule,
                None,
                Loc::Base(p.ptr.clone()),
                &key.1,
                format!("{label} removed{note}"),
            );
            continue;
        };
        if let (Some(bn), Some(qn)) = (p.node.as_object(), q.node.as_object()) {
            let lifecycle = w.lifecycle;
            lifecycle.parameter(
                w.out,
                (bn, qn),
                (&p.ptr, &q.ptr),
                &label,
                &key.1,
                Some(r.node),
            );
        }
        let loc = Loc::Rev(q.ptr.clone());
        if p.location == "path" && p.name != q.name {
            let message = format!(
                "{label} renamed to `{}` (same position in the path)",
                q.name
            );
            w.out.rule(
                Rule::PathParameterRenamed,
                None,
                loc.clone(),
                &key.1,
                message,
            );
        }
        match (p.required(), q.required()) {
            (false, true) => w.out.rule(
                Rule::ParameterBecameRequired,
                None,
                loc,
                &key.1,
                format!("{label} became required"),
            ),
            (true, false) => w.out.rule(
                Rule::ParameterBecameOptional,
                None,
                loc,
                &key.1,
                format!("{label} became optional"),
            ),
            _ => {}
        }
        serialization(w, p, q, &key.1);
        if let (Some((bs, bptr)), Some((rs, rptr))) = (p.schema(), q.schema()) {
            let at = At {
                direction: w.direction(Direction::Request),
                subject: Subject::Parameter,
                root: format!("{} parameter", q.location),
                path: q.name.to_string(),
                optional: false,
                required: p.required() && q.required(),
            };
            let (bs, rs) = (
                Schema::new(w.base, bs, &bptr),
                Schema::new(w.rev, rs, &rptr),
            );
            w.compare(&at, &bs, &rs);
        }
    }
    for (key, q) in &rp {
        if bp.contains_key(key) {
            continue;
        }
        let required = q.required();
        let rule = if required {
            Rule::NewRequiredParameter
        } else {
            Rule::NewOptionalParameter
        };
        let what = if required { "required" } else { "optional" };
        let message = format!("{} parameter `{}` added ({what})", q.location, q.name);
        w.out
            .rule(rule, None, Loc::Rev(q.ptr.clone()), &key.1, message);
    }
}

/// How a client writes the parameter into the request: a server that parses it the new way
/// misreads values written the old way. `style` and `content` change the encoding of every
/// value; `explode` only that of arrays and objects (a single value is written the same either
/// way); `allowEmptyValue` and `allowReserved` (query parameters only) are what a client may
/// send as is, so turning them off refuses what clients send (narrows) and turning them on
/// accepts more (widens).
fn serialization(w: &mut Walker, p: &Param, q: &Param, detail: &str) {
    let label = format!("{} parameter `{}`", q.location, q.name);
    let at = |x: &Param, key: &str| format!("{}/{key}", x.ptr);
    if p.media().is_some() || q.media().is_some() {
        // `style`, `explode` and `allowReserved` apply only to a parameter without `content`.
        for x in [p, q] {
            for key in ["style", "explode", "allowReserved"] {
                w.out.claim(&at(x, key));
            }
        }
    }
    match (p.media(), q.media()) {
        (None, None) => {}
        (x, y) if x == y => {}
        (x, y) => {
            let show = |m: Option<&str>| {
                m.map_or("its schema and style".to_string(), |m| format!("`{m}`"))
            };
            let message = format!("{label} is now serialised as {} (was {})", show(y), show(x));
            let loc = match y {
                Some(_) => Loc::Rev(at(q, "content")),
                None => Loc::Base(at(p, "content")),
            };
            w.out.rule(
                Rule::ParameterSerializationChanged,
                None,
                loc,
                detail,
                message,
            );
        }
    }
    if p.media().is_some() || q.media().is_some() {
        return;
    }
    if p.style() != q.style() {
        let message = format!("{label}: style changed from {} to {}", p.style(), q.style());
        let loc = Loc::Rev(at(q, "style"));
        w.out
            .rule(Rule::ParameterStyleChanged, None, loc, detail, message);
    }
    let written = |x: &Param| x.node.get("explode").is_some();
    if p.style() != q.style() && !written(p) && !written(q) {
        // The default `explode` follows the style: part of the style change just reported.
        w.out.claim(&at(p, "explode"));
        w.out.claim(&at(q, "explode"));
    } else if p.explode() != q.explode() {
        let structured = |x: &Param, doc| {
            x.schema().is_none_or(|(s, ptr)| {
                Schema::new(doc, s, &ptr)
                    .types()
                    .is_none_or(|t| t.contains("array") || t.contains("object"))
            })
        };
        if structured(p, w.base) || structured(q, w.rev) {
            let message = format!(
                "{label}: explode changed from {} to {}",
                p.explode(),
                q.explode()
            );
            let loc = Loc::Rev(at(q, "explode"));
            w.out
                .rule(Rule::ParameterExplodeChanged, None, loc, detail, message);
        } else {
            // A single value is written the same exploded or not.
            w.out.claim(&at(p, "explode"));
            w.out.claim(&at(q, "explode"));
        }
    }
    let flags = [
        (
            "allowEmptyValue",
            Rule::ParameterAllowEmptyValueAdded,
            Rule::ParameterAllowEmptyValueRemoved,
        ),
        (
            "allowReserved",
            Rule::ParameterAllowReservedAdded,
            Rule::ParameterAllowReservedRemoved,
        ),
    ];
    for (key, added, removed) in flags {
        if p.flag(key) == q.flag(key) {
            continue;
        }
        if q.location != "query" || p.location != "query" {
            // Defined for query parameters only: elsewhere it says nothing.
            w.out.claim(&at(p, key));
            w.out.claim(&at(q, key));
            continue;
        }
        let (rule, what) = if q.flag(key) {
            (added, "set")
        } else {
            (removed, "turned off")
        };
        let message = format!("{label}: {key} {what}");
        w.out
            .rule(rule, None, Loc::Rev(at(q, key)), detail, message);
    }
}
