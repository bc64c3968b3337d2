//! `cargo bench -p openapi-contract-diff --bench contract_diff`: the whole command (read, parse,
//! diff, render) on a generated pair of ~1 MB YAML specs with thousands of operations. The goal is
//! well under a second per pair.
//!
//! The revision edits a tenth of the components (enum growth, new required fields, tighter
//! bounds), renames components and moves operations, so the walk cannot skip everything; the
//! no-op pair measures the floor (parse + hash).
//!
//! The corpus group runs the command once per pair of `tests/corpus/cases` (round robin) and,
//! as the baseline of the same run, once per identical pair (BASE against itself): the
//! difference is what diffing costs over starting the process and reading the files. Before
//! criterion's own figures it prints the medians: `corpus: N pairs, median X ms/pair …`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

/// 400 resources × 5 operations ≈ 1 MB of YAML per side.
const RESOURCES: usize = 400;

/// A spec with `RESOURCES` resources, each with list/create/get/update/delete operations.
fn spec(revision: bool) -> Value {
    let mut paths = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    for i in 0..RESOURCES {
        let edited = revision && i % 10 == 0;
        let name = if revision && i % 25 == 0 {
            format!("Renamed{i}")
        } else {
            format!("Resource{i}")
        };
        let status = format!("Status{i}");
        let mut values = vec![json!("active"), json!("deleted")];
        if edited {
            values.push(json!("paused"));
        }
        schemas.insert(status.clone(), json!({"type": "string", "enum": values}));
        let mut required = vec![json!("id")];
        if edited {
            required.push(json!("name"));
        }
        schemas.insert(
            name.clone(),
            json!({
                "type": "object",
                "description": format!("Resource number {i}, with enough prose to look like a real schema description."),
                "required": required,
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "name": {"type": "string", "maxLength": if edited { 32 } else { 64 }},
                    "status": {"$ref": format!("#/components/schemas/{status}")},
                    "size": {"type": "integer", "format": "int32", "minimum": 1},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "created_at": {"type": "string", "format": "date-time", "nullable": true}
                }
            }),
        );
        let one = json!({"$ref": format!("#/components/schemas/{name}")});
        let ok = |schema: Value| json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}, "4XX": {"description": "error"}});
        let id = if revision { "resource_id" } else { "id" };
        let param =
            json!([{"name": id, "in": "path", "required": true, "schema": {"type": "string"}}]);
        paths.insert(
            format!("/v1/resources{i}"),
            json!({
                "get": {"operationId": format!("list_{i}"), "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}],
                        "responses": ok(json!({"type": "array", "items": one}))},
                "post": {"operationId": format!("create_{i}"), "requestBody": {"required": true, "content": {"application/json": {"schema": one}}},
                         "responses": ok(one.clone())}
            }),
        );
        let mut item = json!({
            "parameters": param,
            "get": {"operationId": format!("get_{i}"), "responses": ok(one.clone())},
            "put": {"operationId": format!("update_{i}"), "requestBody": {"content": {"application/json": {"schema": one}}}, "responses": ok(one.clone())}
        });
        if !(revision && i % 50 == 0) {
            item["delete"] = json!({"operationId": format!("delete_{i}"), "responses": {"204": {"description": "gone"}}});
        }
        paths.insert(format!("/v1/resources{i}/{{{id}}}"), item);
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": "bench", "version": "1"},
        "security": [{"bearerAuth": []}],
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}}
    })
}

fn run(root: &Path, base: &Path, revision: &Path) {
    run_with(root, base, revision, &[]);
}

fn run_with(root: &Path, base: &Path, revision: &Path, extra: &[String]) {
    let out = Command::new(env!("CARGO_BIN_EXE_openapi-contract-diff"))
        .current_dir(root)
        .args(["--format", "json"])
        .args(extra)
        .arg(base)
        .arg(revision)
        .output()
        .unwrap_or_else(|e| panic!("cannot run openapi-contract-diff: {e}"));
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("contract-diff-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (base, revision) = (dir.join("base.yaml"), dir.join("revision.yaml"));
    for (path, is_revision) in [(&base, false), (&revision, true)] {
        let text = serde_saphyr::to_string(&spec(is_revision)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, &text).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{}: {} bytes, {} operations",
            path.display(),
            text.len(),
            RESOURCES * 5
        );
    }
    let mut group = c.benchmark_group("contract-diff 1 MB specs");
    group.sample_size(10);
    group.bench_function("edited pair", |b| b.iter(|| run(&dir, &base, &revision)));
    group.bench_function("no-op pair", |b| b.iter(|| run(&dir, &base, &base)));
    group.finish();
    if std::env::var_os("CONTRACT_DIFF_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// One corpus case written out: BASE, REVISION and the case's extra arguments.
struct Pair {
    base: PathBuf,
    revision: PathBuf,
    args: Vec<String>,
}

/// Every case of the corpus as two JSON files in `dir` (the documents completed as the corpus
/// test completes them).
fn corpus_pairs(dir: &Path) -> Vec<Pair> {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cases");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap_or_else(|e| panic!("{}: {e}", cases.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for (i, path) in names.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
        let mut options = serde_saphyr::Options::default();
        options.strict_booleans = true;
        let case: Value =
            serde_saphyr::from_str_with_options(&text, options).unwrap_or_else(|e| panic!("{e}"));
        let mut files = Vec::new();
        for side in ["base", "revision"] {
            let mut doc = case[side].clone();
            if let Some(map) = doc.as_object_mut() {
                map.entry("openapi").or_insert_with(|| "3.0.3".into());
                map.entry("info")
                    .or_insert_with(|| json!({"title": "case", "version": "1"}));
            }
            let file = dir.join(format!("case{i}-{side}.json"));
            std::fs::write(&file, doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
            files.push(file);
        }
        let args = case["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        let revision = files.pop().unwrap_or_default();
        let base = files.pop().unwrap_or_default();
        out.push(Pair {
            base,
            revision,
            args,
        });
    }
    out
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times
        .get(times.len() / 2)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn corpus(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("contract-diff-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pairs = corpus_pairs(&dir);
    // Medians over three rounds of every pair, each pair and its baseline run back to back.
    let (mut edited, mut identical) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        for p in &pairs {
            let t = Instant::now();
            run_with(&dir, &p.base, &p.revision, &p.args);
            edited.push(t.elapsed());
            let t = Instant::now();
            run_with(&dir, &p.base, &p.base, &p.args);
            identical.push(t.elapsed());
        }
    }
    let (e, i) = (median(edited), median(identical));
    eprintln!(
        "corpus: {} pairs, whole process: median {e:.2} ms/pair; identical pair (baseline, same run): median {i:.2} ms; diffing adds {:.2} ms",
        pairs.len(),
        e - i
    );
    let mut group = c.benchmark_group("contract-diff corpus, whole process");
    let mut next = 0;
    group.bench_function("corpus pair", |b| {
        b.iter(|| {
            let p = &pairs[next % pairs.len()];
            next += 1;
            run_with(&dir, &p.base, &p.revision, &p.args);
        })
    });
    let mut next = 0;
    group.bench_function("identical pair (baseline)", |b| {
        b.iter(|| {
            let p = &pairs[next % pairs.len()];
            next += 1;
            run_with(&dir, &p.base, &p.base, &p.args);
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, corpus, bench);
criterion_main!(benches);
