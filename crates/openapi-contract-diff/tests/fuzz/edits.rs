//! The contract-changing edits, each with how it moves the set of valid values (so the test
//! knows whether the finding must be breaking in its direction).

use serde_json::{Value, json};

use super::rng::Rng;
use super::targets::{Dir, Target};

/// How an edit moves the values valid at its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Narrow,
    Widen,
    Incomparable,
    /// Not decidable from the spec, or direction-neutral: only "a finding" is asserted.
    Any,
}

/// An edit made: what, where a finding must be (at or under one of `roots`), its direction,
/// and its effect.
#[derive(Debug, Clone)]
pub struct Edit {
    pub what: String,
    pub roots: Vec<String>,
    pub dir: Option<Dir>,
    pub effect: Effect,
    /// Where the level table may lower a break to WARN or below for a reason of its own
    /// (response headers read as text).
    pub lenient: bool,
}

impl Edit {
    /// Whether a client breaks: narrowing what it sends, widening what it receives, or both.
    pub fn breaking(&self) -> bool {
        matches!(
            (self.dir, self.effect),
            (_, Effect::Incomparable)
                | (Some(Dir::Request), Effect::Narrow)
                | (Some(Dir::Response), Effect::Widen)
        )
    }
}

fn obj<'a>(root: &'a mut Value, ptr: &str) -> Option<&'a mut serde_json::Map<String, Value>> {
    root.pointer_mut(ptr)?.as_object_mut()
}

/// A property that is never sent (`readOnly` in a request) or never received (`writeOnly` in
/// a response), or whose flags live elsewhere (a reference, an `allOf`).
fn never_here(property: &Value, dir: Dir) -> bool {
    let flag = |k: &str| property.get(k).and_then(Value::as_bool) == Some(true);
    property.get("$ref").is_some()
        || property.get("allOf").is_some()
        || match dir {
            Dir::Request => flag("readOnly"),
            Dir::Response => flag("writeOnly"),
        }
}

const TYPES: [&str; 5] = ["string", "integer", "boolean", "object", "array"];

/// Applies one random edit to `target` in `doc`; `None` when the chosen edit does not fit.
pub fn apply(doc: &mut Value, target: &Target, rng: &mut Rng, is_31: bool) -> Option<Edit> {
    match target {
        Target::Schema {
            ptr,
            dir,
            roots,
            header,
        } => schema(doc, ptr, *dir, roots, *header, rng, is_31),
        Target::Operation { ptr } => operation(doc, ptr, rng),
        Target::Content { ptr, dir } => content(doc, ptr, *dir, rng),
        Target::Parameter { ptr } => parameter(doc, ptr, rng),
    }
}

/// How a parameter is written into the request: its style, `explode` of an array or object,
/// `allowEmptyValue` of a query parameter, or `schema` moved into `content`.
fn parameter(doc: &mut Value, ptr: &str, rng: &mut Rng) -> Option<Edit> {
    let structured = {
        let p = doc.pointer(ptr)?;
        let schema = p.get("schema")?;
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => doc.pointer(r.strip_prefix('#')?)?,
            None => schema,
        };
        matches!(
            schema.get("type").and_then(Value::as_str),
            Some("array" | "object")
        )
    };
    let p = obj(doc, ptr)?;
    let location = p.get("in")?.as_str()?.to_string();
    let style = p.get("style").and_then(Value::as_str).map(str::to_string);
    let edit = |what: String, at: &str, effect| {
        Some(Edit {
            what,
            roots: vec![format!("{ptr}/{at}")],
            dir: Some(Dir::Request),
            effect,
            lenient: false,
        })
    };
    match rng.below(4) {
        0 => {
            let to = match (location.as_str(), style.as_deref()) {
                ("query", None | Some("form")) => "pipeDelimited",
                ("query" | "cookie", _) => "form",
                ("path", None | Some("simple")) => "label",
                ("path", _) => "simple",
                _ => return None, // a header has one style
            };
            p.insert("style".into(), json!(to));
            edit(format!("style -> {to}"), "style", Effect::Incomparable)
        }
        1 if structured => {
            let now = p.get("explode").and_then(Value::as_bool).unwrap_or(
                matches!(style.as_deref(), None | Some("form"))
                    && location != "path"
                    && location != "header",
            );
            p.insert("explode".into(), json!(!now));
            edit(
                format!("explode {now} -> {}", !now),
                "explode",
                Effect::Incomparable,
            )
        }
        2 if location == "query" => {
            let now = p.get("allowEmptyValue").and_then(Value::as_bool) == Some(true);
            p.insert("allowEmptyValue".into(), json!(!now));
            let effect = if now { Effect::Narrow } else { Effect::Widen };
            edit(
                format!("allowEmptyValue {now} -> {}", !now),
                "allowEmptyValue",
                effect,
            )
        }
        3 => {
            let schema = p.remove("schema")?;
            p.insert(
                "content".into(),
                json!({"application/json": {"schema": schema}}),
            );
            edit(
                "schema moved into content".into(),
                "content",
                Effect::Incomparable,
            )
        }
        _ => None,
    }
}

