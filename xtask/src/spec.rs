//! Loading an OpenAPI document from disk: YAML or JSON, as a JSON tree (for lints that report JSON
//! pointers) and as the typed `openapiv3` model (for progenitor).
//!
//! Every error names the file and the location that broke, because a spec author has to find it.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use sha2::{Digest, Sha256};

/// One spec file, parsed.
#[derive(Debug, Clone)]
pub struct SpecFile {
    /// The path as given (used in messages; relative to the workspace root where possible).
    pub path: PathBuf,
    /// The document as a JSON tree.
    pub tree: serde_json::Value,
    /// Hex SHA-256 of the file's bytes, recorded in generated headers.
    pub sha256: String,
}

impl SpecFile {
    /// Reads and parses `path`: only a regular file, at most
    /// [`SPEC_LIMIT`](openapi_contract_diff::input::SPEC_LIMIT) bytes (32 MiB), as
    /// `contract-diff` reads specs.
    pub fn load(path: &Path) -> Result<Self> {
        use openapi_contract_diff::input;
        let text = input::read_file(path, input::SPEC_LIMIT, "a spec")?;
        Self::parse(path, &text)
    }

    /// Parses `text` as the content of `path` (which only names it in messages), and checks
    /// its outline as `contract-diff` does: `openapi` a 3.0/3.1 version string (Swagger 2.0
    /// named as such), `info` and `paths` objects. The error names the file and the pointer.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let tree = parse_tree(path, text)?;
        openapi_contract_diff::input::check_document(&path.display().to_string(), &tree)?;
        Ok(Self {
            path: path.to_path_buf(),
            tree,
            sha256: sha256_hex(text.as_bytes()),
        })
    }

    /// The typed model progenitor consumes. Fails with the JSON path of the first value that
    /// does not fit the OpenAPI 3.0 model.
    pub fn openapi(&self) -> Result<openapiv3::OpenAPI> {
        let version = self
            .tree
            .get("openapi")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        if !version.starts_with("3.0.") {
            return Err(anyhow!(
                "{}: at /openapi: version {version:?} is not OpenAPI 3.0.x (progenitor reads only 3.0)",
                self.path.display()
            ));
        }
        serde_path_to_error::deserialize(&self.tree).map_err(|e| {
            let mut pointer = json_pointer_from_serde_path(e.path());
            let mut message = e.inner().to_string();
            // openapiv3 flattens path items and operations, where serde loses the path; find
            // the exact path item or schema by decoding each one on its own.
            if let Some((deeper, inner)) = self.locate_in_children(&pointer) {
                pointer = deeper;
                message = inner;
            }
            anyhow!("{}: at {pointer}: {message}", self.path.display())
        })
    }
}

impl SpecFile {
    /// Decodes each child of the map at `pointer` as the OpenAPI type it holds, returning the
    /// first failure with its full pointer.
    fn locate_in_children(&self, pointer: &str) -> Option<(String, String)> {
        let children = self.tree.pointer(pointer)?.as_object()?;
        for (key, child) in children {
            let result = match pointer {
                "/paths" => check::<openapiv3::ReferenceOr<openapiv3::PathItem>>(child),
                "/components/schemas" => check::<openapiv3::ReferenceOr<openapiv3::Schema>>(child),
                "/components/parameters" => {
                    check::<openapiv3::ReferenceOr<openapiv3::Parameter>>(child)
                }
                "/components/responses" => {
                    check::<openapiv3::ReferenceOr<openapiv3::Response>>(child)
                }
                _ => return None,
            };
            if let Err((path, message)) = result {
                let inner = if path == "/" { String::new() } else { path };
                let found = format!("{pointer}/{}{inner}", escape_pointer_token(key));
                if pointer == "/paths"
                    && inner.is_empty()
                    && let Some(deeper) = self.locate_operation(&found)
                {
                    return Some(deeper);
                }
                return Some((found, message));
            }
        }
        None
    }
}

