//! Running the real `gpucloud` binary and comparing what it prints with golden files.
//!
//! A golden file (`tests/golden/<name>.txt`) holds the command line, the exit code, stdout and
//! stderr, with volatile parts (ports, UUIDs, times, durations) replaced by placeholders. Only
//! placeholders in a table's last column may differ in width from what they replace.
//! `UPDATE_GOLDEN=1 cargo test -p gpucloud-cli` rewrites them; review the diff before keeping it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::Regex;

/// Secret values the tests put in the environment; no output may ever contain one.
pub const SECRETS: [(&str, &str); 4] = [
    ("TOGETHER_API_KEY", "tg-test-secret-41f7"),
    ("RUNCRATE_API_KEY", "rc_live_test_secret_8c2d"),
    ("E2E_API_KEY", "e2e-test-apikey-5a90"),
    ("E2E_AUTH_TOKEN", "e2e-test-token-77b3"),
];

/// Fake but well-formed credentials for every provider (for commands that send nothing).
pub fn fake_credentials() -> Vec<(&'static str, String)> {
    let mut env: Vec<_> = SECRETS.iter().map(|(k, v)| (*k, v.to_string())).collect();
    env.push(("E2E_PROJECT_ID", "4242".into()));
    env.push(("E2E_LOCATION", "Delhi".into()));
    env
}

/// One run of the binary.
#[derive(Debug)]
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A ledger of its own for one run, removed when dropped: runs that do not set
/// `GPUCLOUD_LEDGER` get one, so no test writes to a shared file (or needs `HOME`).
pub struct RunLedger(Option<PathBuf>);

impl RunLedger {
    fn for_env(env: &[(&str, String)]) -> (Self, Option<(&'static str, String)>) {
        if env.iter().any(|(k, _)| *k == "GPUCLOUD_LEDGER") {
            return (Self(None), None);
        }
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("gpucloud-cli-run-{}-{n}", std::process::id()));
        let file = dir.join("ledger.sqlite3").to_string_lossy().into_owned();
        (Self(Some(dir)), Some(("GPUCLOUD_LEDGER", file)))
    }
}

impl Drop for RunLedger {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// `gpucloud` with `env` (and a ledger of its own) and nothing else in its environment.
pub fn command(args: &[&str], env: &[(&str, String)]) -> (Command, RunLedger) {
    let (ledger, variable) = RunLedger::for_env(env);
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpucloud"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .envs(variable.iter().map(|(k, v)| (*k, v.as_str())));
    (command, ledger)
}

/// Runs `gpucloud args…` in the crate's directory with exactly `env` as its environment (no
/// inherited credentials, no terminal), and checks that no secret leaked.
pub fn gpucloud(args: &[&str], env: &[(&str, String)]) -> Run {
    let (mut command, _ledger) = command(args, env);
    let output: Output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run gpucloud: {e}"));
    let run = Run {
        args: args.iter().map(|a| a.to_string()).collect(),
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    for (name, secret) in SECRETS {
        assert!(
            !run.stdout.contains(secret) && !run.stderr.contains(secret),
            "{name}'s value was printed by `gpucloud {}`",
            run.args.join(" ")
        );
    }
    run
}

/// A run under a wall-clock limit: [`Run`], the raw bytes of both streams, and whether it had
/// to be killed at the limit (a hang).
#[derive(Debug)]
pub struct BoundedRun {
    pub run: Run,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub hung: bool,
    pub elapsed: Duration,
}

/// Runs `gpucloud args…` as [`gpucloud`] does (exactly `env`, no terminal, stdin closed), but
/// kills it once `limit` has passed. Checks nothing: the caller judges the run.
pub fn gpucloud_within(args: &[&str], env: &[(&str, String)], limit: Duration) -> BoundedRun {
    let started = Instant::now();
    let (mut command, _ledger) = command(args, env);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run gpucloud: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut hung = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= limit => {
                hung = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("waiting for gpucloud: {e}"),
        }
    };
    let elapsed = started.elapsed();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    BoundedRun {
        run: Run {
            args: args.iter().map(|a| a.to_string()).collect(),
            code: status.and_then(|s| s.code()).unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        },
        stdout,
        stderr,
        hung,
        elapsed,
    }
}

impl Run {
    /// Asserts the exit code, with the output in the message.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            code,
            "`gpucloud {}` exited {}\n--- stdout\n{}\n--- stderr\n{}",
            self.args.join(" "),
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }

    /// The run as a golden file holds it, normalized.
    pub fn transcript(&self) -> String {
        normalize(&format!(
            "$ gpucloud {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            self.args.join(" "),
            self.code,
            self.stdout,
            self.stderr
        ))
    }

