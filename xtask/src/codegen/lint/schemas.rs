//! Schemas, wherever they are: the constructs that break generated clients.

use serde_json::Value;

use super::{Violation, push};
use crate::spec::escape_pointer_token;

/// Walks every schema in the document (components and inline) for the constructs that break
/// generated clients.
pub(super) fn lint(node: &Value, ptr: &str, out: &mut Vec<Violation>) {
    match node {
        Value::Object(map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                push(
                    out,
                    format!("{ptr}/additionalProperties"),
                    "additionalProperties: false becomes deny_unknown_fields: a provider adding a field would break decoding",
                );
            }
            if map.contains_key("anyOf") && is_schema_context(ptr) {
                push(
                    out,
                    format!("{ptr}/anyOf"),
                    "anyOf becomes a struct of flattened options that fails at run time (typify #895)",
                );
            }
            if let Some(values) = map.get("enum").and_then(Value::as_array)
                && is_schema_context(ptr)
            {
                lint_enum(map, values, ptr, out);
            }
            let in_properties = !is_schema_context(ptr);
            for (key, child) in map {
                // `example`/`examples`/`default`/`enum` hold data, not schemas (unless they are
                // property names).
                let data = matches!(key.as_str(), "example" | "examples" | "default" | "enum");
                if data && !in_properties {
                    continue;
                }
                lint(child, &format!("{ptr}/{}", escape_pointer_token(key)), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                lint(child, &format!("{ptr}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// True where a node at `ptr` is a schema rather than, say, a property literally named `enum`
/// inside `properties`.
fn is_schema_context(ptr: &str) -> bool {
    !ptr.ends_with("/properties")
}

fn lint_enum(
    map: &serde_json::Map<String, Value>,
    values: &[Value],
    ptr: &str,
    out: &mut Vec<Violation>,
) {
    let segments: Vec<&str> = ptr.split('/').collect();
    let named_component =
        segments.len() == 4 && segments[1] == "components" && segments[2] == "schemas";
    if !named_component {
        push(
            out,
            format!("{ptr}/enum"),
            "enums must be named components under /components/schemas, used by $ref: only those become open enums with an Unknown variant",
        );
        return;
    }
    if map.get("type").and_then(Value::as_str) != Some("string")
        || !values.iter().all(Value::is_string)
    {
        push(
            out,
            format!("{ptr}/enum"),
            "only string enums are supported (they become open enums)",
        );
    }
}
