//! Tables derived from a spec's operations and appended to its `generated.rs`: the operation
//! ids as constants, and the query arrays the hooks send comma-joined.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

/// The HTTP methods an OpenAPI path item can hold an operation under.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Every operation of `tree`: its method, path and object.
fn operations(tree: &Value) -> Vec<(&str, &str, &Value)> {
    let mut found = Vec::new();
    for (path, item) in tree
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                found.push((method, path.as_str(), op));
            }
        }
    }
    found
}

/// `pub mod operation_ids`: one constant per `operationId` (upper snake case), the string the
/// generated client passes to its hooks (`OperationInfo::operation_id`). Code that compares an
/// operation names the constant, so a renamed or removed operation is a compile error there,
/// not a comparison that silently never matches.
pub fn operation_ids(tree: &Value) -> TokenStream {
    let mut entries: Vec<(String, String, String)> = operations(tree)
        .into_iter()
        .filter_map(|(method, path, op)| {
            let id = op.get("operationId").and_then(Value::as_str)?;
            Some((
                id.to_string(),
                method.to_ascii_uppercase(),
                path.to_string(),
            ))
        })
        .filter(|(id, _, _)| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    entries.sort();
    let constants = entries.iter().map(|(id, method, path)| {
        let name = format_ident!("{}", id.to_ascii_uppercase());
        let doc = format!("`{method} {path}`.");
        quote! {
            #[doc = #doc]
            pub const #name: &str = #id;
        }
    });
    quote! {
        /// The operation ids of this API, as the generated client passes them to its hooks
        /// (`OperationInfo::operation_id`) and as errors name them.
        pub mod operation_ids {
            #(#constants)*
        }
    }
}

/// The `(operationId, parameter)` pairs of array query parameters declared `style: form,
/// explode: false`. progenitor sends such arrays as repeated pairs (`state=A&state=B`); the
/// crate's hooks join them into the declared form (`state=A,B`) from this table.
pub fn comma_joined_query_params(tree: &serde_json::Value) -> TokenStream {
    let resolve = |node: &'_ Value| -> Option<Value> {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => r.strip_prefix('#').and_then(|p| tree.pointer(p)).cloned(),
            None => Some(node.clone()),
        }
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    for item in tree
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
    {
        let shared: Vec<Value> = item
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            let own = op
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for parameter in shared.iter().chain(own.iter()).filter_map(resolve) {
                let is_array =
                    parameter.pointer("/schema/type").and_then(Value::as_str) == Some("array");
                let query = parameter.get("in").and_then(Value::as_str) == Some("query");
                let unexploded = parameter.get("explode").and_then(Value::as_bool) == Some(false);
                if is_array
                    && query
                    && unexploded
                    && let Some(name) = parameter.get("name").and_then(Value::as_str)
                {
                    pairs.push((id.to_string(), name.to_string()));
                }
            }
        }
    }
    let entries = pairs.iter().map(|(op, name)| quote!((#op, #name)));
    quote! {
        /// Array query parameters sent comma-joined (`style: form, explode: false`), by
        /// operation id; the crate's hooks join progenitor's repeated pairs accordingly.
        pub const COMMA_JOINED_QUERY_PARAMS: &[(&str, &str)] = &[#(#entries),*];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_are_constants_in_order_with_method_and_path() {
        let tree = serde_json::json!({"paths": {
            "/b/{id}": {"get": {"operationId": "get_b"}, "delete": {"operationId": "delete_b"}},
            "/a": {"post": {"operationId": "create_a"}, "parameters": [], "x-note": {}},
            "/c": {"get": {}},
        }});
        let text = operation_ids(&tree).to_string();
        let create = text.find("CREATE_A").unwrap();
        let delete = text.find("DELETE_B").unwrap();
        let get = text.find("GET_B").unwrap();
        assert!(create < delete && delete < get, "{text}");
        assert!(
            text.contains(r#"pub const GET_B : & str = "get_b""#),
            "{text}"
        );
        assert!(text.contains("`DELETE /b/{id}`."), "{text}");
        assert_eq!(text.matches("pub const").count(), 3, "{text}");
    }
}