fn schema(
    doc: &mut Value,
    ptr: &str,
    dir: Dir,
    roots: &[String],
    header: bool,
    rng: &mut Rng,
    is_31: bool,
) -> Option<Edit> {
    let s = obj(doc, ptr)?;
    if s.contains_key("$ref") {
        return None;
    }
    let ty = s
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            if s.contains_key("properties") {
                Some("object".into())
            } else if s.contains_key("items") {
                Some("array".into())
            } else {
                None
            }
        });
    let edit = |what: String, effect: Effect| {
        Some(Edit {
            what,
            roots: roots.to_vec(),
            dir: Some(dir),
            effect,
            lenient: header,
        })
    };
    let bound = |s: &mut serde_json::Map<String, Value>, key: &str, upper: bool, rng: &mut Rng| {
        let (what, effect) = match s.get(key).and_then(Value::as_u64) {
            Some(n) if rng.below(2) == 0 => {
                s.insert(key.into(), json!(n + 3));
                (
                    format!("{key} {n} -> {}", n + 3),
                    if upper { Effect::Widen } else { Effect::Narrow },
                )
            }
            Some(n) => {
                s.remove(key);
                (format!("{key} {n} removed"), Effect::Widen)
            }
            None => {
                let v = if upper { 7 } else { 2 };
                s.insert(key.into(), json!(v));
                (format!("{key} set to {v}"), Effect::Narrow)
            }
        };
        edit(what, effect)
    };
    match rng.below(12) {
        0 => {
            let from = ty.clone().unwrap_or_else(|| "any".into());
            // Skip the numeric family and "any": those are generalisations, judged finer.
            let to = TYPES
                .iter()
                .copied()
                .filter(|t| *t != from && !(from == "number" && *t == "integer"))
                .nth(rng.below(4))?;
            if s.contains_key("oneOf")
                || s.contains_key("anyOf")
                || s.contains_key("allOf")
                || from == "any"
            {
                return None;
            }
            s.insert("type".into(), json!(to));
            edit(format!("type {from} -> {to}"), Effect::Incomparable)
        }
        1 if ty.as_deref() == Some("string") => {
            let (what, effect) = match s.get("format").and_then(Value::as_str).map(str::to_string) {
                Some(f) => {
                    s.remove("format");
                    (format!("format {f} removed"), Effect::Widen)
                }
                None => {
                    s.insert("format".into(), json!("uuid"));
                    ("format uuid set".to_string(), Effect::Narrow)
                }
            };
            edit(what, effect)
        }
        2 => match s.get_mut("enum").and_then(Value::as_array_mut) {
            Some(values) if !values.is_empty() && rng.below(2) == 0 => {
                let gone = values.remove(rng.below(values.len()));
                if gone.is_null() {
                    return None;
                }
                edit(format!("enum value {gone} removed"), Effect::Narrow)
            }
            Some(values) => {
                let new = if values.first().is_some_and(Value::is_string) {
                    json!("fuzz-value")
                } else {
                    json!(987654)
                };
                values.push(new.clone());
                edit(format!("enum value {new} added"), Effect::Widen)
            }
            None if ty.as_deref() == Some("string") => {
                s.insert("enum".into(), json!(["a", "b"]));
                edit("enum [a, b] set".into(), Effect::Narrow)
            }
            None => None,
        },
        3 => {
            let names: Vec<String> = s
                .get("properties")
                .and_then(Value::as_object)?
                .keys()
                .cloned()
                .collect();
            let name = names.get(rng.below(names.len().max(1)))?.clone();
            // A property never sent (received) here has no requiredness here.
            let child = &s["properties"][&name];
            if never_here(child, dir)
                || child.get("readOnly").is_some()
                || child.get("writeOnly").is_some()
            {
                return None;
            }
            let required = s.entry("required").or_insert_with(|| json!([]));
            let list = required.as_array_mut()?;
            let effect = match list.iter().position(|v| v == &json!(name)) {
                Some(i) => {
                    list.remove(i);
                    Effect::Widen
                }
                None => {
                    list.push(json!(name));
                    Effect::Narrow
                }
            };
            edit(format!("property `{name}` required toggled"), effect)
        }
        // A schema without a type takes anything already; `nullable` there is ambiguous in 3.0.
        4 if !is_31
            && ty.is_some()
            && !s
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.iter().any(Value::is_null)) =>
        {
            let now = s.get("nullable").and_then(Value::as_bool) == Some(true);
            s.insert("nullable".into(), json!(!now));
            edit(
                format!("nullable {now} -> {}", !now),
                if now { Effect::Narrow } else { Effect::Widen },
            )
        }
        5 => match ty.as_deref() {
            Some("string") if rng.below(2) == 0 => bound(s, "minLength", false, rng),
            Some("string") => bound(s, "maxLength", true, rng),
            Some("integer" | "number") => bound(s, "maximum", true, rng),
            Some("array") => bound(s, "maxItems", true, rng),
            Some("object") => bound(s, "maxProperties", true, rng),
            _ => None,
        },
        6 if ty.as_deref() == Some("string") => {
            let (what, effect) = match s.get("pattern").and_then(Value::as_str).map(str::to_string)
            {
                Some(p) if p.is_empty() || p == ".*" => return None,
                Some(p) => {
                    s.remove("pattern");
                    (format!("pattern {p} removed"), Effect::Widen)
                }
                None => {
                    s.insert("pattern".into(), json!("^[a-z]+$"));
                    ("pattern set".into(), Effect::Narrow)
                }
            };
            edit(what, effect)
        }
        7 if ty.as_deref() == Some("object") => match s.get("additionalProperties") {
            Some(Value::Bool(false)) => {
                s.remove("additionalProperties");
                edit("additionalProperties false removed".into(), Effect::Widen)
            }
            _ => {
                s.insert("additionalProperties".into(), json!(false));
                edit("additionalProperties false set".into(), Effect::Narrow)
            }
        },
        8 => three_one(s, ty.as_deref(), rng).and_then(|(what, effect)| edit(what, effect)),
        // An exclusive bound: 3.0's boolean made true beside `maximum` (alone it would
        // constrain nothing), 3.1's number at the maximum's value or on its own.
        11 if matches!(ty.as_deref(), Some("integer" | "number")) => {
            let max = s.get("maximum").and_then(Value::as_f64);
            let exclusive = s.get("exclusiveMaximum").cloned();
            match (is_31, max, exclusive) {
                (false, Some(m), None | Some(Value::Bool(false))) => {
                    s.insert("exclusiveMaximum".into(), json!(true));
                    edit(format!("maximum {m} made exclusive"), Effect::Narrow)
                }
                (true, Some(m), None) => {
                    s.insert("exclusiveMaximum".into(), json!(m));
                    edit(format!("exclusiveMaximum {m} set"), Effect::Narrow)
                }
                (true, None, None) => {
                    s.insert("exclusiveMaximum".into(), json!(7));
                    edit("exclusiveMaximum 7 set".into(), Effect::Narrow)
                }
                _ => None,
            }
        }
        // A branch of a composition removed: fewer shapes are valid, which refuses what
        // clients send and is harmless in what they receive.
        10 => {
            // Branches that are not 3.1's `{type: 'null'}` (with them, a nullable reference).
            let null = |b: &Value| b.get("type") == Some(&json!("null"));
            let kind = ["oneOf", "anyOf"].into_iter().find(|k| {
                s.get(*k)
                    .and_then(Value::as_array)
                    .is_some_and(|l| l.iter().filter(|b| !null(b)).count() >= 2)
            })?;
            let list = s.get_mut(kind)?.as_array_mut()?;
            let i = rng.below(list.len());
            if null(&list[i]) {
                return None;
            }
            list.remove(i);
            edit(format!("{kind} branch #{i} removed"), Effect::Narrow)
        }
        9 => {
            let names: Vec<String> = s
                .get("properties")
                .and_then(Value::as_object)?
                .keys()
                .cloned()
                .collect();
            if rng.below(2) == 0 && !names.is_empty() {
                let name = names[rng.below(names.len())].clone();
                if never_here(&s["properties"][&name], dir) {
                    return None; // removing what is never sent (received) here changes nothing
                }
                s.get_mut("properties")?.as_object_mut()?.remove(&name);
                let removed_ptr = format!("{ptr}/properties/{}", super::targets::escape(&name));
                let mut e = edit(format!("property `{name}` removed"), Effect::Any)?;
                e.roots.push(removed_ptr);
                Some(e)
            } else {
                s.get_mut("properties")?
                    .as_object_mut()?
                    .insert("fuzz_field".into(), json!({"type": "string"}));
                s.entry("required")
                    .or_insert_with(|| json!([]))
                    .as_array_mut()?
                    .push(json!("fuzz_field"));
                edit(
                    "required property `fuzz_field` added".into(),
                    Effect::Narrow,
                )
            }
        }
        _ => None,
    }
}

