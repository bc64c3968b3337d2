//! Shared helpers of the tests: run the built `openapi-contract-diff` binary and capture it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run printed and returned.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `openapi-contract-diff ARGS` in `cwd` (git sides, `--all` and the default
/// `specs/contract-ack.yaml` are relative to it).
pub fn run_diff(cwd: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_openapi-contract-diff"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The corpus: one BASE/REVISION pair per file, with the findings it must produce.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cases")
}

/// Runs git in `dir` with a fixed identity; panics on failure.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}
