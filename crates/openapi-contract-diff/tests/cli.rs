//! The command's interface, run as users run the `openapi-contract-diff` binary: sides from git,
//! `--all`, exit statuses, the acknowledgement file, and output formats.

// Test helpers outside `#[test]` functions may panic too (clippy.toml allows it only inside).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use serde_json::Value;
use support::{Run, git, run_diff};

const BASE: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /c:\n    post:\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {type: object, properties: {name: {type: string}}}\n      responses:\n        '200': {description: ok}\n";

/// BASE with `name` made required: one ERR.
fn breaking() -> String {
    BASE.replace(
        "properties: {name: {type: string}}}",
        "properties: {name: {type: string}}, required: [name]}",
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `openapi-contract-diff ARGS` run in `root`.
fn diff(root: &Path, args: &[&str]) -> Run {
    run_diff(root, args)
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr))
}

#[test]
fn exit_statuses_and_one_line_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", BASE);
    let rev = write(dir.path(), "rev.yaml", &breaking());
    assert_eq!(diff(dir.path(), &[&base, &base]).code, 0);
    let run = diff(dir.path(), &[&base, &rev]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("ERR  request-property-became-required"),
        "{}",
        run.stdout
    );

    let missing = diff(dir.path(), &[&base, "nope.yaml"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .starts_with("error: nope.yaml: cannot read the file"),
        "{}",
        missing.stderr
    );

    let bad = write(dir.path(), "bad.yaml", "openapi: 3.0.3\npaths: [1, 2\n");
    let run = diff(dir.path(), &[&base, &bad]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("bad.yaml: invalid YAML"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);

    let dangling = write(
        dir.path(),
        "dangling.yaml",
        &BASE.replace(
            "{type: object, properties: {name: {type: string}}}",
            "{$ref: '#/components/schemas/Gone'}",
        ),
    );
    let run = diff(dir.path(), &[&base, &dangling]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("dangling.yaml: at /paths/~1c/post/requestBody/content/application~1json/schema/$ref: unresolved $ref"),
        "{}",
        run.stderr
    );
}

#[test]
fn fail_on_warn_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", BASE);
    // Removing a request property is WARN: passes by default, fails with --fail-on WARN.
    let rev = write(
        dir.path(),
        "rev.yaml",
        &BASE.replace("properties: {name: {type: string}}", "properties: {}"),
    );
    assert_eq!(diff(dir.path(), &[&base, &rev]).code, 0);
    assert_eq!(
        diff(dir.path(), &[&base, &rev, "--fail-on", "WARN"]).code,
        1
    );

    let rev = write(dir.path(), "rev2.yaml", &breaking());
    let md = diff(dir.path(), &[&base, &rev, "--format", "markdown"]);
    assert!(
        md.stdout.contains("| level | rule | operation |")
            && md.stdout.contains("`request-property-became-required`"),
        "{}",
        md.stdout
    );
    let gh = diff(dir.path(), &[&base, &rev, "--format", "github"]);
    assert!(gh.stdout.starts_with("::error file="), "{}", gh.stdout);
    assert!(
        gh.stdout
            .contains("title=request-property-became-required::POST /c"),
        "{}",
        gh.stdout
    );
    let report = json(&diff(dir.path(), &[&base, &rev, "--format", "json"]));
    let f = &report["findings"][0];
    assert_eq!(report["breaking"], true);
    assert_eq!(f["operation"], "POST /c");
    assert_eq!(f["direction"], "request");
    assert_eq!(
        f["location"],
        "/paths/~1c/post/requestBody/content/application~1json/schema/properties/name"
    );
    let keys: Vec<&String> = f.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "client_impact",
            "direction",
            "fingerprint",
            "id",
            "level",
            "location",
            "message",
            "operation"
        ]
    );
}

#[test]
fn client_impact_gate_marker_and_changelog() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", BASE);
    let rev = write(dir.path(), "rev.yaml", &breaking());
    // Lowered to INFO by policy, the change passes the wire gate but still breaks our client.
    let ack = write(
        dir.path(),
        "ack.yaml",
        "levels:\n  request-property-became-required: INFO\n",
    );
    let lowered = diff(dir.path(), &[&base, &rev, "--ack", &ack]);
    assert_eq!(lowered.code, 0, "{}", lowered.stdout);
    assert!(
        lowered
            .stdout
            .contains("request-property-became-required  [breaks our client]")
    );
    let gated = diff(
        dir.path(),
        &[&base, &rev, "--ack", &ack, "--fail-on-client-impact"],
    );
    assert_eq!(gated.code, 1, "{}", gated.stdout);
    let report = json(&diff(dir.path(), &[&base, &rev, "--format", "json"]));
    assert_eq!(report["findings"][0]["client_impact"], "breaks");
    let notes = diff(dir.path(), &[&base, &rev, "--format", "changelog"]);
    assert!(notes.stdout.contains("## POST /c\n"), "{}", notes.stdout);
    assert!(
        notes.stdout.contains("- **breaking**: ")
            && notes
                .stdout
                .contains("(breaks gpucloud's generated client)"),
        "{}",
        notes.stdout
    );
}

