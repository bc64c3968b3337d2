//! Paths and operations: operationIds, parameters, request bodies and responses.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Violation, push};
use crate::spec::escape_pointer_token;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

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

pub(super) fn lint(tree: &Value, out: &mut Vec<Violation>) {
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
