//! `cargo xtask codegen` on specs it cannot use: a broken outline (`paths` a list, `openapi` a
//! number, `info` missing), Swagger 2.0, a device in place of the spec, a spec over the size
//! limit. Each exits 2 at once with one line naming the file and the pointer or the limit, and
//! writes nothing.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

mod support;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use support::{run_xtask, workspace};

/// A scratch workspace with the Together spec, manifest and generated file only.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace();
    fs::create_dir_all(dir.path().join("specs")).unwrap();
    fs::create_dir_all(dir.path().join("crates/gpucloud-together/src")).unwrap();
    for file in [
        "specs/together.yaml",
        "crates/gpucloud-together/Cargo.toml",
        "crates/gpucloud-together/src/generated.rs",
    ] {
        fs::copy(root.join(file), dir.path().join(file)).unwrap();
    }
    dir
}

/// Runs `codegen --provider together` on `dir`; asserts exit 2, one line of stderr containing
/// `want`, and the generated file untouched.
fn refused(dir: &Path, want: &str) -> Duration {
    let generated = dir.join("crates/gpucloud-together/src/generated.rs");
    let before = fs::read_to_string(&generated).unwrap();
    let root = dir.display().to_string();
    let start = Instant::now();
    let run = run_xtask(dir, &["--root", &root, "codegen", "--provider", "together"]);
    let took = start.elapsed();
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("error: codegen failed; no file was written: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(want), "want {want:?} in {}", run.stderr);
    assert_eq!(fs::read_to_string(&generated).unwrap(), before);
    took
}

#[test]
fn broken_outlines_and_swagger_exit_2_with_file_and_pointer() {
    let dir = scratch();
    let spec = dir.path().join("specs/together.yaml");
    let info = "info: {title: t, version: '1'}\n";
    let cases = [
        (
            format!("openapi: 3.0.3\n{info}paths: [/a]\n"),
            "specs/together.yaml: at /paths: must be an object, got an array",
        ),
        (
            format!("openapi: 3.0\n{info}paths: {{}}\n"),
            "specs/together.yaml: at /openapi: must be a string, got a number",
        ),
        (
            "openapi: 3.0.3\npaths: {}\n".to_string(),
            "specs/together.yaml: at /info: missing, must be an object",
        ),
        (
            format!("swagger: '2.0'\n{info}paths: {{}}\n"),
            "specs/together.yaml: at /swagger: Swagger 2.0 is not supported: convert it to OpenAPI 3 first",
        ),
    ];
    for (text, want) in cases {
        fs::write(&spec, text).unwrap();
        refused(dir.path(), want);
    }
}

#[test]
fn a_spec_over_the_limit_is_refused_naming_the_limit() {
    let dir = scratch();
    let spec = dir.path().join("specs/together.yaml");
    // Sparse: 32 MiB + 1 on paper, nothing on disk.
    fs::File::create(&spec)
        .unwrap()
        .set_len(32 * 1024 * 1024 + 1)
        .unwrap();
    refused(
        dir.path(),
        "specs/together.yaml: 33554433 bytes, over the limit of 32 MiB for a spec",
    );
}

#[cfg(unix)]
#[test]
fn dev_zero_in_place_of_a_spec_is_refused_at_once() {
    let dir = scratch();
    let spec = dir.path().join("specs/together.yaml");
    fs::remove_file(&spec).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &spec).unwrap();
    let took = refused(
        dir.path(),
        "specs/together.yaml: a character device, not a regular file (a spec is read only from a regular file of at most 32 MiB)",
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