#[test]
fn acknowledgements_and_level_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", BASE);
    let rev = write(dir.path(), "rev.yaml", &breaking());
    let report = json(&diff(dir.path(), &[&base, &rev, "--format", "json"]));
    let fingerprint = report["findings"][0]["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();

    // The fingerprint ignores wording and documentation: the same change with a new description.
    let reworded = write(
        dir.path(),
        "rev-doc.yaml",
        &breaking().replace("{description: ok}", "{description: fine}"),
    );
    let again = json(&diff(dir.path(), &[&base, &reworded, "--format", "json"]));
    assert_eq!(again["findings"][0]["fingerprint"], fingerprint.as_str());

    let ack = format!(
        "acknowledged:\n  - fingerprint: {fingerprint}\n    id: request-property-became-required\n    reason: agreed with the provider\n"
    );
    write(dir.path(), "specs/contract-ack.yaml", &ack);
    let run = diff(dir.path(), &[&base, &rev, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json(&run);
    assert_eq!(report["breaking"], false);
    assert_eq!(
        report["acknowledged"][0]["reason"],
        "agreed with the provider"
    );

    let levels = write(
        dir.path(),
        "levels.yaml",
        "levels:\n  request-property-became-required: WARN\n",
    );
    let run = diff(
        dir.path(),
        &[&base, &rev, "--ack", &levels, "--format", "json"],
    );
    assert_eq!(run.code, 0);
    assert_eq!(json(&run)["findings"][0]["level"], "WARN");
    assert_eq!(
        diff(
            dir.path(),
            &[&base, &rev, "--ack", &levels, "--fail-on", "warn"]
        )
        .code,
        1
    );
    let hidden = write(
        dir.path(),
        "none.yaml",
        "levels:\n  request-property-became-required: NONE\n",
    );
    assert_eq!(
        json(&diff(
            dir.path(),
            &[&base, &rev, "--ack", &hidden, "--format", "json"]
        ))["findings"],
        serde_json::json!([])
    );

    let bad = write(
        dir.path(),
        "bad-ack.yaml",
        &format!("acknowledged:\n  - fingerprint: {fingerprint}\n    reason: ''\n"),
    );
    let run = diff(dir.path(), &[&base, &rev, "--ack", &bad]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("bad-ack.yaml: at /acknowledged/0/reason"),
        "{}",
        run.stderr
    );
}

#[test]
fn git_sides_and_all() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    write(root, "specs/a.yaml", BASE);
    write(root, "specs/gone.yaml", BASE);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "one"]);

    // A first commit has no HEAD~1: skipped, exit 0.
    let run = diff(root, &["--all", "--base", "HEAD~1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("skipped: HEAD~1 does not exist on a first commit"),
        "{}",
        run.stdout
    );

    write(root, "specs/a.yaml", &breaking());
    std::fs::remove_file(root.join("specs/gone.yaml")).unwrap();
    write(root, "specs/new.yaml", BASE);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "two"]);

    let run = diff(
        root,
        &["HEAD~1:specs/a.yaml", "specs/a.yaml", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        json(&run)["findings"][0]["id"],
        "request-property-became-required"
    );

    let run = diff(root, &["--all", "--base", "HEAD~1", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = json(&run);
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["spec"].as_str().unwrap().to_string(),
                f["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        found.contains(&(
            "specs/a.yaml".into(),
            "request-property-became-required".into()
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&("specs/gone.yaml".into(), "spec-removed".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&("specs/new.yaml".into(), "spec-added".into())),
        "{found:?}"
    );

    // An unknown revision with history present is an error, not a skip.
    let run = diff(root, &["--all", "--base", "no-such-rev"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let run = diff(root, &["no-such-rev:specs/a.yaml", "specs/a.yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no-such-rev:specs/a.yaml: unknown git revision"),
        "{}",
        run.stderr
    );

    // A shallow clone lacks HEAD~1: skipped.
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", root.display());
    git(clone.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let run = diff(&clone.path().join("c"), &["--all", "--base", "HEAD~1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("skipped: HEAD~1 is not in this shallow clone"),
        "{}",
        run.stdout
    );
}

#[test]
fn deprecation_days_come_from_the_ack_file_and_the_flag_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.yaml", BASE);
    let deprecated = BASE.replace("    post:\n", "    post:\n      deprecated: true\n");
    let rev = write(dir.path(), "rev.yaml", &deprecated);
    // No policy: deprecating without a sunset is INFO.
    assert_eq!(diff(dir.path(), &[&base, &rev]).code, 0);
    write(
        dir.path(),
        "specs/contract-ack.yaml",
        "deprecation_days:\n  stable: 30\n",
    );
    let run = diff(dir.path(), &[&base, &rev, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = json(&run);
    assert_eq!(report["findings"][0]["id"], "api-deprecated-sunset-missing");
    assert_eq!(
        report["findings"][0]["location"],
        "/paths/~1c/post/deprecated"
    );
    let run = diff(dir.path(), &[&base, &rev, "--deprecation-days-stable", "0"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let bad = diff(dir.path(), &[&base, &rev, "--today", "2026-13-01"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("is not a date YYYY-MM-DD"),
        "{}",
        bad.stderr
    );
}
