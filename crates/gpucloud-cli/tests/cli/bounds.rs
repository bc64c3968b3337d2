//! Bounded input: durations, cluster ids and files are refused with their rule before anything
//! is sent, and a request that gets no answer in time exits 5.

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::fake::{FakeProvider, Reply};
use crate::support::{Run, fake_credentials, gpucloud};

/// A provider that answers 404 to everything and counts what it was sent.
fn provider() -> FakeProvider {
    FakeProvider::start(|_| {
        Reply::raw(
            404,
            "application/json",
            r#"{"error":{"message":"no such cluster","type":"not_found"}}"#,
        )
    })
}

#[track_caller]
fn refused(run: &Run, code: i32, needles: &[&str]) {
    run.expect_code(code);
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "`gpucloud {}`: {needle:?} not in\n{}",
            run.args.join(" "),
            run.stderr
        );
    }
}

#[test]
fn duration_and_attempt_flags_are_bounded_with_the_rule() {
    let server = provider();
    let url = server.url("/v1");
    let target = ["-p", "together", "--base-url", url.as_str()];
    let cases: [(&[&str], &str, &str); 10] = [
        (
            &[
                "clusters",
                "wait",
                "c-1",
                "--interval",
                "18446744073709551615s",
            ],
            "'--interval <DURATION>'",
            "between 1s and 1 day",
        ),
        (
            &["clusters", "wait", "c-1", "--interval", "0s"],
            "'--interval <DURATION>'",
            "between 1s and 1 day",
        ),
        (
            &["clusters", "wait", "c-1", "--max-interval", "100ms"],
            "'--max-interval <DURATION>'",
            "between 1s and 1 day",
        ),
        (
            &["clusters", "wait", "c-1", "--timeout", "30d"],
            "'--timeout <DURATION>'",
            "between 1s and 7 days",
        ),
        (
            &[
                "clusters",
                "wait",
                "c-1",
                "--timeout",
                "18446744073709551615s",
            ],
            "'--timeout <DURATION>'",
            "between 1s and 7 days",
        ),
        (
            &[
                "clusters",
                "create",
                "-f",
                "tests/fixtures/together.toml",
                "--wait",
                "--interval",
                "0s",
            ],
            "'--interval <DURATION>'",
            "between 1s and 1 day",
        ),
        (
            &["clusters", "get", "c-1", "--request-timeout", "0s"],
            "'--request-timeout <DURATION>'",
            "between 1s and 1 hour",
        ),
        (
            &[
                "clusters",
                "create",
                "-f",
                "tests/fixtures/together.toml",
                "--settle-window",
                "2h",
            ],
            "'--settle-window <DURATION>'",
            "between 0s and 1 hour",
        ),
        (
            &["clusters", "get", "c-1", "--max-attempts", "0"],
            "'--max-attempts <N>'",
            "from 1 to 10",
        ),
        (
            &["clusters", "list", "--max-attempts", "18446744073709551616"],
            "'--max-attempts <N>'",
            "from 1 to 10",
        ),
    ];
    for (args, flag, rule) in cases {
        let run = gpucloud(&[args, &target[..]].concat(), &fake_credentials());
        refused(&run, 2, &[flag, rule]);
    }
    assert_eq!(server.requests().len(), 0, "{:?}", server.requests());
}

#[test]
fn cluster_ids_are_checked_before_any_request() {
    let server = provider();
    let url = server.url("/v1");
    let long = "a".repeat(257);
    let cases = [
        ("", "must not be empty"),
        (long.as_str(), "at most 256 bytes"),
        ("c-1\u{1b}[2J", "must not contain control characters"),
        ("c-1\nc-2", "must not contain control characters"),
        ("../c-1", "must not contain `/`"),
        ("c-1?x=1", "must not contain `/`, `\\`, `?` or `#`"),
        ("c-1#x", "must not contain `/`, `\\`, `?` or `#`"),
        ("..", "must not be `.` or `..`"),
    ];
    for command in ["get", "delete", "wait"] {
        for (id, rule) in cases {
            let run = gpucloud(
                &[
                    "clusters",
                    command,
                    "-p",
                    "together",
                    "--base-url",
                    &url,
                    "--",
                    id,
                ],
                &fake_credentials(),
            );
            refused(&run, 2, &["'<CLUSTER>'", rule]);
            // The raw id never reaches the terminal.
            assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
        }
    }
    assert_eq!(server.requests().len(), 0, "{:?}", server.requests());
}

/// A fresh scratch directory for this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpucloud-cli-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir.join(name)
}

