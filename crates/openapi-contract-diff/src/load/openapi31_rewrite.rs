//! OpenAPI 3.1 → 3.0 in memory, for the provider documents `--against` reads.
//!
//! Only the constructs that change what the diff sees are rewritten, and every rewrite keeps the
//! JSON pointers of schemas and properties, so locations still point into the original file:
//! - `type: [T, "null"]` → `type: T` + `nullable: true` (several non-null types stay a list,
//!   compared as a set of types);
//! - a `{type: "null"}` branch of `anyOf`/`oneOf` → `nullable: true` on the parent;
//! - numeric `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` + boolean;
//! - `$ref` with meaningful siblings (3.1 applies them, 3.0 ignores them) → `allOf: [{$ref}]` +
//!   the siblings. Documentation siblings (`description`, `summary`) are dropped.

use serde_json::{Map, Value, json};

use crate::load::key_context::{Ctx, is_annotation_keyword};

/// Rewrites `tree` in place if it is a 3.1 document; returns whether it was one.
pub fn normalise(tree: &mut Value) -> bool {
    let is_31 = tree
        .get("openapi")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("3.1"));
    if is_31 {
        rewrite(tree, Ctx::Keywords);
        if let Some(map) = tree.as_object_mut() {
            map.insert("openapi".into(), json!("3.0.3"));
        }
    }
    is_31
}

/// Rewrites the objects of keywords under `value`; names (a property called `const`) and
/// literals (an `enum` of objects) are left as written.
fn rewrite(value: &mut Value, ctx: Ctx) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite(v, ctx.item())),
        Value::Object(map) => {
            if ctx == Ctx::Keywords {
                rewrite_object(map);
            }
            for (key, child) in map.iter_mut() {
                rewrite(child, ctx.child(key));
            }
        }
        _ => {}
    }
}

fn rewrite_object(map: &mut Map<String, Value>) {
    if map.contains_key("$ref") && map.len() > 1 {
        map.retain(|k, _| k == "$ref" || !is_annotation_keyword(k));
        if map.len() > 1 {
            let reference = map.remove("$ref").unwrap_or(Value::Null);
            map.insert("allOf".into(), json!([{ "$ref": reference }]));
        }
    }
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let mut others: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        let had_null =
            map.get("type").and_then(Value::as_array).map(Vec::len) != Some(others.len());
        if had_null {
            map.insert("nullable".into(), Value::Bool(true));
        }
        match others.len() {
            0 => {
                map.remove("type");
            }
            1 => {
                map.insert("type".into(), others.remove(0));
            }
            _ => {
                map.insert("type".into(), Value::Array(others));
            }
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            let before = branches.len();
            branches.retain(|b| !is_null_schema(b));
            if branches.len() != before {
                map.insert("nullable".into(), Value::Bool(true));
            }
        }
    }
    // Beside an inclusive bound, the stricter of the two is the bound: `maximum: 10` with
    // `exclusiveMaximum: 20` allows at most 10.
    for (exclusive, bound, upper) in [
        ("exclusiveMinimum", "minimum", false),
        ("exclusiveMaximum", "maximum", true),
    ] {
        let Some(Value::Number(n)) = map.get(exclusive).cloned() else {
            continue;
        };
        let inclusive = map.get(bound).and_then(Value::as_f64);
        let (x, y) = (
            n.as_f64().unwrap_or(f64::NAN),
            inclusive.unwrap_or(f64::NAN),
        );
        let inclusive_stricter = if upper { y < x } else { y > x };
        if inclusive_stricter {
            map.insert(exclusive.into(), Value::Bool(false));
        } else {
            map.insert(bound.into(), Value::Number(n));
            map.insert(exclusive.into(), Value::Bool(true));
        }
    }
}

/// `{type: "null"}` or `{type: ["null"]}` (documentation keys aside).
fn is_null_schema(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    let null_type = match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.len() == 1 && ts[0] == "null",
        _ => false,
    };
    null_type
        && map
            .keys()
            .all(|k| k == "type" || k == "description" || k == "title")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_the_3_1_constructs() {
        let mut tree = json!({
            "openapi": "3.1.0",
            "components": {"schemas": {
                "A": {"type": ["string", "null"], "const": "x"},
                "B": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]},
                "C": {"$ref": "#/components/schemas/A", "description": "doc only"},
                "D": {"$ref": "#/components/schemas/A", "readOnly": true},
                "E": {"type": "integer", "exclusiveMinimum": 0}
            }}
        });
        assert!(normalise(&mut tree));
        let s = &tree["components"]["schemas"];
        assert_eq!(
            s["A"],
            json!({"type": "string", "nullable": true, "const": "x"})
        );
        assert_eq!(s["B"]["nullable"], json!(true));
        assert_eq!(s["B"]["anyOf"].as_array().map(Vec::len), Some(1));
        assert_eq!(s["C"], json!({"$ref": "#/components/schemas/A"}));
        assert_eq!(s["D"]["allOf"][0]["$ref"], json!("#/components/schemas/A"));
        assert_eq!(s["E"]["minimum"], json!(0));
        assert_eq!(s["E"]["exclusiveMinimum"], json!(true));
    }

    #[test]
    fn names_and_literals_are_not_rewritten() {
        let mut tree = json!({
            "openapi": "3.1.0",
            "components": {"schemas": {
                "A": {"type": "object", "properties": {"const": {"type": "string"}}},
                "B": {"enum": [{"const": 1}]}
            }}
        });
        let before = tree["components"].clone();
        assert!(normalise(&mut tree));
        assert_eq!(tree["components"], before);
    }

    #[test]
    fn leaves_3_0_alone() {
        let mut tree = json!({"openapi": "3.0.3", "x": {"type": ["a"]}});
        let before = tree.clone();
        assert!(!normalise(&mut tree));
        assert_eq!(tree, before);
    }
}
