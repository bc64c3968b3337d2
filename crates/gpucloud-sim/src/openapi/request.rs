//! Checking a request against its operation: every documented parameter (required, type, enum,
//! pattern, bounds) and the JSON body, each against the spec's own schema. Query, path and
//! header values arrive as text; they are read as the schema's type first (`"7"` → 7) so the
//! validator judges the value, not its spelling.

use bytes::Bytes;
use serde_json::{Map, Value};

use super::ApiSpec;
use super::operations::{Operation, Param, ParamIn};

/// Which part of the request a problem is in; providers answer body and parameter problems
/// differently (Runcrate: 422 vs 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Path,
    Query,
    Header,
    /// The body is not JSON at all.
    BodySyntax,
    Body,
}

/// One problem with a request, naming the field as the provider names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub(crate) part: Part,
    /// `num_gpus`, `shared_volume.size_tib`, `Idempotency-Key`; `body` for the body as a whole.
    pub(crate) field: String,
    pub(crate) message: String,
}

/// A request that passed: its parameters by name (typed) and its body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Checked {
    pub(crate) params: Map<String, Value>,
    pub(crate) body: Option<Value>,
}

/// The raw request, as far as validation needs it.
#[derive(Debug)]
pub(crate) struct RawRequest<'a> {
    pub(crate) path_params: &'a [(String, String)],
    pub(crate) query: &'a [(String, String)],
    pub(crate) headers: &'a http::HeaderMap,
    pub(crate) body: &'a Bytes,
}

/// Checks `raw` against `op`; every problem found is reported, not just the first.
pub(crate) fn check(
    spec: &ApiSpec,
    op: &Operation,
    raw: &RawRequest<'_>,
) -> Result<Checked, Vec<FieldError>> {
    let mut checked = Checked::default();
    let mut errors = Vec::new();
    for param in &op.params {
        let (part, values) = raw_values(param, raw);
        if values.is_empty() {
            if param.required {
                errors.push(FieldError {
                    part,
                    field: param.name.clone(),
                    message: "is required".into(),
                });
            }
            continue;
        }
        let value = typed(spec, param, &values);
        match spec.schemas.check(&param.schema, &value) {
            Ok(()) => {
                checked.params.insert(param.name.clone(), value);
            }
            Err(violations) => errors.extend(violations.into_iter().map(|v| FieldError {
                part,
                field: param.name.clone(),
                message: v.message,
            })),
        }
    }
    if let Some((schema, required)) = &op.body {
        match body_of(raw.body) {
            Err(message) => errors.push(FieldError {
                part: Part::BodySyntax,
                field: "body".into(),
                message,
            }),
            Ok(None) if *required => errors.push(FieldError {
                part: Part::BodySyntax,
                field: "body".into(),
                message: "a JSON body is required".into(),
            }),
            Ok(None) => {}
            Ok(Some(body)) => {
                if let Err(violations) = spec.schemas.check(schema, &body) {
                    errors.extend(violations.into_iter().map(|v| FieldError {
                        part: Part::Body,
                        field: if v.path.is_empty() {
                            "body".into()
                        } else {
                            v.path
                        },
                        message: v.message,
                    }));
                }
                checked.body = Some(body);
            }
        }
    }
    if errors.is_empty() {
        Ok(checked)
    } else {
        Err(errors)
    }
}

fn raw_values(param: &Param, raw: &RawRequest<'_>) -> (Part, Vec<String>) {
    match param.location {
        ParamIn::Path => (
            Part::Path,
            raw.path_params
                .iter()
                .filter(|(name, _)| *name == param.name)
                .map(|(_, v)| v.clone())
                .collect(),
        ),
        ParamIn::Query => (
            Part::Query,
            raw.query
                .iter()
                .filter(|(name, _)| *name == param.name)
                .map(|(_, v)| v.clone())
                .collect(),
        ),
        ParamIn::Header => (
            Part::Header,
            raw.headers
                .get_all(param.name.as_str())
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect(),
        ),
    }
}

/// The parameter's text as the schema's type; text that does not parse stays text, so the
/// validator reports the type mismatch.
fn typed(spec: &ApiSpec, param: &Param, values: &[String]) -> Value {
    let schema = spec.schemas.resolve(&param.schema);
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        let items = schema.get("items").unwrap_or(&Value::Null);
        let items = spec.schemas.resolve(items);
        let texts: Vec<&str> = if param.comma_joined {
            values
                .iter()
                .flat_map(|v| v.split(','))
                .filter(|v| !v.is_empty())
                .collect()
        } else {
            values.iter().map(String::as_str).collect()
        };
        return Value::Array(texts.into_iter().map(|t| scalar(items, t)).collect());
    }
    scalar(
        schema,
        values.last().map(String::as_str).unwrap_or_default(),
    )
}

fn scalar(schema: &Value, text: &str) -> Value {
    let parsed = match schema.get("type").and_then(Value::as_str) {
        Some("integer") => text.parse::<i64>().ok().map(Value::from),
        Some("number") => text.parse::<f64>().ok().map(Value::from),
        Some("boolean") => text.parse::<bool>().ok().map(Value::from),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(text.to_string()))
}

fn body_of(bytes: &Bytes) -> Result<Option<Value>, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(bytes)
        .map(Some)
        .map_err(|e| format!("is not valid JSON: {e}"))
}