    /// Compares the transcript with `tests/golden/<name>.txt`.
    #[track_caller]
    pub fn golden(&self, name: &str) -> &Self {
        assert_golden(name, &self.transcript());
        self
    }
}

static VOLATILE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"(127\.0\.0\.1|localhost):\d+", "$1:PORT"),
        (
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            // As wide as a UUID, so tables stay aligned.
            "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        ),
        (
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
            "<TIME>",
        ),
        // A conversion's rate day (the simulator's price list is dated the day it started).
        (r"(at [0-9.]+, )\d{4}-\d\d-\d\d\b", "$1<DAY>"),
        (r"\b\d+\.\d+s\b", "<SECS>"),
        // The simulator's price book, a temporary file of a random name.
        (
            r"gpucloud-sim-prices-[A-Za-z0-9]+\.toml",
            "gpucloud-sim-prices-XXXXXX.toml",
        ),
        (
            r#""ready_after_secs": [0-9.]+"#,
            r#""ready_after_secs": <SECS>"#,
        ),
        (r"\[ *\d+(s|m\d\ds|h\d\dm)\]", "[<ELAPSED>]"),
        (r"about [0-9hms]+ simulated", "about <DURATION> simulated"),
    ]
    .into_iter()
    .map(|(pattern, replacement)| {
        (
            Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}")),
            replacement,
        )
    })
    .collect()
});

/// Replaces ports, UUIDs, times and durations with placeholders.
pub fn normalize(text: &str) -> String {
    VOLATILE
        .iter()
        .fold(text.to_string(), |text, (pattern, replacement)| {
            pattern.replace_all(&text, *replacement).into_owned()
        })
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.txt"))
}

/// Compares `actual` with the golden file `name`, or rewrites it under `UPDATE_GOLDEN=1`.
#[track_caller]
pub fn assert_golden(name: &str, actual: &str) {
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        }
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\nrun `UPDATE_GOLDEN=1 cargo test -p gpucloud-cli` to create it",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header("golden", "actual")
            .to_string();
        panic!(
            "output differs from {}:\n{diff}\nIf the change is intended, run \
             `UPDATE_GOLDEN=1 cargo test -p gpucloud-cli` and review the diff.",
            path.display()
        );
    }
}

#[test]
fn normalization_hides_only_volatile_parts() {
    assert_eq!(
        normalize(
            "http://127.0.0.1:40123/v1 3f0c8a52-1b2c-4d5e-8f90-0123456789ab 2026-03-01T12:00:00Z"
        ),
        "http://127.0.0.1:PORT/v1 xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx <TIME>"
    );
    assert_eq!(
        normalize(
            "[  12s] ready 2/2 nodes after 1.25s (about 12m30s simulated) H100_SXM [default: 5s]"
        ),
        "[<ELAPSED>] ready 2/2 nodes after <SECS> (about <DURATION> simulated) H100_SXM [default: 5s]"
    );
}

/// Runs `gpucloud args…` on a terminal (`script` gives it one: stdin, stdout and stderr are
/// a pseudo-terminal), typing `typed`; returns the exit code and everything shown. A ledger
/// of its own unless `env` names one.
#[cfg(feature = "sim")]
pub fn on_a_terminal(args: &[&str], env: &[(&str, String)], typed: &str) -> (Option<i32>, String) {
    use std::io::Write as _;
    let ledger = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ledger_file = ledger.path().join("ledger.sqlite3");
    let command = std::iter::once(env!("CARGO_BIN_EXE_gpucloud"))
        .chain(args.iter().copied())
        .map(|word| {
            shlex::try_quote(word)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_owned()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = std::process::Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .envs(
            (!env.iter().any(|(k, _)| *k == "GPUCLOUD_LEDGER"))
                .then_some(("GPUCLOUD_LEDGER", &ledger_file)),
        )
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("script: {e}"));
    child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(typed.as_bytes()))
        .transpose()
        .unwrap_or_else(|e| panic!("{e}"));
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Every command of the binary (the simulator's included), as its words.
pub const COMMANDS: [&[&str]; 17] = [
    &["clusters"],
    &["clusters", "create"],
    &["clusters", "get"],
    &["clusters", "list"],
    &["clusters", "delete"],
    &["clusters", "wait"],
    &["clusters", "resize"],
    &["clusters", "kubeconfig"],
    &["clusters", "ssh"],
    &["clusters", "sweep"],
    &["plan"],
    &["ledger"],
    &["catalog"],
    &["schema"],
    &["completions"],
    &["sim"],
    &["demo"],
];
