//! Lints a spec for what progenitor 0.15 mishandles, before it gets the chance to panic or to
//! generate a client that silently loses data (CODEGEN.md §5 and §9).
//!
//! Each violation names the spec file and the JSON pointer of the offending node, and all of them
//! are reported at once so a spec author fixes them in one pass.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use crate::spec::{SpecFile, escape_pointer_token};

/// One rule broken at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// RFC 6901 pointer into the spec.
    pub pointer: String,
    /// What is wrong and why it matters.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.message)
    }
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Returns every violation in `spec`, in document order.
pub fn lint(spec: &SpecFile) -> Vec<Violation> {
    let mut out = Vec::new();
    let tree = &spec.tree;
    let version = tree.get("openapi").and_then(Value::as_str).unwrap_or("");
    if !version.starts_with("3.0.") {
        push(
            &mut out,
            "/openapi",
            format!("version {version:?} must be 3.0.x"),
        );
    }
    lint_operations(tree, &mut out);
    lint_schemas(tree, "", &mut out);
    out
}

fn push(out: &mut Vec<Violation>, pointer: impl Into<String>, message: impl Into<String>) {
    out.push(Violation {
        pointer: pointer.into(),
        message: message.into(),
    });
}

/// Parameter locations that authentication occupies; a parameter there would duplicate the auth
/// the hand-written hooks add.
fn auth_parameters(tree: &Value) -> BTreeSet<(String, String)> {
    let mut set = BTreeSet::from([("header".to_string(), "authorization".to_string())]);
    if let Some(schemes) = tree
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    {
        for scheme in schemes.values() {
            if scheme.get("type").and_then(Value::as_str) == Some("apiKey") {
                let location = scheme.get("in").and_then(Value::as_str).unwrap_or("");
                let name = scheme.get("name").and_then(Value::as_str).unwrap_or("");
                set.insert((location.to_string(), name.to_ascii_lowercase()));
            }
        }
    }
    set
}

fn lint_operations(tree: &Value, out: &mut Vec<Violation>) {
    let Some(paths) = tree.get("paths").and_then(Value::as_object) else {
        push(out, "/paths", "the spec has no paths");
        return;
    };
    let auth = auth_parameters(tree);
    let mut operation_ids: BTreeMap<String, String> = BTreeMap::new();
    for (path, item) in paths {
        let item_ptr = format!("/paths/{}", escape_pointer_token(path));
        if item.get("$ref").is_some() {
            push(
                out,
                &item_ptr,
                "path items by $ref are not supported by progenitor",
            );
            continue;
        }
        lint_parameters(
            tree,
            item.get("parameters"),
            &format!("{item_ptr}/parameters"),
            &auth,
            out,
        );
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let op_ptr = format!("{item_ptr}/{method}");
            match op.get("operationId").and_then(Value::as_str) {
                None => push(out, &op_ptr, "operation has no operationId"),
                Some(id) => {
                    if let Some(first) = operation_ids.insert(id.to_string(), op_ptr.clone()) {
                        push(
                            out,
                            format!("{op_ptr}/operationId"),
                            format!("operationId {id:?} is already used at {first}"),
                        );
                    }
                }
            }
            lint_parameters(
                tree,
                op.get("parameters"),
                &format!("{op_ptr}/parameters"),
                &auth,
                out,
            );
            lint_request_body(
                tree,
                op.get("requestBody"),
                &format!("{op_ptr}/requestBody"),
                out,
            );
            lint_responses(
                tree,
                op.get("responses"),
                &format!("{op_ptr}/responses"),
                out,
            );
        }
    }
}

/// Follows a local `$ref` (`#/components/...`) once; other nodes are returned as they are.
fn resolve<'a>(tree: &'a Value, node: &'a Value) -> Option<&'a Value> {
    match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference.strip_prefix('#').and_then(|p| tree.pointer(p)),
        None => Some(node),
    }
}

