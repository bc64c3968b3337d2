//! The outline of an OpenAPI document, checked before the diff reads anything else: the walk
//! below looks nodes up by type and would otherwise take a `paths` list for "no paths" and
//! report every operation removed, or none.

use anyhow::{Result, bail};
use serde_json::{Map, Value};

use crate::load::pointer;

/// See [`crate::load::input::check_document`].
pub(crate) fn check(name: &str, tree: &Value) -> Result<()> {
    let Some(root) = tree.as_object() else {
        bail!("{name}: at /: the document is not a mapping");
    };
    let version = version(name, root)?;
    let is_31 = version.starts_with("3.1");
    member(name, root, "info", "/info", true)?;
    let paths = member(name, root, "paths", "/paths", !is_31)?;
    if is_31
        && paths.is_none()
        && !root.contains_key("components")
        && !root.contains_key("webhooks")
    {
        bail!("{name}: at /: an OpenAPI 3.1 document needs paths, components or webhooks");
    }
    let nested = [
        ("/paths", paths),
        (
            "/components",
            member(name, root, "components", "/components", false)?,
        ),
        (
            "/webhooks",
            member(name, root, "webhooks", "/webhooks", false)?,
        ),
    ];
    for (at, map) in nested {
        for (key, child) in map.into_iter().flatten() {
            if !key.starts_with("x-") {
                object(name, &format!("{at}/{}", pointer::escape(key)), child)?;
            }
        }
    }
    if let Some(security) = root.get("security")
        && !security.is_array()
    {
        bail!(
            "{name}: at /security: must be a list, got {}",
            kind(security)
        );
    }
    Ok(())
}

/// The `openapi` version, 3.0.x or 3.1.x.
fn version<'a>(name: &str, root: &'a Map<String, Value>) -> Result<&'a str> {
    match root.get("openapi") {
        Some(Value::String(v)) if v.starts_with("3.0") || v.starts_with("3.1") => Ok(v),
        Some(Value::String(v)) => {
            bail!("{name}: at /openapi: version {v:?} is not OpenAPI 3.0 or 3.1")
        }
        // `openapi: 3.0` unquoted is a YAML number.
        Some(other) => bail!(
            "{name}: at /openapi: must be a string, got {} (quote the version: openapi: \"3.0.3\")",
            kind(other)
        ),
        None => match root.get("swagger") {
            Some(swagger) => {
                let version = swagger
                    .as_str()
                    .map_or_else(|| swagger.to_string(), str::to_string);
                bail!(
                    "{name}: at /swagger: Swagger {version} is not supported: convert it to OpenAPI 3 first"
                )
            }
            None => bail!(
                "{name}: at /openapi: missing, must be the OpenAPI version (\"3.0.3\", \"3.1.0\", …)"
            ),
        },
    }
}

/// The object at `root[key]`: an error if it is of another type, or missing and `required`.
fn member<'a>(
    name: &str,
    root: &'a Map<String, Value>,
    key: &str,
    at: &str,
    required: bool,
) -> Result<Option<&'a Map<String, Value>>> {
    match root.get(key) {
        Some(value) => object(name, at, value).map(Some),
        None if required => bail!("{name}: at {at}: missing, must be an object"),
        None => Ok(None),
    }
}

fn object<'a>(name: &str, at: &str, value: &'a Value) -> Result<&'a Map<String, Value>> {
    match value.as_object() {
        Some(map) => Ok(map),
        None => bail!("{name}: at {at}: must be an object, got {}", kind(value)),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(yaml: &str) -> String {
        let tree = crate::load::yaml::tree("s.yaml", yaml).unwrap();
        check("s.yaml", &tree).unwrap_err().to_string()
    }

    const INFO: &str = "info: {title: t, version: '1'}\n";

    #[test]
    fn each_broken_outline_is_named_with_its_pointer() {
        let cases = [
            (
                format!("openapi: 3.0.3\n{INFO}paths: []\n"),
                "s.yaml: at /paths: must be an object, got an array",
            ),
            (
                format!("openapi: 3.0\n{INFO}paths: {{}}\n"),
                "s.yaml: at /openapi: must be a string, got a number (quote the version: openapi: \"3.0.3\")",
            ),
            (
                format!("{INFO}paths: {{}}\n"),
                "s.yaml: at /openapi: missing, must be the OpenAPI version (\"3.0.3\", \"3.1.0\", …)",
            ),
            (
                "openapi: 3.0.3\npaths: {}\n".to_string(),
                "s.yaml: at /info: missing, must be an object",
            ),
            (
                "openapi: 3.0.3\ninfo: t\npaths: {}\n".to_string(),
                "s.yaml: at /info: must be an object, got a string",
            ),
            (
                format!("openapi: 3.0.3\n{INFO}"),
                "s.yaml: at /paths: missing, must be an object",
            ),
            (
                format!("openapi: 3.0.3\n{INFO}paths: {{/a: [get]}}\n"),
                "s.yaml: at /paths/~1a: must be an object, got an array",
            ),
            (
                format!("openapi: 3.0.3\n{INFO}paths: {{}}\ncomponents: {{schemas: 1}}\n"),
                "s.yaml: at /components/schemas: must be an object, got a number",
            ),
            (
                format!("openapi: 3.0.3\n{INFO}paths: {{}}\nsecurity: {{a: []}}\n"),
                "s.yaml: at /security: must be a list, got an object",
            ),
            (
                format!("swagger: '2.0'\n{INFO}paths: {{}}\n"),
                "s.yaml: at /swagger: Swagger 2.0 is not supported: convert it to OpenAPI 3 first",
            ),
            (
                format!("openapi: '2.0'\n{INFO}paths: {{}}\n"),
                "s.yaml: at /openapi: version \"2.0\" is not OpenAPI 3.0 or 3.1",
            ),
            (
                format!("openapi: 3.1.0\n{INFO}"),
                "s.yaml: at /: an OpenAPI 3.1 document needs paths, components or webhooks",
            ),
        ];
        for (yaml, want) in cases {
            assert_eq!(error(&yaml), want, "{yaml}");
        }
    }

    #[test]
    fn good_outlines_pass() {
        for yaml in [
            format!("openapi: 3.0.3\n{INFO}paths: {{x-note: 1}}\n"),
            format!("openapi: 3.1.0\n{INFO}components: {{schemas: {{}}}}\n"),
            format!("openapi: 3.1.0\n{INFO}webhooks: {{w: {{}}}}\n"),
        ] {
            let tree = crate::load::yaml::tree("s.yaml", &yaml).unwrap();
            assert!(check("s.yaml", &tree).is_ok(), "{yaml}");
        }
    }
}
