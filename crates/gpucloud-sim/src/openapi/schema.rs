//! OpenAPI 3.0 schemas as JSON Schema, validated by the `jsonschema` crate.
//!
//! OpenAPI 3.0's schema dialect is JSON Schema draft 5 plus a few keywords. The only one our
//! specs use that changes what is valid is `nullable: true`; it becomes
//! `anyOf: [{type: null}, <the schema>]`. An integer's `format: int32`/`int64` is a range in
//! OpenAPI (a gRPC service refuses an `int32` beyond 2^31 - 1), so it becomes the
//! `minimum`/`maximum` of that range where the schema states none. Everything else (`readOnly`,
//! `deprecated`, `x-*`) is an annotation the validator ignores. `$ref`s keep pointing at
//! `#/components/schemas/…`: each compiled schema is a document carrying the converted
//! `components`, so the references resolve inside it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

/// One way a value breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Where, as a dotted path (`shared_volume.size_tib`, `ssh_key_ids.3`); empty for the root.
    pub(crate) path: String,
    /// What the validator said.
    pub(crate) message: String,
}

/// The schemas of one spec, compiled on first use and cached.
pub(crate) struct SchemaSet {
    /// As written in the spec, for [`SchemaSet::resolve`].
    raw: Value,
    /// Converted, for the validator.
    components: Value,
    compiled: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl std::fmt::Debug for SchemaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaSet").finish_non_exhaustive()
    }
}

impl SchemaSet {
    /// The converted `components` of a spec document.
    pub(crate) fn new(doc: &Value) -> Self {
        let raw = doc.get("components").cloned().unwrap_or(json!({}));
        Self {
            components: convert(&raw),
            raw,
            compiled: Mutex::new(HashMap::new()),
        }
    }

    /// The schema `components/schemas/<name>` as a reference.
    #[cfg(test)]
    pub(crate) fn named(name: &str) -> Value {
        json!({ "$ref": format!("#/components/schemas/{name}") })
    }

    /// Follows `$ref`s (and single-element `allOf` wrappers) to the schema's own keywords, to
    /// learn its `type` or `items`.
    pub(crate) fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        let mut current = schema;
        for _ in 0..16 {
            if let Some(target) = current.get("$ref").and_then(Value::as_str) {
                match target
                    .strip_prefix("#/components")
                    .and_then(|p| self.raw.pointer(p))
                {
                    Some(next) => current = next,
                    None => return current,
                }
            } else if let Some([only]) = current
                .get("allOf")
                .and_then(Value::as_array)
                .map(|v| v.as_slice())
            {
                current = only;
            } else {
                return current;
            }
        }
        current
    }

    /// Validates `instance` against `schema` (an OpenAPI schema, converted here).
    pub(crate) fn check(&self, schema: &Value, instance: &Value) -> Result<(), Vec<Violation>> {
        let validator = self.compiled(schema).map_err(|message| {
            vec![Violation {
                path: String::new(),
                message: format!("the spec's schema does not compile: {message}"),
            }]
        })?;
        let violations: Vec<Violation> = validator
            .iter_errors(instance)
            .map(|error| Violation {
                path: dotted(error.instance_path().as_str(), error.kind()),
                message: error.to_string(),
            })
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    fn compiled(&self, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
        let key = schema.to_string();
        if let Some(found) = self.compiled.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(found);
        }
        let document = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "components": self.components,
            "allOf": [convert(schema)],
        });
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&document)
            .map_err(|e| e.to_string())?;
        let validator = Arc::new(validator);
        if let Ok(mut compiled) = self.compiled.lock() {
            compiled.insert(key, validator.clone());
        }
        Ok(validator)
    }
}

/// `/a/0/b` → `a.0.b`; for a missing required property, the property's own path.
fn dotted(pointer: &str, kind: &jsonschema::error::ValidationErrorKind) -> String {
    let mut path: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    if let jsonschema::error::ValidationErrorKind::Required { property } = kind
        && let Some(name) = property.as_str()
    {
        path.push(name.to_string());
    }
    path.join(".")
}

/// OpenAPI 3.0 → JSON Schema 2020-12 (see the module docs).
pub(crate) fn convert(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(convert).collect()),
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .filter(|(key, _)| key.as_str() != "nullable")
                .map(|(key, value)| (key.clone(), convert(value)))
                .collect();
            if map.get("type").and_then(Value::as_str) == Some("integer") {
                let range = match map.get("format").and_then(Value::as_str) {
                    Some("int32") => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
                    Some("int64") => Some((i64::MIN, i64::MAX)),
                    _ => None,
                };
                if let Some((min, max)) = range {
                    out.entry("minimum").or_insert(min.into());
                    out.entry("maximum").or_insert(max.into());
                }
            }
            if map.get("nullable") == Some(&Value::Bool(true)) {
                let rest = Value::Object(std::mem::take(&mut out));
                out.insert("anyOf".into(), json!([{ "type": "null" }, rest]));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> SchemaSet {
        SchemaSet::new(&json!({
            "components": { "schemas": {
                "Kind": { "type": "string", "enum": ["a", "b"] },
                "Thing": {
                    "type": "object",
                    "required": ["count"],
                    "properties": {
                        "count": { "type": "integer", "multipleOf": 8 },
                        "kind": { "nullable": true, "allOf": [{ "$ref": "#/components/schemas/Kind" }] },
                        "when": { "type": "string", "format": "date-time" }
                    }
                }
            }}
        }))
    }

    #[test]
    fn nullable_refs_accept_null_and_reject_other_values() {
        let set = set();
        let thing = SchemaSet::named("Thing");
        assert_eq!(
            set.check(&thing, &json!({"count": 16, "kind": null})),
            Ok(())
        );
        assert_eq!(
            set.check(&thing, &json!({"count": 16, "kind": "a"})),
            Ok(())
        );
        let errors = set
            .check(&thing, &json!({"count": 7, "kind": "c", "when": "noon"}))
            .unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|v| v.path.as_str()).collect();
        assert!(paths.contains(&"count"), "{errors:?}");
        assert!(paths.contains(&"kind"), "{errors:?}");
        assert!(paths.contains(&"when"), "{errors:?}");
    }

    #[test]
    fn missing_required_properties_are_named() {
        let errors = set()
            .check(&SchemaSet::named("Thing"), &json!({}))
            .unwrap_err();
        assert_eq!(errors[0].path, "count");
    }

    #[test]
    fn integer_formats_are_ranges() {
        let int32 = convert(&json!({"type": "integer", "format": "int32"}));
        assert_eq!(int32["maximum"], json!(2_147_483_647));
        assert_eq!(int32["minimum"], json!(-2_147_483_648));
        let bounded = convert(&json!({"type": "integer", "format": "int32", "minimum": 1}));
        assert_eq!(bounded["minimum"], json!(1));
        let int64 = convert(&json!({"type": "integer", "format": "int64"}));
        assert_eq!(int64["maximum"], json!(i64::MAX));
    }

    #[test]
    fn resolve_follows_refs_to_the_type() {
        let set = set();
        let kind = json!({ "allOf": [{ "$ref": "#/components/schemas/Kind" }] });
        assert_eq!(set.resolve(&kind)["type"], "string");
    }
}
