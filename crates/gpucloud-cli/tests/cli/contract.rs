//! The command line as one contract: each exit code of the README's table is what its
//! condition gives, whatever the command; the default output carries no library log line;
//! a credential variable that is not text is named as such; the aliases work; a delete asks on
//! a terminal and never on a pipe.

use std::collections::BTreeSet;
use std::time::Duration;

use gpucloud_sim::Provider;

use crate::simulated::{TestSim, json, sim_credentials};
use crate::support::{command, gpucloud, on_a_terminal};

/// The codes of the README's exit-code table, each as a number.
fn documented_codes() -> BTreeSet<i32> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .unwrap_or_else(|e| panic!("README: {e}"));
    let table = readme
        .split("## Exit codes")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("no exit-code section"));
    table
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .flat_map(|codes| codes.split(", ").map(str::to_string).collect::<Vec<_>>())
        .filter_map(|code| code.trim().parse().ok())
        .collect()
}

/// A Together cluster made on the simulator (its clock frozen: it stays provisioning).
fn provisioning(sim: &TestSim, name: &str) -> String {
    let run = sim.run(
        Provider::Together,
        &[
            "--json",
            "clusters",
            "create",
            "--name",
            name,
            "--gpus",
            "8",
            "--gpu-model",
            "H100_SXM",
            "--region",
            "us-central-8",
            "--nvidia-version-id",
            "cuda-12.8-driver-570",
        ],
    );
    crate::simulated::created_id(&run)
}

/// `gpucloud clusters wait` on `id`, ended by `signal` once it waits; its exit code.
fn interrupted_wait(sim: &TestSim, id: &str, signal: &str) -> Option<i32> {
    let env = sim.env();
    let (mut command, _ledger) = command(
        &["clusters", "wait", "-p", "together", id, "--timeout", "1h"],
        &env,
    );
    let polls = || {
        sim.sim()
            .exchanges()
            .iter()
            .filter(|e| e.operation.as_deref() == Some("get_cluster"))
            .count()
    };
    let before = polls();
    let mut child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // The wait is under way once its first poll has been answered.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while polls() == before && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -{signal}");
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    status.code()
}

#[test]
fn each_exit_code_of_the_readme_means_its_condition_and_a_test_reaches_it() {
    let sim = TestSim::start();
    let id = provisioning(&sim, "coded");
    let mut reached = BTreeSet::new();
    let mut expect = |code: i32, run: &crate::support::Run| {
        run.expect_code(code);
        reached.insert(code);
    };
    // 0: success.
    expect(0, &sim.run(Provider::Together, &["clusters", "get", &id]));
    // 1: a network that does not answer.
    expect(
        1,
        &gpucloud(
            &[
                "clusters",
                "get",
                "-p",
                "together",
                "--base-url",
                "http://127.0.0.1:9",
                "c-1",
            ],
            &sim_credentials(),
        ),
    );
    // 2: a flag no command has.
    expect(2, &gpucloud(&["clusters", "list", "--colour"], &[]));
    // 3: an invalid request, before anything is sent.
    expect(
        3,
        &sim.run(
            Provider::Together,
            &[
                "plan",
                "--name",
                "x",
                "--gpus",
                "7",
                "--gpu-model",
                "H100_SXM",
            ],
        ),
    );
    // 4: not found is one code with a provider and without one.
    let with = sim.run(
        Provider::Together,
        &["--json", "clusters", "get", "no-such-cluster"],
    );
    expect(4, &with);
    let env = sim.env();
    let without = gpucloud(&["--json", "clusters", "get", "no-such-cluster"], &env);
    expect(4, &without);
    assert_eq!(json(&with)["error"]["kind"], "not_found", "{}", with.stdout);
    assert_eq!(
        json(&without)["error"]["kind"],
        "not_found",
        "{}",
        without.stdout
    );
    // 5: a wait that times out.
    expect(
        5,
        &sim.run(
            Provider::Together,
            &[
                "clusters",
                "wait",
                &id,
                "--timeout",
                "1s",
                "--interval",
                "1s",
            ],
        ),
    );
    // 6: a confirmation declined on a terminal; nothing is sent.
    let (code, shown) = on_a_terminal(&["clusters", "delete", "-p", "together", &id], &env, "n\n");
    assert_eq!(code, Some(6), "{shown}");
    assert!(shown.contains("not confirmed: nothing was sent"), "{shown}");
    reached.insert(6);
    // 129, 130, 143: SIGHUP, SIGINT and SIGTERM while waiting.
    for (signal, code) in [("HUP", 129), ("INT", 130), ("TERM", 143)] {
        assert_eq!(
            interrupted_wait(&sim, &id, signal),
            Some(code),
            "SIG{signal}"
        );
        reached.insert(code);
    }
    assert_eq!(
        reached,
        documented_codes(),
        "the README's table and the codes reached"
    );
}