/// A JSON Schema 2020-12 keyword set where it fits the type.
fn three_one(
    s: &mut serde_json::Map<String, Value>,
    ty: Option<&str>,
    rng: &mut Rng,
) -> Option<(String, Effect)> {
    let (key, value): (&str, Value) = match (ty, rng.below(4)) {
        (Some("string"), 0) => ("const", json!("only")),
        (Some("string"), 1) => ("contentMediaType", json!("image/png")),
        (Some("string"), _) => ("not", json!({"const": "forbidden"})),
        (Some("array"), 0) => ("contains", json!({"type": "string"})),
        (Some("array"), 1) => ("prefixItems", json!([{"type": "string"}])),
        (Some("array"), _) => ("unevaluatedItems", json!(false)),
        (Some("object"), 0) => ("propertyNames", json!({"maxLength": 3})),
        (Some("object"), 1) => ("unevaluatedProperties", json!(false)),
        (Some("object"), 2) if rng.below(2) == 0 => {
            ("dependentRequired", json!({"fuzz_a": ["fuzz_b"]}))
        }
        (Some("object"), 2) => (
            "dependentSchemas",
            json!({"fuzz_a": {"required": ["fuzz_b"]}}),
        ),
        (Some("object"), _) => ("patternProperties", json!({"^fuzz": {"type": "integer"}})),
        _ => return None,
    };
    // `const` beside an `enum` is read through the enum; a tuple closed by `items: false` grows.
    if s.contains_key(key) || (key == "const" && s.contains_key("enum")) {
        return None;
    }
    let closed = s.get("items") == Some(&Value::Bool(false));
    s.insert(key.into(), value);
    // contentMediaType set is a change of what the string holds: incomparable.
    let effect = match key {
        "contentMediaType" => Effect::Incomparable,
        "prefixItems" if closed => Effect::Widen,
        _ => Effect::Narrow,
    };
    Some((format!("{key} set"), effect))
}