fn lint_parameters(
    tree: &Value,
    parameters: Option<&Value>,
    ptr: &str,
    auth: &BTreeSet<(String, String)>,
    out: &mut Vec<Violation>,
) {
    let Some(parameters) = parameters.and_then(Value::as_array) else {
        return;
    };
    for (i, parameter) in parameters.iter().enumerate() {
        let p_ptr = format!("{ptr}/{i}");
        let Some(parameter) = resolve(tree, parameter) else {
            push(out, p_ptr, "unresolved parameter $ref");
            continue;
        };
        let location = parameter.get("in").and_then(Value::as_str).unwrap_or("");
        let name = parameter.get("name").and_then(Value::as_str).unwrap_or("");
        if location == "cookie" {
            push(
                out,
                &p_ptr,
                "cookie parameters are not supported by progenitor",
            );
        }
        if auth.contains(&(location.to_string(), name.to_ascii_lowercase())) {
            push(
                out,
                &p_ptr,
                format!(
                    "{location} parameter {name:?} carries credentials: declare it only under \
                     components/securitySchemes (the client's hooks add it)"
                ),
            );
        }
        if let Some(style) = parameter.get("style").and_then(Value::as_str) {
            let supported = matches!(
                (location, style),
                ("path", "simple") | ("query", "form") | ("header", "simple")
            );
            if !supported {
                push(
                    out,
                    format!("{p_ptr}/style"),
                    format!("style {style:?} is not supported for {location} parameters"),
                );
            }
        }
    }
}

fn lint_request_body(tree: &Value, body: Option<&Value>, ptr: &str, out: &mut Vec<Violation>) {
    let Some(body) = body else { return };
    let Some(body) = resolve(tree, body) else {
        push(out, ptr, "unresolved requestBody $ref");
        return;
    };
    let media: Vec<&String> = body
        .get("content")
        .and_then(Value::as_object)
        .map(|c| c.keys().collect())
        .unwrap_or_default();
    if media.len() != 1 || media[0] != "application/json" {
        push(
            out,
            format!("{ptr}/content"),
            format!(
                "request bodies must have exactly one media type, application/json (found {media:?})"
            ),
        );
    }
}

/// How a response is typed: by its JSON schema (as canonical text) or by having no body.
fn response_body_key(tree: &Value, response: &Value) -> Option<String> {
    let response = resolve(tree, response)?;
    let schema = response.pointer("/content/application~1json/schema")?;
    Some(schema.to_string())
}

fn lint_responses(tree: &Value, responses: Option<&Value>, ptr: &str, out: &mut Vec<Violation>) {
    let Some(responses) = responses.and_then(Value::as_object) else {
        push(out, ptr, "operation has no responses");
        return;
    };
    let mut success: BTreeMap<Option<String>, String> = BTreeMap::new();
    let mut errors: BTreeMap<Option<String>, String> = BTreeMap::new();
    for (status, response) in responses {
        let r_ptr = format!("{ptr}/{}", escape_pointer_token(status));
        if let Some(content) = resolve(tree, response)
            .and_then(|r| r.get("content"))
            .and_then(Value::as_object)
        {
            for media in content.keys() {
                if media != "application/json" {
                    push(
                        out,
                        format!("{r_ptr}/content/{}", escape_pointer_token(media)),
                        format!(
                            "response media type {media:?} is not decoded by progenitor; use application/json"
                        ),
                    );
                }
            }
        }
        let key = response_body_key(tree, response);
        let class = status.chars().next().unwrap_or('?');
        let bucket = match class {
            '2' => &mut success,
            '4' | '5' => &mut errors,
            _ if status == "default" => &mut errors,
            _ => continue,
        };
        bucket.entry(key).or_insert(r_ptr);
    }
    // Success responses without a body coexist with one typed body; two typed bodies do not.
    let typed_success: Vec<&String> = success
        .iter()
        .filter(|(k, _)| k.is_some())
        .map(|(_, p)| p)
        .collect();
    if typed_success.len() > 1 {
        push(
            out,
            typed_success[1].clone(),
            format!(
                "a second success schema (the first is at {}): progenitor allows one success type per operation",
                typed_success[0]
            ),
        );
    }
    if errors.len() > 1 {
        let places: Vec<&String> = errors.values().collect();
        push(
            out,
            places[1].clone(),
            format!(
                "error responses differ from the one at {}: progenitor needs every error response to share one schema, or none to have a body",
                places[0]
            ),
        );
    }
}

