//! The operations a spec documents, read from its `paths`, and routing a request to one of
//! them. Only what the spec lists is served: an undocumented path is a 404 and an undocumented
//! method a 405, as on the real API.

use serde_json::Value;

/// Where a parameter travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamIn {
    Path,
    Query,
    Header,
}

/// One documented parameter.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) location: ParamIn,
    pub(crate) required: bool,
    /// The OpenAPI schema, unconverted.
    pub(crate) schema: Value,
    /// `style: form, explode: false`: an array sent comma-joined.
    pub(crate) comma_joined: bool,
}

/// One documented operation.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub(crate) id: String,
    pub(crate) method: http::Method,
    pub(crate) path: String,
    pub(crate) params: Vec<Param>,
    /// The JSON request body's schema and whether the body is required.
    pub(crate) body: Option<(Value, bool)>,
    /// Status key (`200`, `4XX`, `default`) → JSON schema of the body, if any.
    pub(crate) responses: Vec<(String, Option<Value>)>,
}

/// Path parameters' names and raw values, in template order.
pub(crate) type PathParams = Vec<(String, String)>;

/// The result of routing a request.
#[derive(Debug)]
pub(crate) enum Route<'a> {
    /// The operation, with the path parameters' raw values.
    Found(&'a Operation, PathParams),
    /// The path exists, the method does not: the `Allow` header's value (RFC 9110 §15.5.6
    /// requires it on a 405), the path's methods in spec order, comma-separated.
    MethodNotAllowed(String),
    /// No such path.
    NotFound,
}

/// Reads every operation of a spec document.
pub(crate) fn operations(doc: &Value) -> Result<Vec<Operation>, String> {
    let paths = doc
        .get("paths")
        .and_then(Value::as_object)
        .ok_or("the spec has no paths")?;
    let mut operations = Vec::new();
    for (path, item) in paths {
        let shared = params_of(doc, item.get("parameters"))?;
        for (method, op) in item.as_object().into_iter().flatten() {
            let Ok(method) = method.to_uppercase().parse::<http::Method>() else {
                continue;
            };
            if !matches!(method.as_str(), "GET" | "POST" | "PUT" | "DELETE" | "PATCH") {
                continue;
            }
            let id = op
                .get("operationId")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{method} {path} has no operationId"))?;
            let mut params = shared.clone();
            for param in params_of(doc, op.get("parameters"))? {
                params.retain(|p| !(p.name == param.name && p.location == param.location));
                params.push(param);
            }
            let body = op.get("requestBody").map(|body| {
                let body = resolve(doc, body);
                (
                    json_schema(body).cloned().unwrap_or(Value::Bool(true)),
                    body.get("required").and_then(Value::as_bool) == Some(true),
                )
            });
            let responses = op
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(status, response)| {
                    (status.clone(), json_schema(resolve(doc, response)).cloned())
                })
                .collect();
            operations.push(Operation {
                id: id.to_string(),
                method,
                path: path.clone(),
                params,
                body,
                responses,
            });
        }
    }
    Ok(operations)
}

fn params_of(doc: &Value, list: Option<&Value>) -> Result<Vec<Param>, String> {
    let mut params = Vec::new();
    for param in list.and_then(Value::as_array).into_iter().flatten() {
        let param = resolve(doc, param);
        let name = param
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a parameter has no name")?;
        let location = match param.get("in").and_then(Value::as_str) {
            Some("path") => ParamIn::Path,
            Some("query") => ParamIn::Query,
            Some("header") => ParamIn::Header,
            other => return Err(format!("parameter {name} is in {other:?}")),
        };
        params.push(Param {
            name: name.to_string(),
            location,
            required: param.get("required").and_then(Value::as_bool) == Some(true),
            schema: param.get("schema").cloned().unwrap_or(Value::Bool(true)),
            comma_joined: param.get("explode").and_then(Value::as_bool) == Some(false),
        });
    }
    Ok(params)
}