fn operation(doc: &mut Value, ptr: &str, rng: &mut Rng) -> Option<Edit> {
    let has_scheme = doc
        .pointer("/components/securitySchemes/fuzzAuth")
        .is_some();
    // The servers that apply to the operation: its own, its path item's or the document's.
    let item_ptr = ptr.rsplit_once('/').map_or("", |(p, _)| p).to_string();
    let has_servers = [
        format!("{ptr}/servers"),
        format!("{item_ptr}/servers"),
        "/servers".into(),
    ]
    .iter()
    .any(|p| {
        doc.pointer(p)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    });
    // The requirement that applies, with one more scheme in its first alternative.
    let stricter = doc
        .pointer(&format!("{ptr}/security"))
        .or_else(|| doc.get("security"))
        .and_then(Value::as_array)
        .filter(|list| {
            list.first()
                .and_then(Value::as_object)
                .is_some_and(|alt| !alt.is_empty() && !alt.contains_key("fuzzAuth"))
        })
        .cloned()
        .map(|mut list| {
            list[0]["fuzzAuth"] = json!([]);
            list
        })
        .filter(|_| has_scheme);
    let op = obj(doc, ptr)?;
    let none = |what: String, roots: Vec<String>, dir: Option<Dir>, effect| {
        Some(Edit {
            what,
            roots,
            dir,
            effect,
            lenient: false,
        })
    };
    match rng.below(7) {
        6 => {
            // Whether a change may break its clients can no longer be read from the level.
            op.insert("x-stability-level".into(), json!("gamma"));
            none(
                "x-stability-level gamma (not a level)".into(),
                vec![format!("{ptr}/x-stability-level")],
                None,
                Effect::Incomparable,
            )
        }
        5 => {
            // Every caller must now also present fuzzAuth.
            op.insert("security".into(), Value::Array(stricter?));
            none(
                "fuzzAuth added to the first security requirement".into(),
                vec![format!("{ptr}/security/0")],
                Some(Dir::Request),
                Effect::Narrow,
            )
        }
        4 => {
            // Another host: a client built for the old one calls the wrong server (or, where
            // no server was declared, one more place to call).
            op.insert(
                "servers".into(),
                json!([{"url": "https://fuzz.invalid/api"}]),
            );
            let effect = if has_servers {
                Effect::Incomparable
            } else {
                Effect::Widen
            };
            none(
                "operation servers replaced".into(),
                vec![format!("{ptr}/servers")],
                Some(Dir::Request),
                effect,
            )
        }
        0 => {
            let statuses: Vec<String> = op.get("responses")?.as_object()?.keys().cloned().collect();
            let status = statuses.get(rng.below(statuses.len().max(1)))?.clone();
            op.get_mut("responses")?.as_object_mut()?.remove(&status);
            let effect = if status.starts_with('2') {
                Effect::Incomparable
            } else {
                Effect::Any
            };
            let at = format!("{ptr}/responses/{}", super::targets::escape(&status));
            none(
                format!("response {status} removed"),
                vec![at],
                Some(Dir::Response),
                effect,
            )
        }
        1 => {
            op.get_mut("responses")?
                .as_object_mut()?
                .insert("299".into(), json!({"description": "fuzz"}));
            none(
                "success status 299 added".into(),
                vec![format!("{ptr}/responses/299")],
                Some(Dir::Response),
                Effect::Widen,
            )
        }
        2 => {
            let params = op
                .entry("parameters")
                .or_insert_with(|| json!([]))
                .as_array_mut()?;
            params.push(json!({"name": "fuzz_q", "in": "query", "required": true, "schema": {"type": "string"}}));
            let at = format!("{ptr}/parameters/{}", params.len() - 1);
            none(
                "required query parameter added".into(),
                vec![at],
                Some(Dir::Request),
                Effect::Narrow,
            )
        }
        _ if has_scheme => {
            op.insert("security".into(), json!([{"fuzzAuth": ["fuzz:scope"]}]));
            // Either a new requirement (ERR) or a scope added; the security findings are at the
            // operation's `security`.
            none(
                "security requirement replaced by fuzzAuth".into(),
                vec![format!("{ptr}/security")],
                Some(Dir::Request),
                Effect::Any,
            )
        }
        _ => None,
    }
}

fn content(doc: &mut Value, ptr: &str, dir: Dir, rng: &mut Rng) -> Option<Edit> {
    let map = obj(doc, ptr)?;
    let media: Vec<String> = map.keys().cloned().collect();
    let name = media.get(rng.below(media.len().max(1)))?.clone();
    let roots = vec![ptr.to_string()];
    if rng.below(2) == 0 {
        let entry = map.remove(&name)?;
        map.insert("application/x-fuzz".into(), entry);
        Some(Edit {
            what: format!("media type {name} renamed"),
            roots,
            dir: Some(dir),
            effect: Effect::Any,
            lenient: false,
        })
    } else {
        let entry = map.get_mut(&name)?.as_object_mut()?;
        entry.remove("schema")?;
        let effect = Effect::Widen;
        Some(Edit {
            what: format!("schema of {name} removed"),
            roots,
            dir: Some(dir),
            effect,
            lenient: false,
        })
    }
}
