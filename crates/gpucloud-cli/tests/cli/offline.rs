//! Commands that send nothing: help, plans, and every error that must happen before a request.

use std::net::TcpListener;

use crate::support::{COMMANDS, fake_credentials, gpucloud};

fn no_env() -> Vec<(&'static str, String)> {
    Vec::new()
}

/// A port nobody listens on: a request sent there would fail as a transport error (exit 1),
/// so exit 3 proves nothing was sent.
fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("addr: {e}"))
        .port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

#[test]
fn help_of_the_main_commands() {
    for (name, args) in [
        ("help_clusters", &["clusters", "--help"][..]),
        ("help_clusters_create", &["clusters", "create", "--help"]),
        ("help_clusters_wait", &["clusters", "wait", "--help"]),
        ("help_plan", &["plan", "--help"]),
    ] {
        gpucloud(args, &no_env()).expect_code(0).golden(name);
    }
}

/// The main help lists `sim` and `demo`, which only the `sim` build has.
#[cfg(feature = "sim")]
#[test]
fn help_of_the_simulator_commands() {
    for (name, args) in [
        ("help", &["--help"][..]),
        ("help_sim", &["sim", "--help"]),
        ("help_demo", &["demo", "--help"]),
    ] {
        gpucloud(args, &no_env()).expect_code(0).golden(name);
    }
}

