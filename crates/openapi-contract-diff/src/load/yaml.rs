//! Reading a document: YAML (a superset of JSON) into a JSON tree.

use anyhow::{Result, anyhow};
use serde_json::Value;

/// Parses `text`, named `name` in messages, into a JSON tree whose root is a mapping.
///
/// YAML 1.1 booleans (`yes`, `on`, `n`, …) stay strings: otherwise `enum: [y, n]` would silently
/// become booleans. Integer keys (`200:` under `responses`) become strings.
pub fn tree(name: &str, text: &str) -> Result<Value> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let tree: Value = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| anyhow!("{name}: invalid YAML/JSON: {e}"))?;
    if !tree.is_object() {
        return Err(anyhow!("{name}: at /: the document is not a mapping"));
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_one_one_booleans_stay_strings() {
        let tree = tree("t.yaml", "openapi: 3.0.3\nx: {enum: [y, n, yes, off]}\n").unwrap();
        assert_eq!(
            tree["x"]["enum"],
            serde_json::json!(["y", "n", "yes", "off"])
        );
    }

    #[test]
    fn integer_status_keys_become_strings() {
        let tree = tree("t.yaml", "openapi: 3.0.3\nr: {200: {a: 1}}\n").unwrap();
        assert_eq!(tree["r"]["200"]["a"], 1);
    }

    #[test]
    fn bad_yaml_and_non_mappings_name_the_file() {
        let err = tree("specs/x.yaml", "a: [1, 2\n").unwrap_err().to_string();
        assert!(err.starts_with("specs/x.yaml: invalid YAML"), "{err}");
        let err = tree("specs/x.yaml", "[1]\n").unwrap_err().to_string();
        assert_eq!(err, "specs/x.yaml: at /: the document is not a mapping");
    }
}