#[test]
fn library_log_lines_are_off_by_default_and_shown_with_v() {
    let sim = TestSim::start();
    // A dropped answer to the create: the facade logs that it looks the name up.
    sim.sim().faults().inject(
        gpucloud_sim::Fault::new(Provider::Together, gpucloud_sim::FaultKind::DropConnection)
            .on("create_cluster"),
    );
    let create = [
        "clusters",
        "create",
        "--name",
        "quiet",
        "--gpus",
        "8",
        "--gpu-model",
        "H100_SXM",
        "--region",
        "us-central-8",
        "--nvidia-version-id",
        "cuda-12.8-driver-570",
        "--settle-window",
        "0s",
    ];
    let quiet = sim.run(Provider::Together, &create);
    quiet.expect_code(0);
    assert!(
        !quiet.stderr.contains("gpucloud::"),
        "a library log line at the default verbosity: {}",
        quiet.stderr
    );
    sim.sim().faults().inject(
        gpucloud_sim::Fault::new(Provider::Together, gpucloud_sim::FaultKind::DropConnection)
            .on("create_cluster"),
    );
    let verbose = sim.run(
        Provider::Together,
        &[&["-v"][..], &create[..]]
            .concat()
            .iter()
            .map(|s| match *s {
                "quiet" => "loud",
                other => other,
            })
            .collect::<Vec<_>>(),
    );
    verbose.expect_code(0);
    assert!(
        verbose.stderr.contains("WARN gpucloud::"),
        "-v shows the library's warnings: {}",
        verbose.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_credential_variable_that_is_not_utf8_is_named_as_such() {
    use std::os::unix::ffi::OsStrExt as _;
    let (mut command, _ledger) = command(&["clusters", "list", "-p", "together"], &[]);
    let output = command
        .env(
            "TOGETHER_API_KEY",
            std::ffi::OsStr::from_bytes(b"tg-\xff\xfe-key"),
        )
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("TOGETHER_API_KEY: is set, but not to valid UTF-8 text"),
        "{stderr}"
    );
}

#[test]
fn ls_and_rm_are_list_and_delete() {
    let sim = TestSim::start();
    let id = provisioning(&sim, "aliased");
    let listed = sim.run(Provider::Together, &["--json", "clusters", "ls"]);
    listed.expect_code(0);
    assert!(listed.stdout.contains(&id), "{}", listed.stdout);
    // On a pipe a delete never asks.
    let removed = sim.run(Provider::Together, &["clusters", "rm", &id]);
    removed.expect_code(0);
    assert!(
        removed.stdout.contains("Deleted together cluster"),
        "{}",
        removed.stdout
    );
    assert!(!removed.stderr.contains("[y/N]"), "{}", removed.stderr);
}

#[test]
fn a_delete_on_a_terminal_shows_the_cluster_and_its_cost_and_asks() {
    let sim = TestSim::start();
    let id = provisioning(&sim, "asked");
    let env = sim.env();
    let (code, shown) = on_a_terminal(&["clusters", "delete", "asked"], &env, "n\n");
    assert_eq!(code, Some(6), "{shown}");
    assert!(
        shown.contains(&format!("together cluster {id} (asked): provisioning")),
        "{shown}"
    );
    assert!(
        shown.contains("cost so far unknown: the provider states no price"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("Delete together cluster {id}? [y/N]")),
        "{shown}"
    );
    assert_eq!(sim.sim().clusters(Provider::Together).len(), 1, "kept");
    let (code, shown) = on_a_terminal(&["clusters", "delete", "asked", "--yes"], &env, "");
    assert_eq!(code, Some(0), "{shown}");
    assert!(!shown.contains("[y/N]"), "--yes asks nothing: {shown}");
}

#[test]
fn a_create_that_found_its_cluster_says_found_on_both_streams_and_in_json() {
    let sim = TestSim::start();
    let mut env = sim.env();
    let ledger = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    env.push((
        "GPUCLOUD_LEDGER",
        ledger.path().join("l.sqlite3").display().to_string(),
    ));
    let create = [
        "clusters",
        "create",
        "-p",
        "together,runcrate",
        "--allow-no-delete",
        "--gpu-model",
        "H100",
        "--gpus",
        "16",
        "--name",
        "twice",
    ];
    let first = gpucloud(&[&["--json"][..], &create[..]].concat(), &env);
    first.expect_code(0);
    assert_eq!(json(&first)["outcome"], "created", "{}", first.stdout);
    let again = gpucloud(&[&["--json"][..], &create[..]].concat(), &env);
    again.expect_code(0);
    let document = json(&again);
    assert_eq!(document["outcome"], "already_existed", "{}", again.stdout);
    let made: Vec<&str> = document["placement"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", again.stdout))
        .iter()
        .filter_map(|a| a["outcome"].as_str())
        .filter(|o| !matches!(*o, "not_tried" | "skipped" | "refused"))
        .collect();
    assert_eq!(made, ["found"], "{}", again.stdout);
    assert!(
        again
            .stderr
            .contains("found the cluster an earlier create made (nothing new started)"),
        "{}",
        again.stderr
    );
    assert!(
        !again.stderr.contains("created the cluster"),
        "{}",
        again.stderr
    );
    // The same in words: the headline and the attempt line agree.
    let human = gpucloud(&create, &env);
    human.expect_code(0);
    assert!(human.stdout.contains("Found existing"), "{}", human.stdout);
    assert!(
        !human.stderr.contains("created the cluster"),
        "{}",
        human.stderr
    );
    assert_eq!(
        sim.sim().clusters(Provider::Together).len(),
        1,
        "one cluster"
    );
}

#[test]
fn per_provider_inputs_are_named_in_the_users_words_and_gpus_work_where_nodes_do() {
    let sim = TestSim::start_scaled(0.0);
    // A value never given is missing (not "got 0"), and the error names the flag and the
    // configuration key that set it.
    let missing = sim.run(
        Provider::E2e,
        &[
            "clusters",
            "create",
            "--name",
            "words",
            "--gpu-model",
            "H100",
            "--nodes",
            "2",
            "--ssh-key",
            "1",
            "--yes",
        ],
    );
    missing.expect_code(3);
    assert!(
        missing.stderr.contains("security_group_id: is missing"),
        "{}",
        missing.stderr
    );
    assert!(
        missing.stderr.contains(
            "set security_group_id with --security-group-id, or `security_group_id` in the \
             configuration file's [e2e]"
        ),
        "{}",
        missing.stderr
    );
    assert!(!missing.stderr.contains("got 0"), "{}", missing.stderr);
    assert!(sim.sim().exchanges().iter().all(|e| e.method != "POST"));

    // --gpus where --nodes works: E2E takes whole nodes of the cluster's GPUs per node.
    let made = sim.run(
        Provider::E2e,
        &[
            "--json",
            "clusters",
            "create",
            "--name",
            "grows",
            "--gpu-model",
            "H100",
            "--nodes",
            "2",
            "--ssh-key",
            "1",
            "--security-group-id",
            "1",
        ],
    );
    let id = crate::simulated::created_id(&made);
    sim.advance(Duration::from_secs(3600));
    let exact = sim.run(Provider::E2e, &["clusters", "resize", &id, "--gpus", "24"]);
    exact.expect_code(0);
    assert!(
        exact
            .stderr
            .contains("24 GPUs on e2e is 3 nodes of 8 GPUs."),
        "{}",
        exact.stderr
    );
    sim.advance(Duration::from_secs(3600));
    let rounded = sim.run(Provider::E2e, &["clusters", "resize", &id, "--gpus", "28"]);
    rounded.expect_code(0);
    assert!(
        rounded
            .stderr
            .contains("28 GPUs on e2e is 4 nodes of 8 GPUs, 32 GPUs: rounded up to whole nodes."),
        "{}",
        rounded.stderr
    );
    sim.advance(Duration::from_secs(3600));
    let got = sim.run(Provider::E2e, &["--json", "clusters", "get", &id]);
    got.expect_code(0);
    assert_eq!(json(&got)["gpu_count"], 32, "{}", got.stdout);
}

/// What a terminal shows of `raw`: each line as it is left once its carriage returns have
/// overwritten it, without the escape sequences that draw the spinner.
fn as_shown(raw: &str) -> String {
    let escapes = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap_or_else(|e| panic!("{e}"));
    let text = escapes.replace_all(raw, "");
    text.split('\n')
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            line.rsplit('\r')
                .next()
                .unwrap_or_default()
                .trim_end()
                .to_string()
        })
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A session on a terminal, recorded as the person saw it: a create that shows where the
/// cluster goes and what it costs and asks, a wait with its progress, the commands that reach
/// and stop the cluster, and a delete that shows the cluster and asks.
#[test]
fn a_session_on_a_terminal_is_the_golden_transcript() {
    let sim = TestSim::start_scaled(60.0);
    let mut env = sim.env();
    let ledger = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    env.push((
        "GPUCLOUD_LEDGER",
        ledger.path().join("l.sqlite3").display().to_string(),
    ));
    let mut transcript = String::new();
    for (args, typed, code) in [
        (
            &[
                "clusters",
                "create",
                "-p",
                "together",
                "--gpu-model",
                "H100_SXM",
                "--gpus",
                "8",
                "--region",
                "us-central-8",
                "--name",
                "tty-1",
                "--ttl",
                "2h",
                "--wait",
                "--interval",
                "1s",
            ][..],
            "y\n",
            0,
        ),
        (
            &["clusters", "delete", "tty-1", "--wait", "--interval", "1s"][..],
            "y\n",
            0,
        ),
    ] {
        let (exit, shown) = on_a_terminal(args, &env, typed);
        assert_eq!(exit, Some(code), "{shown}");
        transcript.push_str(&format!("$ gpucloud {}\n", args.join(" ")));
        transcript.push_str(&as_shown(&shown));
    }
    // What depends on the machine's speed: the progress lines before a wait's last one (which
    // phases a poll happened to see), how long the real waits took, and the age of a cluster
    // the simulator's clock dated.
    let normalized = crate::support::normalize(&transcript);
    let lines: Vec<&str> = normalized.lines().collect();
    let mut kept = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let progress = |l: &str| l.starts_with("[<ELAPSED>]");
        if progress(line) && lines.get(i + 1).is_some_and(|next| progress(next)) {
            continue;
        }
        kept.push(*line);
    }
    let volatile = [
        (r"Waited [0-9hms]+\.", "Waited <DURATION>."),
        (r"gone after [0-9hms]+\.", "gone after <DURATION>."),
        (r"\): (\w+), for [0-9hms]+;", "): $1, for <AGE>;"),
    ];
    let mut shown = kept.join("\n") + "\n";
    for (pattern, replacement) in volatile {
        let pattern = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{e}"));
        shown = pattern.replace_all(&shown, replacement).into_owned();
    }
    crate::support::assert_golden("tty_session", &shown);
}