/// Without the `sim` feature the binary has no simulator: its help does not offer one, and
/// `sim` and `demo` are unknown commands.
#[cfg(not(feature = "sim"))]
#[test]
fn the_lean_build_has_no_simulator_commands() {
    let help = gpucloud(&["--help"], &no_env());
    help.expect_code(0);
    for word in ["sim ", "demo", "simulator"] {
        assert!(!help.stdout.contains(word), "{word:?} in\n{}", help.stdout);
    }
    assert!(help.stdout.contains("clusters") && help.stdout.contains("plan"));
    for command in ["sim", "demo"] {
        let run = gpucloud(&[command], &no_env());
        run.expect_code(2);
        assert!(
            run.stderr
                .contains(&format!("unrecognized subcommand '{command}'")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn plan_from_flags_for_each_provider() {
    let env = fake_credentials();
    let cases: [(&str, &[&str]); 3] = [
        (
            "plan_together_flags",
            &[
                "plan",
                "--provider",
                "together",
                "--name",
                "train-42",
                "--gpus",
                "16",
                "--gpu-model",
                "H100_SXM",
                "--region",
                "us-central-8",
                "--stack",
                "slurm",
                "--slurm-shm-size-gib",
                "64",
                "--nvidia-version-id",
                "cuda-12.8-driver-570",
                "--new-volume",
                "scratch",
                "--new-volume-tib",
                "2",
            ],
        ),
        (
            "plan_runcrate_flags",
            &[
                "plan",
                "-p",
                "runcrate",
                "--allow-no-delete",
                "--name",
                "train-42",
                "--nodes",
                "4",
                "--stack",
                "ray",
                "--offer-id",
                "offer-h100-sxm-8x",
                "--environment",
                "research",
            ],
        ),
        (
            "plan_e2e_flags",
            &[
                "plan",
                "-p",
                "e2e",
                "--name",
                "train-42",
                "--nodes",
                "2",
                "--ssh-key",
                "101",
                "--ssh-key",
                "102",
                "--image-version-id",
                "11",
                "--sku-id",
                "22",
                "--sku-item-price-id",
                "33",
                "--security-group-id",
                "44",
                "--lifecycle-script",
                "tests/fixtures/setup.sh",
                "--sfs-mount",
                "7:data:/mnt/data",
            ],
        ),
    ];
    for (name, args) in cases {
        gpucloud(args, &env).expect_code(0).golden(name);
    }
}

#[test]
fn plan_from_a_toml_yaml_or_json_file() {
    let env = fake_credentials();
    for (name, provider, file) in [
        (
            "plan_together_toml",
            "together",
            "tests/fixtures/together.toml",
        ),
        (
            "plan_runcrate_yaml",
            "runcrate",
            "tests/fixtures/runcrate.yaml",
        ),
        ("plan_e2e_json", "e2e", "tests/fixtures/e2e.json"),
    ] {
        let mut args = vec!["plan", "-p", provider, "-f", file];
        if provider == "runcrate" {
            args.push("--allow-no-delete");
        }
        gpucloud(&args, &env).expect_code(0).golden(name);
    }
}

#[test]
fn plan_json_is_the_planned_request() {
    let run = gpucloud(
        &[
            "plan",
            "--json",
            "-p",
            "together",
            "-f",
            "tests/fixtures/together.toml",
        ],
        &fake_credentials(),
    );
    run.expect_code(0).golden("plan_together_json");
    let plan: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{}", run.stdout));
    assert_eq!(plan["method"], "POST");
    assert_eq!(plan["body"]["num_gpus"], 16);
    let authorization = plan["headers"]
        .as_array()
        .and_then(|headers| {
            headers.iter().find(|header| {
                header[0]
                    .as_str()
                    .is_some_and(|name| name.eq_ignore_ascii_case("authorization"))
            })
        })
        .map(|header| &header[1]);
    assert_eq!(
        authorization.and_then(|value| value.as_str()),
        Some("Bearer REDACTED")
    );
}

#[test]
fn invalid_requests_fail_with_exit_3_before_any_request() {
    let env = fake_credentials();
    let url = closed_port_url();
    let cases: [(&str, Vec<&str>); 4] = [
        (
            "invalid_together_gpus",
            vec![
                "clusters",
                "create",
                "-p",
                "together",
                "--base-url",
                &url,
                "--name",
                "train-42",
                "--gpus",
                "12",
                "--gpu-model",
                "H100_SXM",
                "--region",
                "us-central-8",
                "--nvidia-version-id",
                "cuda-12.8-driver-570",
            ],
        ),
        (
            "invalid_runcrate_nodes",
            vec![
                "clusters",
                "create",
                "-p",
                "runcrate",
                "--allow-no-delete",
                "--base-url",
                &url,
                "--name",
                "train-42",
                "--nodes",
                "1",
                "--offer-id",
                "offer-h100-sxm-8x",
            ],
        ),
        (
            "invalid_e2e_missing_security_group",
            vec![
                "clusters",
                "create",
                "-p",
                "e2e",
                "--base-url",
                &url,
                "--name",
                "train-42",
                "--nodes",
                "2",
                "--ssh-key",
                "101",
                // Every catalog id given (nothing to resolve); the account's security group
                // is missing.
                "--image-version-id",
                "2",
                "--sku-id",
                "201",
                "--sku-item-price-id",
                "811",
            ],
        ),
        (
            "invalid_file_unknown_field",
            vec![
                "clusters",
                "create",
                "-p",
                "together",
                "--base-url",
                &url,
                "-f",
                "tests/fixtures/unknown-field.toml",
            ],
        ),
    ];
    for (name, args) in cases {
        gpucloud(&args, &env).expect_code(3).golden(name);
    }
}

#[test]
fn a_missing_credential_is_named_and_no_value_is_printed() {
    // Everything but the key Together needs: the error names it, exit 3.
    let mut env = fake_credentials();
    env.retain(|(name, _)| *name != "TOGETHER_API_KEY");
    gpucloud(&["clusters", "list", "-p", "together"], &env)
        .expect_code(3)
        .golden("missing_together_key");
    let mut env = fake_credentials();
    env.retain(|(name, _)| *name != "E2E_AUTH_TOKEN");
    gpucloud(&["clusters", "get", "-p", "e2e", "17"], &env)
        .expect_code(3)
        .golden("missing_e2e_token");
}

#[test]
fn usage_errors_exit_2() {
    let env = fake_credentials();
    gpucloud(
        &[
            "plan",
            "-p",
            "together",
            "--name",
            "x",
            "--gpus",
            "8",
            "--offer-id",
            "o",
        ],
        &env,
    )
    .expect_code(2)
    .golden("usage_foreign_option");
    gpucloud(&["clusters", "get", "-p", "aws", "1"], &env)
        .expect_code(2)
        .golden("usage_unknown_provider");
    gpucloud(
        &[
            "plan",
            "-p",
            "together",
            "-f",
            "tests/fixtures/together.toml",
            "--gpus",
            "8",
        ],
        &env,
    )
    .expect_code(2)
    .golden("usage_file_and_flags");
}

/// `gpucloud args… | head -0`: the reader is gone before the first write. Its exit code and
/// stderr.
fn into_a_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpucloud"))
        .args(args)
        .env_clear()
        .envs(fake_credentials())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run gpucloud: {e}"));
    drop(child.stdout.take());
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("gpucloud did not finish: {e}"));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn output_into_a_closed_pipe_ends_quietly_instead_of_panicking() {
    let (code, stderr) = into_a_closed_pipe(&[
        "plan",
        "--provider",
        "runcrate",
        "--allow-no-delete",
        "--name",
        "train",
        "--nodes",
        "2",
        "--offer-id",
        "offer-h100",
    ]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");

    // A failure keeps its own exit code and its line on stderr when its JSON document
    // cannot be written: never the 0 of a reader that went away.
    let (code, stderr) = into_a_closed_pipe(&[
        "--json",
        "clusters",
        "create",
        "-p",
        "together",
        "-f",
        "tests/fixtures/no-such-file.toml",
    ]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn a_ttl_without_the_ledger_is_refused_before_anything_is_sent() {
    let run = gpucloud(
        &[
            "--no-ledger",
            "clusters",
            "create",
            "-p",
            "together",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "-f",
            "tests/fixtures/together.toml",
            "--ttl",
            "8h",
        ],
        &fake_credentials(),
    );
    run.expect_code(2);
    assert!(run.stderr.contains("--ttl"), "{}", run.stderr);
    assert!(run.stderr.contains("--no-ledger"), "{}", run.stderr);
}

/// A placeholder key (what a newcomer tries first) is refused by name before anything is
/// sent: a value that short could not be told from ordinary words, so it could not be kept
/// out of what is printed (before, `TOGETHER_API_KEY=key` turned the 401 into "Invalid API
/// REDACTED provided … api-REDACTEDs").
#[test]
fn a_credential_too_short_to_keep_out_of_output_is_refused_by_name() {
    for (variable, provider) in [
        ("TOGETHER_API_KEY", "together"),
        ("RUNCRATE_API_KEY", "runcrate"),
        ("E2E_API_KEY", "e2e"),
    ] {
        let mut env = fake_credentials();
        env.retain(|(k, _)| *k != variable);
        env.push((variable, "key".into()));
        let run = gpucloud(
            &[
                "clusters",
                "get",
                "-p",
                provider,
                "--base-url",
                &closed_port_url(),
                "c-1",
            ],
            &env,
        );
        run.expect_code(3);
        assert!(
            run.stderr.contains(variable) && run.stderr.contains("shorter than 8 characters"),
            "{variable}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("REDACTED"), "{}", run.stderr);
    }
}

/// Exit codes by category, as `gpucloud --help` documents them, for every command: a usage
/// mistake is 2, an invalid request or a missing setting is 3 — the same mistake the same
/// code whichever command or path meets it — and `--json` is printed or refused, never
/// ignored.
#[test]
fn every_command_exits_by_category() {
    let url = closed_port_url();
    let p = ["-p", "together", "--base-url", url.as_str()];
    fn with<'a>(args: &[&'a str], p: &[&'a str]) -> Vec<&'a str> {
        args.iter().chain(p).copied().collect()
    }
    // A flag no command has: a usage error, exit 2, on every command.
    for command in COMMANDS {
        let args: Vec<&str> = command.iter().copied().chain(["--no-such-flag"]).collect();
        gpucloud(&args, &no_env()).expect_code(2);
    }
    // (arguments, exit code, whether the run has (fake) credentials)
    let cases: &[(Vec<&str>, i32, bool)] = &[
        // No credentials: a configuration error, nothing sent.
        (with(&["clusters", "get", "c-1"], &p), 3, false),
        (with(&["clusters", "list"], &p), 3, false),
        (with(&["clusters", "delete", "c-1"], &p), 3, false),
        (with(&["clusters", "wait", "c-1"], &p), 3, false),
        (
            with(&["clusters", "resize", "c-1", "--gpus", "16"], &p),
            3,
            false,
        ),
        (with(&["clusters", "kubeconfig", "c-1"], &p), 3, false),
        (with(&["clusters", "ssh", "c-1"], &p), 3, false),
        (vec!["catalog", "-p", "together"], 3, false),
        (
            with(
                &["plan", "--name", "a", "--gpus", "16", "--gpu-model", "H100"],
                &p,
            ),
            3,
            false,
        ),
        // A size Together never takes: invalid (3) from intent and from a resize alike.
        (
            with(
                &["plan", "--name", "a", "--gpus", "12", "--gpu-model", "H100"],
                &p,
            ),
            3,
            true,
        ),
        (
            with(
                &[
                    "clusters",
                    "create",
                    "--name",
                    "a",
                    "--gpus",
                    "12",
                    "--gpu-model",
                    "H100",
                ],
                &p,
            ),
            3,
            true,
        ),
        (
            with(&["clusters", "resize", "c-1", "--gpus", "12"], &p),
            3,
            true,
        ),
        // An id no provider issues: a usage error (the argument's own rule).
        (with(&["clusters", "get", ".."], &p), 2, true),
        // --json where there is no JSON form: refused, never ignored.
        (
            vec!["--json", "clusters", "kubeconfig", "c-1", "-p", "together"],
            2,
            true,
        ),
        (vec!["--json", "completions", "bash"], 2, false),
    ];
    for (args, code, credentials) in cases {
        let env = if *credentials {
            fake_credentials()
        } else {
            no_env()
        };
        let run = gpucloud(args, &env);
        run.expect_code(*code);
    }
}

/// Errors that say why, once, in words a person uses: `any` in a list is explained, a size
/// in the wrong unit names the flag to use (not a Rust type), and a catalog that could not be
/// read is not "no offering matches".
#[test]
fn errors_say_why_in_words_once() {
    let run = gpucloud(
        &["plan", "-p", "any,together", "--name", "a", "--gpus", "16"],
        &fake_credentials(),
    );
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("\"any\" stands alone (it means every provider); to choose some, name them"),
        "{}",
        run.stderr
    );
    // (E2E's --gpus on a resize is turned into nodes: `contract::per_provider_inputs_…`.)
    let run = gpucloud(&["catalog", "-p", "all"], &no_env());
    run.expect_code(3);
    assert!(
        !run.stdout.contains("No offering matches"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr.matches("E2E_API_KEY").count(),
        1,
        "{}",
        run.stderr
    );
}
