//! `cargo bench -p openapi-contract-diff --bench contract_diff`: the whole command (read, parse,
//! diff, render) on a generated pair of ~1 MB YAML specs with thousands of operations. The goal is
//! well under a second per pair.
//!
//! The revision edits a tenth of the components (enum growth, new required fields, tighter
//! bounds), renames components and moves operations, so the walk cannot skip everything; the
//! no-op pair measures the floor (parse + hash).

use std::path::Path;
use std::process::Command;

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
    let out = Command::new(env!("CARGO_BIN_EXE_openapi-contract-diff"))
        .current_dir(root)
        .args(["--format", "json"])
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

criterion_group!(benches, bench);
criterion_main!(benches);