/// Follows a local `$ref` (parameters, responses, request bodies).
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| doc.pointer(pointer))
        .unwrap_or(value)
}

fn json_schema(holder: &Value) -> Option<&Value> {
    holder.pointer("/content/application~1json/schema")
}

/// Routes `method path` (the part after the provider's prefix) to an operation. Literal
/// segments beat parameters, so `/clusters/offers` is not read as `/clusters/{id}`: the most
/// specific path template that matches decides, and a method it does not document is a 405
/// listing the methods it does (a `PUT /clusters/offers` is not a `PUT /clusters/{id}`).
pub(crate) fn route<'a>(
    operations: &'a [Operation],
    method: &http::Method,
    path: &str,
) -> Route<'a> {
    let segments: Vec<&str> = path.split('/').collect();
    let mut best: Option<(usize, &str)> = None;
    for op in operations {
        if let Some((literals, _)) = matches(&op.path, &segments)
            && best.is_none_or(|(most, _)| literals > most)
        {
            best = Some((literals, op.path.as_str()));
        }
    }
    let Some((_, template)) = best else {
        return Route::NotFound;
    };
    let mut allowed: Vec<&str> = Vec::new();
    for op in operations.iter().filter(|op| op.path == template) {
        if op.method == *method {
            let params = matches(&op.path, &segments)
                .map(|(_, p)| p)
                .unwrap_or_default();
            return Route::Found(op, params);
        }
        if !allowed.contains(&op.method.as_str()) {
            allowed.push(op.method.as_str());
        }
    }
    Route::MethodNotAllowed(allowed.join(", "))
}

/// Whether `template` matches the request's segments: the number of literal segments and the
/// path parameters.
fn matches(template: &str, segments: &[&str]) -> Option<(usize, PathParams)> {
    let parts: Vec<&str> = template.split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut literals = 0;
    let mut params = Vec::new();
    for (part, segment) in parts.iter().zip(segments) {
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) if !segment.is_empty() => {
                params.push((name.to_string(), segment.to_string()))
            }
            Some(_) => return None,
            None if part == segment => literals += 1,
            None => return None,
        }
    }
    Some((literals, params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "components": {"parameters": {"Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}}},
            "paths": {
                "/clusters/{id}": {"get": {"operationId": "get_cluster", "parameters": [{"$ref": "#/components/parameters/Id"}]}},
                "/clusters/offers": {"get": {"operationId": "list_offers"}},
                "/clusters": {"post": {"operationId": "create_cluster",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}},
                    "responses": {"201": {"content": {"application/json": {"schema": {"type": "object"}}}}}}}
            }
        })
    }

    #[test]
    fn literal_segments_win_and_methods_are_checked() {
        let ops = operations(&doc()).unwrap();
        let get = http::Method::GET;
        let Route::Found(op, params) = route(&ops, &get, "/clusters/offers") else {
            panic!()
        };
        assert_eq!((op.id.as_str(), params.len()), ("list_offers", 0));
        let Route::Found(op, params) = route(&ops, &get, "/clusters/abc") else {
            panic!()
        };
        assert_eq!(op.id, "get_cluster");
        assert_eq!(params, [("id".to_string(), "abc".to_string())]);
        assert!(op.params[0].required);
        let Route::MethodNotAllowed(allow) = route(&ops, &http::Method::DELETE, "/clusters/abc")
        else {
            panic!()
        };
        assert_eq!(allow, "GET");
        // The literal path decides: `offers` is not a cluster id, whatever the method.
        let Route::MethodNotAllowed(allow) = route(&ops, &http::Method::PUT, "/clusters/offers")
        else {
            panic!()
        };
        assert_eq!(allow, "GET");
        assert!(matches!(
            route(&ops, &get, "/clusters/abc/"),
            Route::NotFound
        ));
        let Route::Found(op, _) = route(&ops, &http::Method::POST, "/clusters") else {
            panic!()
        };
        assert_eq!(op.body.as_ref().map(|b| b.1), Some(true));
        assert_eq!(op.responses[0].0, "201");
    }
}
