//! The completeness guarantee, tested from the outside: real documents (the workspace's three
//! specs, Together's published 3.1 document when the checkout has it, and the BASE side of every
//! corpus case), a random contract-changing edit at a random
//! place an operation reaches (type, format, enum values, required, nullable, bounds, pattern,
//! additionalProperties, 2020-12 keywords, properties, status codes, media types, parameters,
//! security), and the diff must report a finding at or under the edited place, in the
//! direction the edited value travels, and breaking (WARN or ERR) when the edit breaks a client
//! there. Seeded and bounded: `FUZZ_SEED` and `FUZZ_EDITS` override the defaults; a failure
//! prints the seed, the document, the target and the edit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "fuzz/edits.rs"]
mod edits;
#[path = "fuzz/rng.rs"]
mod rng;
#[path = "fuzz/targets.rs"]
mod targets;

use std::path::Path;

use openapi_contract_diff::{Level, Options, diff_trees};
use serde_json::{Value, json};

use rng::Rng;

/// YAML as the tool reads it (YAML 1.1 booleans stay strings).
fn parse(text: &str) -> Value {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options(text, options).unwrap()
}

/// The documents edited: the workspace's specs and each corpus case's BASE.
fn documents() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for spec in [
        "specs/together.yaml",
        "specs/runcrate.yaml",
        "specs/e2e.yaml",
    ] {
        let text = std::fs::read_to_string(root.join(spec)).unwrap();
        out.push((spec.to_string(), parse(&text)));
    }
    // Together's published document (OpenAPI 3.1), where the checkout has it beside the repo
    // (the same place `contract-diff --against` reads it from).
    let published = root.join("../shared/reference/together-compute-openapi-3.1.json");
    if let Ok(text) = std::fs::read_to_string(&published) {
        out.push(("together-compute-openapi-3.1.json".into(), parse(&text)));
    }
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cases");
    let mut names: Vec<_> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let case = parse(&std::fs::read_to_string(&path).unwrap());
        let mut doc = case["base"].clone();
        let map = doc.as_object_mut().unwrap();
        map.entry("openapi").or_insert_with(|| "3.0.3".into());
        map.entry("info")
            .or_insert_with(|| json!({"title": "case", "version": "1"}));
        map.entry("paths").or_insert_with(|| json!({}));
        out.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            doc,
        ));
    }
    // A scheme the security edit can require.
    for (_, doc) in &mut out {
        let schemes = doc
            .as_object_mut()
            .unwrap()
            .entry("components")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .unwrap()
            .entry("securitySchemes")
            .or_insert_with(|| json!({}));
        schemes["fuzzAuth"] = json!({"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://fuzz.invalid/token", "scopes": {"fuzz:scope": "x"}}}});
    }
    out
}

fn under(ptr: &str, root: &str) -> bool {
    ptr == root
        || ptr
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[test]
fn every_contract_edit_is_found_at_its_place_in_its_direction() {
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x19_2026);
    let budget: usize = std::env::var("FUZZ_EDITS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut rng = Rng::new(seed);
    let docs = documents();
    let all_targets: Vec<Vec<targets::Target>> =
        docs.iter().map(|(_, d)| targets::collect(d)).collect();
    let (mut tried, mut found, mut attempts) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    while tried < budget && attempts < budget * 20 {
        attempts += 1;
        let d = rng.below(docs.len());
        let (name, base) = &docs[d];
        if all_targets[d].is_empty() {
            continue;
        }
        let target = &all_targets[d][rng.below(all_targets[d].len())];
        let is_31 = base["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1"));
        let mut revision = base.clone();
        let Some(edit) = edits::apply(&mut revision, target, &mut rng, is_31) else {
            continue;
        };
        if &revision == base {
            continue;
        }
        tried += 1;
        let report = diff_trees(base.clone(), revision, &Options::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {name}: {edit:?}: the diff failed: {e}"));
        let matching: Vec<_> = report
            .findings()
            .filter(|f| edit.roots.iter().any(|r| under(&f.location, r)))
            .filter(|f| edit.dir.is_none_or(|d| f.direction.as_str() == d.as_str()))
            .collect();
        let breaking_ok =
            !edit.breaking() || edit.lenient || matching.iter().any(|f| f.level >= Level::Warn);
        if !matching.is_empty() && breaking_ok {
            found += 1;
        } else {
            let all: Vec<String> = report
                .findings()
                .map(|f| {
                    format!(
                        "{} {} {} @ {}",
                        f.level.as_str(),
                        f.direction.as_str(),
                        f.id,
                        f.location
                    )
                })
                .collect();
            failures.push(format!("seed {seed}, edit #{tried}: {name}: {} at {:?} ({:?}, {:?})\n    findings: {all:#?}", edit.what, edit.roots, edit.dir, edit.effect));
        }
    }
    println!("mutation fuzzer (seed {seed}): {tried} edits tried, {found} found");
    assert!(
        tried >= budget / 2,
        "seed {seed}: only {tried} edits could be made"
    );
    assert!(
        failures.is_empty(),
        "{} of {tried} edits not found as expected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
