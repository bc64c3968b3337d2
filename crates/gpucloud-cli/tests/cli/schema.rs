//! `gpucloud schema request` against the parser.
//!
//! Every request file in the repository (the fixtures, `requests/`, and the request examples in
//! the README) is checked twice: by an independent JSON Schema validator (the `jsonschema`
//! crate, formats on) against the schema the binary prints, and by the binary's own parser
//! (`gpucloud plan -f`). Both must agree on every file, and on every file with an unknown field
//! added to any of its objects, which both must refuse.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::support::{fake_credentials, gpucloud};

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

fn printed_schema() -> Value {
    let run = gpucloud(&["schema", "request"], &[]);
    run.expect_code(0);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", run.stdout))
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("the printed schema is not a valid JSON Schema: {e}"))
}

/// A request file in the repository: where it is shown from and its text.
struct RequestFile {
    origin: String,
    extension: String,
    text: String,
}

/// The fixtures, `requests/`, and the `toml`/`yaml`/`json` blocks of the crate's README (all of
/// which are request files).
fn request_files() -> Vec<RequestFile> {
    let mut files = Vec::new();
    for dir in ["tests/fixtures", "requests"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(Path::new(CRATE).join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| {
                entry
                    .map(|e| e.path())
                    .unwrap_or_else(|e| panic!("{dir}: {e}"))
            })
            .filter(|p| matches!(extension(p).as_str(), "toml" | "yaml" | "yml" | "json"))
            .collect();
        paths.sort();
        for path in paths {
            files.push(RequestFile {
                origin: format!("{dir}/{}", path.file_name().unwrap_or_default().display()),
                extension: extension(&path),
                text: std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")),
            });
        }
    }
    let readme = std::fs::read_to_string(Path::new(CRATE).join("README.md")).unwrap_or_default();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(language) = line
            .strip_prefix("```")
            .filter(|l| matches!(*l, "toml" | "yaml" | "json"))
        else {
            continue;
        };
        let block: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        files.push(RequestFile {
            origin: format!("README.md ({language} block {})", files.len()),
            extension: language.to_string(),
            text: block.join("\n") + "\n",
        });
    }
    files
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The file as a JSON instance, read with the same format crates as the binary.
fn instance(file: &RequestFile) -> Value {
    match file.extension.as_str() {
        "toml" => toml_to_json(
            toml::from_str(&file.text).unwrap_or_else(|e| panic!("{}: {e}", file.origin)),
        ),
        "yaml" | "yml" => {
            serde_saphyr::from_str(&file.text).unwrap_or_else(|e| panic!("{}: {e}", file.origin))
        }
        _ => serde_json::from_str(&file.text).unwrap_or_else(|e| panic!("{}: {e}", file.origin)),
    }
}

/// TOML's dates become RFC 3339 strings, as JSON and YAML files write them.
fn toml_to_json(value: toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => Value::from(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(table) => Value::Object(
            table
                .into_iter()
                .map(|(k, v)| (k, toml_to_json(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}

/// The provider a request is for: the key of its `options`, Together without one.
fn provider(instance: &Value) -> &'static str {
    match instance.get("options").and_then(Value::as_object) {
        Some(options) if options.contains_key("runcrate") => "runcrate",
        Some(options) if options.contains_key("e2e") => "e2e",
        _ => "together",
    }
}

/// Whether the binary's parser accepts the JSON text `text` as a request file (`plan`
/// sends nothing; a provider rule it breaks is fine here, only the parse counts).
fn parser_accepts(name: &str, text: &str, provider: &str) -> (bool, String) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schema-{name}.json"));
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let path = path.display().to_string();
    let run = gpucloud(&["plan", "-p", provider, "-f", &path], &fake_credentials());
    let refused = run.stderr.contains("error: request file");
    (!refused, run.stderr.clone())
}

/// Every path to an object inside `value` (the root included), as JSON pointers.
fn object_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            out.push(at.clone());
            for (key, child) in map {
                object_pointers(child, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                object_pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_request_file_agrees_with_the_schema_and_unknown_fields_are_refused_by_both() {
    let schema = printed_schema();
    let validator = validator(&schema);
    let files = request_files();
    assert!(files.len() >= 8, "found only {} request files", files.len());
    let mut checked = 0;
    for (n, file) in files.iter().enumerate() {
        let instance = instance(file);
        let provider = provider(&instance);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        let text = instance.to_string();
        let (accepted, stderr) = parser_accepts(&format!("{n}"), &text, provider);
        assert_eq!(
            errors.is_empty(),
            accepted,
            "{}: the schema says {errors:?}, the parser says {stderr:?}",
            file.origin
        );
        if !accepted {
            continue; // (`unknown-field.toml`: refused by both, as it should be)
        }
        let mut pointers = Vec::new();
        object_pointers(&instance, String::new(), &mut pointers);
        for pointer in pointers {
            let mut mutated = instance.clone();
            if let Some(Value::Object(map)) = mutated.pointer_mut(&pointer) {
                map.insert("not_a_field".into(), Value::Bool(true));
            }
            assert!(
                !validator.is_valid(&mutated),
                "{}: the schema allows an unknown field at {pointer:?}",
                file.origin
            );
            let (accepted, _) =
                parser_accepts(&format!("{n}-mutated"), &mutated.to_string(), provider);
            assert!(
                !accepted,
                "{}: the parser allows an unknown field at {pointer:?}",
                file.origin
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} unknown-field cases");
}

#[test]
fn the_schema_carries_the_doc_comments_and_matches_the_committed_copy() {
    let schema = printed_schema();
    let name = &schema["properties"]["name"]["description"];
    assert!(
        name.as_str().is_some_and(|d| d.contains("unique")),
        "no description from the doc comment: {name}"
    );
    let printed = serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n";
    let committed_path = Path::new(CRATE).join("request.schema.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&committed_path, &printed).unwrap_or_else(|e| panic!("{e}"));
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == printed,
        "request.schema.json differs from `gpucloud schema request` \
         (UPDATE_GOLDEN=1 cargo test -p gpucloud-cli rewrites it)"
    );
}