/// `plan` for E2E with a lifecycle script, and for Together with a request file.
fn plans(request_file: &str, script: &str) -> [Run; 2] {
    [
        gpucloud(
            &["plan", "-p", "together", "-f", request_file],
            &fake_credentials(),
        ),
        gpucloud(
            &[
                "plan",
                "-p",
                "e2e",
                "--name",
                "t",
                "--nodes",
                "2",
                "--ssh-key",
                "1",
                "--image-version-id",
                "2",
                "--sku-id",
                "201",
                "--sku-item-price-id",
                "811",
                "--security-group-id",
                "1",
                "--lifecycle-script",
                script,
            ],
            &fake_credentials(),
        ),
    ]
}

#[test]
fn files_over_one_mib_and_directories_are_refused() {
    let big = scratch("big.toml");
    let mut text = "name = \"x\"\nsize = { gpus = 8 }\n".to_string();
    text.push_str(&"#".repeat(1024 * 1024));
    std::fs::write(&big, text).unwrap_or_else(|e| panic!("{e}"));
    let big = big.to_string_lossy().into_owned();
    let [file, script] = plans(&big, &big);
    refused(
        &file,
        3,
        &["request file ", "big.toml is larger than the 1 MiB limit"],
    );
    refused(
        &script,
        3,
        &[
            "lifecycle script ",
            "big.toml is larger than the 1 MiB limit",
        ],
    );

    let dir = scratch("a-directory.toml");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let dir = dir.to_string_lossy().into_owned();
    for run in plans(&dir, &dir) {
        refused(&run, 3, &["a-directory.toml: not a regular file"]);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

/// `/dev/zero` would be read until memory runs out, and opening a FIFO blocks until a writer
/// comes: neither is opened.
#[cfg(unix)]
#[test]
fn devices_and_fifos_are_not_read() {
    let fifo = scratch("request.toml");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(made.success());
    let fifo = fifo.to_string_lossy().into_owned();
    let started = Instant::now();
    for path in ["/dev/zero", fifo.as_str()] {
        for run in plans(path, path) {
            refused(&run, 3, &[&format!("{path}: not a regular file")]);
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// A server that accepts connections and never answers: `--request-timeout` ends each try, and
/// the command exits 5 ("timed out"), not 1.
#[test]
fn a_request_that_times_out_exits_5() {
    // Never accepted: the kernel completes the handshake, nobody ever reads or answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let port = silent.local_addr().map(|a| a.port()).unwrap_or_default();
    let url = format!("http://127.0.0.1:{port}/v1");
    let started = Instant::now();
    let run = gpucloud(
        &[
            "clusters",
            "get",
            "c-1",
            "-p",
            "together",
            "--base-url",
            &url,
            "--request-timeout",
            "1s",
        ],
        &fake_credentials(),
    );
    refused(&run, 5, &["error: "]);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    drop(silent);
}

/// `RUST_LOG` replaces `-v`; a malformed one is a configuration error, before anything is sent.
#[test]
fn a_malformed_rust_log_exits_3() {
    let mut env = fake_credentials();
    env.push(("RUST_LOG", "gpucloud=loudest".into()));
    let run = gpucloud(
        &[
            "plan",
            "-p",
            "together",
            "-f",
            "tests/fixtures/together.toml",
        ],
        &env,
    );
    refused(&run, 3, &["error: configuration: RUST_LOG: "]);
    assert_eq!(run.stdout, "");
}

#[test]
fn retry_flags_reach_the_facade() {
    // Every read answered 503: `--max-attempts N` sends it N times.
    let server = FakeProvider::start(|_| {
        Reply::raw(
            503,
            "application/json",
            r#"{"error":{"message":"unavailable","type":"server_error"}}"#,
        )
    });
    let url = server.url("/v1");
    for attempts in [1, 2] {
        let before = server.requests().len();
        let run = gpucloud(
            &[
                "clusters",
                "get",
                "c-1",
                "-p",
                "together",
                "--base-url",
                &url,
                "--max-attempts",
                &attempts.to_string(),
            ],
            &fake_credentials(),
        );
        run.expect_code(4);
        assert_eq!(server.requests().len() - before, attempts, "{run:?}");
    }

    // A create answered 500 and a list that never shows it: with `--settle-window 0s` each
    // settle is one look-up, then the single re-send: list, POST, list, POST, list.
    let server = FakeProvider::start(|request| match request.method.as_str() {
        "GET" => Reply::raw(200, "application/json", r#"{"clusters":[]}"#),
        _ => Reply::raw(
            500,
            "application/json",
            r#"{"error":{"message":"boom","type":"server_error"}}"#,
        ),
    });
    let url = server.url("/v1");
    let started = Instant::now();
    let run = gpucloud(
        &[
            "clusters",
            "create",
            "-f",
            "tests/fixtures/together.toml",
            "-p",
            "together",
            "--base-url",
            &url,
            "--settle-window",
            "0s",
        ],
        &fake_credentials(),
    );
    run.expect_code(4);
    let methods: Vec<String> = server.requests().into_iter().map(|r| r.method).collect();
    assert_eq!(methods, ["GET", "POST", "GET", "POST", "GET"], "{run:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "{run:?}");
}