/// Walks every schema in the document (components and inline) for the constructs that break
/// generated clients.
fn lint_schemas(node: &Value, ptr: &str, out: &mut Vec<Violation>) {
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
                lint_schemas(child, &format!("{ptr}/{}", escape_pointer_token(key)), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                lint_schemas(child, &format!("{ptr}/{i}"), out);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn violations(yaml: &str) -> Vec<String> {
        let spec = SpecFile::parse(Path::new("t.yaml"), yaml).unwrap();
        lint(&spec).iter().map(ToString::to_string).collect()
    }

    const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

    #[test]
    fn clean_spec_passes() {
        let yaml = format!(
            "{HEAD}paths:\n  /a/{{id}}:\n    get:\n      operationId: get_a\n      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/A'}}}}}}}}\n        '201': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/A'}}}}}}}}\n        '404': {{description: e, content: {{application/json: {{schema: {{$ref: '#/components/schemas/E'}}}}}}}}\n        '500': {{description: e, content: {{application/json: {{schema: {{$ref: '#/components/schemas/E'}}}}}}}}\ncomponents:\n  schemas:\n    A: {{type: object, properties: {{enum: {{type: string}}, s: {{$ref: '#/components/schemas/S'}}}}}}\n    S: {{type: string, enum: [a, b]}}\n    E: {{type: object}}\n"
        );
        assert_eq!(violations(&yaml), Vec::<String>::new());
    }

    #[test]
    fn reports_each_rule_with_its_pointer() {
        let yaml = format!(
            "{HEAD}paths:\n  /a:\n    get:\n      parameters: [{{name: Authorization, in: header, schema: {{type: string}}}}]\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{type: object}}}}}}}}\n        '201': {{description: ok, content: {{application/json: {{schema: {{type: string}}}}}}}}\n        '400': {{description: e, content: {{application/json: {{schema: {{type: object}}}}}}}}\n        '500': {{description: e}}\n    post:\n      operationId: x\n      requestBody: {{content: {{multipart/form-data: {{schema: {{type: object}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n  /b:\n    get:\n      operationId: x\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  schemas:\n    A:\n      type: object\n      additionalProperties: false\n      properties:\n        s: {{type: string, enum: [a]}}\n        u: {{anyOf: [{{type: string}}, {{type: integer}}]}}\n    N: {{type: integer, enum: [1, 2]}}\n"
        );
        let found = violations(&yaml);
        let expected = [
            "at /paths/~1a/get: operation has no operationId",
            "at /paths/~1a/get/parameters/0: header parameter \"Authorization\" carries credentials",
            "at /paths/~1a/get/responses/201: a second success schema (the first is at /paths/~1a/get/responses/200)",
            "at /paths/~1a/get/responses/400: error responses differ from the one at /paths/~1a/get/responses/500",
            "at /paths/~1a/post/requestBody/content: request bodies must have exactly one media type",
            "at /paths/~1b/get/operationId: operationId \"x\" is already used at /paths/~1a/post",
            "at /components/schemas/A/additionalProperties: additionalProperties: false",
            "at /components/schemas/A/properties/s/enum: enums must be named components",
            "at /components/schemas/A/properties/u/anyOf: anyOf",
            "at /components/schemas/N/enum: only string enums",
        ];
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for want in expected {
            assert!(
                found.iter().any(|f| f.starts_with(want)),
                "missing {want:?} in {found:#?}"
            );
        }
    }

    #[test]
    fn apikey_scheme_parameter_is_flagged() {
        let yaml = format!(
            "{HEAD}paths:\n  /a:\n    get:\n      operationId: a\n      parameters: [{{$ref: '#/components/parameters/K'}}]\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  parameters:\n    K: {{name: apikey, in: query, schema: {{type: string}}}}\n  securitySchemes:\n    key: {{type: apiKey, in: query, name: apikey}}\n"
        );
        let found = violations(&yaml);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].starts_with("at /paths/~1a/get/parameters/0: query parameter \"apikey\""));
    }
}
