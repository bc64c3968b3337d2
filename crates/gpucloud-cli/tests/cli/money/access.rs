//! A cluster after its create: resized (waiting until the new size is reached), and reached
//! (a kubeconfig written private, an SSH command for a node).

use std::time::Duration;

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args, wait_ready};
use crate::simulated::json;

#[test]
fn resize_waits_until_the_new_size_is_reached() {
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "grows");
    wait_ready(&bench, Provider::Together, &together);
    let run = bench.run(
        Provider::Together,
        &[
            "--json",
            "clusters",
            "resize",
            &together,
            "--gpus",
            "24",
            "--wait",
            "--interval",
            "1s",
        ],
    );
    run.expect_code(0);
    assert_eq!(json(&run)["gpu_count"], 24, "{}", run.stdout);

    let e2e = bench.create(Provider::E2e, "grows");
    wait_ready(&bench, Provider::E2e, &e2e);
    let run = bench.run(
        Provider::E2e,
        &[
            "--json",
            "clusters",
            "resize",
            &e2e,
            "--nodes",
            "3",
            "--wait",
            "--interval",
            "1s",
        ],
    );
    run.expect_code(0);
    // E2E counts its GPU nodes in `no_of_nodes`; the login node is listed beside them.
    assert_eq!(json(&run)["raw"]["no_of_nodes"], 3, "{}", run.stdout);
    let gpu_nodes = json(&run)["nodes"]
        .as_array()
        .map(|nodes| nodes.iter().filter(|n| n["id"] != "login").count());
    assert_eq!(gpu_nodes, Some(3), "{}", run.stdout);

    // Rules are checked before anything is sent.
    let invalid = bench.run(
        Provider::Together,
        &["clusters", "resize", &together, "--gpus", "12"],
    );
    invalid.expect_code(3);
    assert!(invalid.stderr.contains("num_gpus"), "{}", invalid.stderr);
    bench
        .run(
            Provider::Runcrate,
            &["clusters", "resize", "x", "--nodes", "3"],
        )
        .expect_code(4);
}

#[cfg(unix)]
#[test]
fn kubeconfig_is_written_private_and_ssh_prints_a_node_s_command() {
    use std::os::unix::fs::PermissionsExt;
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "access");
    let mut ready = create_args(Provider::Together, "access");
    ready.extend(["--wait", "--interval", "1s"].map(str::to_string));
    let ready: Vec<&str> = ready.iter().map(String::as_str).collect();
    bench.run(Provider::Together, &ready).expect_code(0);

    let file = bench.ledger.with_file_name("kubeconfig");
    let file_arg = file.to_string_lossy().into_owned();
    let run = bench.run(
        Provider::Together,
        &["clusters", "kubeconfig", &together, "-o", &file_arg],
    );
    run.expect_code(0);
    let mode = std::fs::metadata(&file).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode.ok(), Some(0o600));
    let written = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(written.contains("apiVersion"), "{written}");
    assert!(
        run.stdout.is_empty() && !run.stderr.contains("apiVersion"),
        "never printed"
    );
    // Piped (not a terminal), it goes to stdout as it is.
    let piped = bench.run(Provider::Together, &["clusters", "kubeconfig", &together]);
    piped.expect_code(0);
    assert_eq!(piped.stdout, written);

    let runcrate = bench.create(Provider::Runcrate, "access");
    bench.sim.sim().clock().advance(Duration::from_secs(3600));
    wait_ready(&bench, Provider::Runcrate, &runcrate);
    let ssh = bench.run(Provider::Runcrate, &["clusters", "ssh", &runcrate]);
    ssh.expect_code(0);
    assert!(ssh.stdout.starts_with("ssh ubuntu@"), "{}", ssh.stdout);
    let node = bench.run(
        Provider::Runcrate,
        &["clusters", "ssh", &runcrate, "--node", "9"],
    );
    node.expect_code(3);
    assert!(node.stderr.contains("its nodes are 0: "), "{}", node.stderr);

    // `-- CMD ARGS` runs on a GPU worker (Together lists its control plane first), and the
    // remote exit status is gpucloud's: a fake `ssh` records its words and exits 7.
    let bin = tempfile::tempdir().unwrap();
    let words = bin.path().join("words");
    let fake = bin.path().join("ssh");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nfor w in \"$@\"; do printf '%s\\n' \"$w\" >> '{}'; done\nexit 7\n",
            words.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut env = bench.env();
    env.push(("PATH", format!("{}:/usr/bin:/bin", bin.path().display())));
    // What runs ssh has the node's output on stdout, not a JSON document: refused, and ssh
    // is never started.
    let json_run = crate::support::gpucloud(
        &[
            "--json", "clusters", "ssh", &together, "-p", "together", "--", "true",
        ],
        &env,
    );
    json_run.expect_code(2);
    assert_eq!(
        crate::simulated::json(&json_run)["error"]["kind"],
        "usage",
        "{}",
        json_run.stdout
    );
    assert!(!words.exists(), "ssh ran");
    let run = crate::support::gpucloud(
        &[
            "clusters",
            "ssh",
            &together,
            "--provider",
            "together",
            "--",
            "nvidia-smi",
            "-L",
        ],
        &env,
    );
    run.expect_code(7);
    let sent = std::fs::read_to_string(&words).unwrap_or_default();
    let sent: Vec<&str> = sent.lines().collect();
    assert_eq!(
        sent[sent.len() - 3..],
        ["--", "nvidia-smi", "-L"],
        "{sent:?}"
    );
    let got = bench.run(
        Provider::Together,
        &["--json", "clusters", "get", &together],
    );
    let cluster = crate::simulated::json(&got);
    let workers: Vec<String> = cluster["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["gpus"].as_u64().is_some_and(|g| g > 0))
        .filter_map(|n| n["public_ip"].as_str().map(str::to_string))
        .collect();
    let destination = sent[sent.len() - 4];
    assert!(
        workers.iter().any(|w| destination.ends_with(w.as_str())),
        "{destination} is not a GPU worker of {workers:?}"
    );
}
