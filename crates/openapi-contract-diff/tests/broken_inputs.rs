//! Inputs that are not what they claim, run through the binary: a document whose `openapi`,
//! `info` or `paths` is missing or of the wrong type, Swagger 2.0, a device, a directory, a
//! spec or acknowledgement file over its size limit, and git sides that are too large or not
//! files. Each exits 2 at once with one line naming the file and the pointer or the limit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{Run, git};

const GOOD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A sparse file of `len` bytes: large on paper, nothing on disk.
fn sparse(dir: &Path, name: &str, len: u64) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path.display().to_string()
}

/// Runs the binary in `cwd`, killing it after 20 s (a read of `/dev/zero` would not end).
fn diff(cwd: &Path, args: &[&str]) -> (Run, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_openapi-contract-diff"))
        .current_dir(cwd)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("openapi-contract-diff {args:?} still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    (run, start.elapsed())
}

/// Asserts exit 2 and that stderr is exactly `error: {want}` on one line.
fn refused(cwd: &Path, args: &[&str], want: &str) {
    let (run, _) = diff(cwd, args);
    assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, format!("error: {want}\n"), "{args:?}");
}

#[test]
fn broken_outlines_are_refused_with_the_file_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.yaml", GOOD);
    let info = "info: {title: t, version: '1'}\n";
    let cases = [
        (
            "paths-list.yaml",
            format!("openapi: 3.0.3\n{info}paths: [/a, /b]\n"),
            "at /paths: must be an object, got an array",
        ),
        (
            "paths-missing.yaml",
            format!("openapi: 3.0.3\n{info}"),
            "at /paths: missing, must be an object",
        ),
        (
            "openapi-number.yaml",
            format!("openapi: 3.0\n{info}paths: {{}}\n"),
            "at /openapi: must be a string, got a number (quote the version: openapi: \"3.0.3\")",
        ),
        (
            "openapi-missing.yaml",
            format!("{info}paths: {{}}\n"),
            "at /openapi: missing, must be the OpenAPI version (\"3.0.3\", \"3.1.0\", …)",
        ),
        (
            "info-missing.yaml",
            "openapi: 3.0.3\npaths: {}\n".to_string(),
            "at /info: missing, must be an object",
        ),
        (
            "info-list.yaml",
            "openapi: 3.0.3\ninfo: [t]\npaths: {}\n".to_string(),
            "at /info: must be an object, got an array",
        ),
        (
            "path-item-string.json",
            r#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": "get"}}"#
                .to_string(),
            "at /paths/~1a: must be an object, got a string",
        ),
        (
            "swagger.json",
            r#"{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#
                .to_string(),
            "at /swagger: Swagger 2.0 is not supported: convert it to OpenAPI 3 first",
        ),
    ];
    for (name, text, reason) in cases {
        let broken = write(dir.path(), name, &text);
        // As BASE and as REVISION alike.
        refused(
            dir.path(),
            &[&good, &broken],
            &format!("{broken}: {reason}"),
        );
        refused(
            dir.path(),
            &[&broken, &good],
            &format!("{broken}: {reason}"),
        );
    }
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_at_once_naming_the_file_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.yaml", GOOD);
    let (run, took) = diff(dir.path(), &["/dev/zero", &good]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "error: /dev/zero: a character device, not a regular file (a spec is read only from a regular file of at most 32 MiB)\n"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    refused(
        dir.path(),
        &[&good, &good, "--ack", "/dev/zero"],
        "/dev/zero: a character device, not a regular file (an acknowledgement file is read only from a regular file of at most 1 MiB)",
    );
}

#[test]
fn directories_and_files_over_the_limits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.yaml", GOOD);
    let folder = dir.path().display().to_string();
    refused(
        dir.path(),
        &[&good, &folder],
        &format!(
            "{folder}: a directory, not a regular file (a spec is read only from a regular file of at most 32 MiB)"
        ),
    );
    let big = sparse(dir.path(), "big.yaml", 32 * 1024 * 1024 + 1);
    refused(
        dir.path(),
        &[&good, &big],
        &format!("{big}: 33554433 bytes, over the limit of 32 MiB for a spec"),
    );
    let ack = sparse(dir.path(), "ack.yaml", 1024 * 1024 + 1);
    refused(
        dir.path(),
        &[&good, &good, "--ack", &ack],
        &format!("{ack}: 1048577 bytes, over the limit of 1 MiB for an acknowledgement file"),
    );
}

#[test]
fn git_sides_over_the_limit_or_not_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    std::fs::create_dir_all(root.join("specs")).unwrap();
    write(root, "specs/a.yaml", GOOD);
    sparse(root, "specs/big.yaml", 32 * 1024 * 1024 + 1);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "one"]);
    refused(
        root,
        &["HEAD:specs/big.yaml", "specs/a.yaml"],
        "HEAD:specs/big.yaml: 33554433 bytes, over the limit of 32 MiB for a spec",
    );
    refused(
        root,
        &["HEAD:specs", "specs/a.yaml"],
        "HEAD:specs: a git tree, not a file",
    );
    let (run, _) = diff(root, &["HEAD:specs/a.yaml", "specs/a.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