impl SpecFile {
    /// The first operation of the path item at `pointer` that does not decode.
    fn locate_operation(&self, pointer: &str) -> Option<(String, String)> {
        let item = self.tree.pointer(pointer)?.as_object()?;
        const METHODS: [&str; 8] = [
            "get", "put", "post", "delete", "options", "head", "patch", "trace",
        ];
        METHODS.iter().find_map(|method| {
            let (path, message) = check::<openapiv3::Operation>(item.get(*method)?).err()?;
            let inner = if path == "/" { String::new() } else { path };
            Some((format!("{pointer}/{method}{inner}"), message))
        })
    }
}

/// Decodes `value` as `T`, reporting the JSON pointer (relative to `value`) of a failure.
fn check<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<(), (String, String)> {
    serde_path_to_error::deserialize::<_, T>(value)
        .map(|_| ())
        .map_err(|e| {
            (
                json_pointer_from_serde_path(e.path()),
                e.inner().to_string(),
            )
        })
}

/// YAML (a superset of JSON) to a JSON tree. YAML 1.1 booleans (`yes`, `on`, `n`, …) stay strings:
/// otherwise `enum: [y, n]` would silently become booleans.
fn parse_tree(path: &Path, text: &str) -> Result<serde_json::Value> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let tree: serde_json::Value = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| anyhow!("{}: invalid YAML/JSON: {e}", path.display()))?;
    if !tree.is_object() {
        return Err(anyhow!(
            "{}: at /: the document is not a mapping",
            path.display()
        ));
    }
    Ok(tree)
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Converts serde_path_to_error's `a.b[3].c` path into an RFC 6901 JSON pointer.
fn json_pointer_from_serde_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push_str(&escape_pointer_token(key))
            }
            Segment::Unknown => out.push('?'),
        }
    }
    if out.is_empty() { "/".to_string() } else { out }
}

/// Escapes one JSON-pointer reference token (`~` → `~0`, `/` → `~1`).
pub fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTLINE: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";

    #[test]
    fn yaml_one_one_booleans_stay_strings() {
        let spec = SpecFile::parse(
            Path::new("t.yaml"),
            &format!("{OUTLINE}x: {{enum: [y, n, yes, off]}}\n"),
        )
        .unwrap();
        assert_eq!(
            spec.tree["x"]["enum"],
            serde_json::json!(["y", "n", "yes", "off"])
        );
    }

    #[test]
    fn integer_status_keys_become_strings() {
        let spec = SpecFile::parse(
            Path::new("t.yaml"),
            &format!("{OUTLINE}r: {{200: {{a: 1}}}}\n"),
        )
        .unwrap();
        assert_eq!(spec.tree["r"]["200"]["a"], 1);
    }

    #[test]
    fn bad_yaml_names_file() {
        let err = SpecFile::parse(Path::new("specs/x.yaml"), "a: [1, 2\n").unwrap_err();
        assert!(
            err.to_string().starts_with("specs/x.yaml: invalid YAML"),
            "{err}"
        );
    }

    #[test]
    fn broken_outlines_and_swagger_name_file_and_pointer() {
        let err = |text: &str| {
            SpecFile::parse(Path::new("specs/x.yaml"), text)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: [/a]\n"),
            "specs/x.yaml: at /paths: must be an object, got an array"
        );
        assert_eq!(
            err("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n"),
            "specs/x.yaml: at /swagger: Swagger 2.0 is not supported: convert it to OpenAPI 3 first"
        );
    }

    #[test]
    fn model_mismatch_names_json_pointer() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: 5\n";
        let err = SpecFile::parse(Path::new("s.yaml"), text)
            .unwrap()
            .openapi()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("s.yaml: at /paths/~1a/get/responses"),
            "{err}"
        );
    }

    #[test]
    fn rejects_openapi_3_1() {
        let spec = SpecFile::parse(
            Path::new("s.yaml"),
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
        )
        .unwrap();
        assert!(
            spec.openapi()
                .unwrap_err()
                .to_string()
                .contains("not OpenAPI 3.0.x")
        );
    }
}
