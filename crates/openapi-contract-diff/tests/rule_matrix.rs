//! Every schema rule at every place a schema travels: each edit below is made to a schema in a
//! request body, a request property, a query parameter, a response body, a response property
//! and a response header, and the diff must report exactly one finding, with the id named after
//! the place, the level the edit's effect has in that direction, and the keyword's pointer.
//! The corpus holds hand-written pairs; this matrix makes sure no rule is missing from a place.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use openapi_contract_diff::{Options, diff_trees};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Effect {
    Narrow,
    Widen,
    Incomparable,
    Unknown,
    None,
}

/// The level an effect has in a direction: narrowing breaks senders, widening receivers.
fn level(request: bool, effect: Effect) -> &'static str {
    match (request, effect) {
        (_, Effect::Incomparable) | (true, Effect::Narrow) | (false, Effect::Widen) => "ERR",
        (_, Effect::Unknown) => "WARN",
        _ => "INFO",
    }
}

/// One edit: BASE schema, REVISION schema, the rule's slug, the pointer suffix of the finding
/// below the schema (in BASE for what REVISION removed), and the effect.
struct Edit {
    base: Value,
    rev: Value,
    slug: String,
    at: String,
    effect: Effect,
}

/// The bounds (four changes of each, both ways), then the edits of `matrix/edits.yaml`.
fn edits() -> Vec<Edit> {
    let mut out = Vec::new();
    let bounds = [
        ("string", "maxLength", "max-length", true),
        ("string", "minLength", "min-length", false),
        ("integer", "maximum", "max", true),
        ("integer", "minimum", "min", false),
        ("array", "maxItems", "max-items", true),
        ("array", "minItems", "min-items", false),
        ("object", "maxProperties", "max-properties", true),
        ("object", "minProperties", "min-properties", false),
    ];
    for (t, key, slug, upper) in bounds {
        let with = |n: Option<u32>| match n {
            Some(n) => json!({"type": t, key: n}),
            None => json!({"type": t}),
        };
        let (tight, loose) = if upper { (5, 10) } else { (10, 5) };
        let (narrowed, widened) = if upper {
            ("decreased", "increased")
        } else {
            ("increased", "decreased")
        };
        let cases = [
            (Some(loose), Some(tight), narrowed, Effect::Narrow),
            (Some(tight), Some(loose), widened, Effect::Widen),
            (None, Some(tight), "set", Effect::Narrow),
            (Some(tight), None, "unset", Effect::Widen),
        ];
        for (b, r, what, effect) in cases {
            let (base, rev) = (with(b), with(r));
            let (slug, at) = (format!("{slug}-{what}"), format!("/{key}"));
            out.push(Edit {
                base,
                rev,
                slug,
                at,
                effect,
            });
        }
    }
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/matrix/edits.yaml"),
    )
    .unwrap();
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let rows: Vec<Value> = serde_saphyr::from_str_with_options(&text, options).unwrap();
    for row in rows {
        let effect = match row[4].as_str().unwrap() {
            "Narrow" => Effect::Narrow,
            "Widen" => Effect::Widen,
            "Incomparable" => Effect::Incomparable,
            "Unknown" => Effect::Unknown,
            _ => Effect::None,
        };
        let text = |i: usize| row[i].as_str().unwrap().to_string();
        let (base, rev) = (row[0].clone(), row[1].clone());
        out.push(Edit {
            base,
            rev,
            slug: text(2),
            at: text(3),
            effect,
        });
    }
    out
}

/// A document with `schema` at one place, and the pointer of that schema.
fn document(place: &str, schema: &Value) -> (Value, String, bool, &'static str) {
    let op = "/paths/~1m/post";
    let body = |s: &Value| json!({"content": {"application/json": {"schema": s}}});
    let object = |s: &Value| json!({"type": "object", "required": ["p"], "properties": {"p": s}});
    let (operation, ptr, request, subject) = match place {
        "request body" => (
            json!({"requestBody": body(schema), "responses": {"200": {"description": "ok"}}}),
            format!("{op}/requestBody/content/application~1json/schema"),
            true,
            "body",
        ),
        "request property" => (
            json!({"requestBody": body(&object(schema)), "responses": {"200": {"description": "ok"}}}),
            format!("{op}/requestBody/content/application~1json/schema/properties/p"),
            true,
            "property",
        ),
        "request parameter" => (
            json!({"parameters": [{"name": "q", "in": "query", "schema": schema}], "responses": {"200": {"description": "ok"}}}),
            format!("{op}/parameters/0/schema"),
            true,
            "parameter",
        ),
        "response body" => (
            json!({"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}}),
            format!("{op}/responses/200/content/application~1json/schema"),
            false,
            "body",
        ),
        "response property" => (
            json!({"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": object(schema)}}}}}),
            format!("{op}/responses/200/content/application~1json/schema/properties/p"),
            false,
            "property",
        ),
        _ => (
            json!({"responses": {"200": {"description": "ok", "headers": {"X-H": {"schema": schema}}}}}),
            format!("{op}/responses/200/headers/X-H/schema"),
            false,
            "header",
        ),
    };
    let doc = json!({"openapi": "3.1.0", "info": {"title": "m", "version": "1"}, "paths": {"/m": {"post": operation}}});
    (doc, ptr, request, subject)
}

#[test]
fn every_schema_rule_at_every_place() {
    let places = [
        "request body",
        "request property",
        "request parameter",
        "response body",
        "response property",
        "response header",
    ];
    let mut failures = Vec::new();
    let mut checked = std::collections::BTreeSet::new();
    for e in edits() {
        for place in places {
            // A header is text on the wire: its type rules are finer (see the corpus).
            if place == "response header" && e.slug.starts_with("type-") {
                continue;
            }
            // The property here is required: a default on it never applies, so no finding (the
            // corpus holds optional ones).
            if place.ends_with("property") && e.slug.starts_with("default-") {
                continue;
            }
            let (base, ptr, request, subject) = document(place, &e.base);
            let (rev, _, _, _) = document(place, &e.rev);
            let report = diff_trees(base, rev, &Options::default()).unwrap();
            let found: Vec<String> = report
                .findings()
                .map(|f| format!("{} {} @ {}", f.level.as_str(), f.id, f.location))
                .collect();
            let direction = if request { "request" } else { "response" };
            let want = format!(
                "{} {direction}-{subject}-{} @ {ptr}{}",
                level(request, e.effect),
                e.slug,
                e.at
            );
            checked.insert(format!("{direction}-{subject}-{}", e.slug));
            if found != [want.clone()] {
                failures.push(format!(
                    "{place}: {} → {}: want [{want}], got {found:?}",
                    e.base, e.rev
                ));
            }
        }
    }
    println!("rule matrix: {} ids checked", checked.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
