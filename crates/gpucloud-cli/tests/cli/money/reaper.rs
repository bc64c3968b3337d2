//! The reaper (`clusters sweep --expired --delete --watch`) end to end: a cluster created with
//! a `--ttl`, the simulator's time sped up, two reapers running at once over one ledger; the
//! cluster is deleted once, verified gone, and SIGTERM ends each reaper between sweeps.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args};
use crate::support::command;

fn start_reaper(bench: &Bench) -> Child {
    let (mut reaper, _ledger) = command(
        &[
            "--json",
            "clusters",
            "sweep",
            "--expired",
            "--delete",
            "--yes",
            "--watch",
            "1s",
            "--interval",
            "1s",
        ],
        &bench.env(),
    );
    reaper
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// SIGTERM, then the reaper's exit code, its JSON lines and its stderr.
fn stop(child: Child) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(sent.success());
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let lines = BufReader::new(output.stdout.as_slice())
        .lines()
        .map(|l| {
            let l = l.unwrap_or_else(|e| panic!("{e}"));
            serde_json::from_str(&l).unwrap_or_else(|e| panic!("not a JSON line: {e}: {l}"))
        })
        .collect();
    (
        output.status.code(),
        lines,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn two_reapers_delete_an_expired_cluster_once_and_stop_on_sigterm() {
    let bench = Bench::new();
    let mut args = create_args(Provider::Together, "reaped");
    args.extend(["--ttl", "2s", "--json", "--provider", "together"].map(str::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let created = crate::support::gpucloud(&args, &bench.env());
    created.expect_code(0);
    let id = crate::simulated::json(&created)["cluster"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let reapers = [start_reaper(&bench), start_reaper(&bench)];

    let started = Instant::now();
    let alive = || {
        bench
            .sim
            .sim()
            .clusters(Provider::Together)
            .iter()
            .any(|c| c.id == id && c.status != "DELETED")
    };
    while alive() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the reapers never deleted it"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A sweep more each, after the delete, then SIGTERM.
    std::thread::sleep(Duration::from_millis(2500));
    let mut deleted = 0;
    for reaper in reapers {
        let (code, lines, stderr) = stop(reaper);
        assert_eq!(
            code,
            Some(0),
            "a reaper stopped on purpose exits 0: {stderr}"
        );
        assert!(stderr.contains("SIGTERM"), "it says why it stops: {stderr}");
        assert!(lines.len() >= 2, "one line per sweep: {lines:?}");
        for (n, line) in lines.iter().enumerate() {
            assert_eq!(line["sweep"], n + 1, "{line}");
            assert_eq!(line["complete"], true, "{line}");
            for row in line["clusters"].as_array().cloned().unwrap_or_default() {
                if row["cluster_id"] == id.as_str() && row["action"] == "deleted" {
                    deleted += 1;
                }
            }
        }
    }
    assert_eq!(deleted, 1, "deleted by one reaper, once");
    let deletes = bench
        .sim
        .sim()
        .exchanges()
        .iter()
        .filter(|e| e.method == "DELETE" && e.path.ends_with(id.as_str()))
        .count();
    assert_eq!(deletes, 1, "one DELETE for the cluster");
    let entries = bench.ledger_json(true);
    assert!(entries[0]["gone_at"].is_string(), "{entries:?}");
}
