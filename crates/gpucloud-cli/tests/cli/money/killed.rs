//! A CLI killed (SIGKILL) at every step of a create: the next run with the same request finds
//! or takes over what the dead one left, and never makes a second cluster.

use std::process::Stdio;
use std::time::{Duration, Instant};

use gpucloud_sim::{Fault, FaultKind, Provider};

use super::bench::{Bench, PROVIDERS, create_args, name_of};
use crate::support::command;

/// Where a create is killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KillAt {
    /// While it looks the name up, before its POST (Together, E2E).
    BeforePost,
    /// After the provider made the cluster, before its answer arrived.
    AfterPost,
    /// After the create's answer, while waiting for the cluster to be ready.
    Waiting,
}

/// Starts `gpucloud clusters create … --wait`, kills it (SIGKILL) at `at`, and returns once
/// it is dead.
fn kill_create_at(bench: &Bench, provider: Provider, name: &str, at: KillAt) {
    let faults = bench.sim.sim().faults();
    let slow = FaultKind::Slow {
        delay: Duration::from_secs(30),
    };
    match at {
        KillAt::BeforePost => faults.inject(Fault::new(provider, slow).on("list_clusters")),
        KillAt::AfterPost => faults.inject(Fault::new(provider, slow).on("create_cluster")),
        KillAt::Waiting => faults.inject(Fault::new(provider, slow).on("get_cluster")),
    }
    let mut args = create_args(provider, name);
    args.extend(["--wait", "--provider", name_of(provider)].map(str::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut command, _ledger) = command(&args, &bench.env());
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // The moment to kill: the slowed request has reached the simulator.
    let operation = match at {
        KillAt::BeforePost => "list_clusters",
        KillAt::AfterPost => "create_cluster",
        KillAt::Waiting => "get_cluster",
    };
    let started = Instant::now();
    while !bench.sim.sim().exchanges().iter().any(|e| {
        e.provider == Some(provider)
            && e.operation.as_deref() == Some(operation)
            && e.fault.is_some()
    }) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{operation} never came"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    faults.clear();
}

#[test]
fn a_cli_killed_at_any_step_of_a_create_leaves_what_the_next_run_needs_to_never_double() {
    let bench = Bench::new();
    let mut figures = Vec::new();
    for provider in PROVIDERS {
        for at in [KillAt::BeforePost, KillAt::AfterPost, KillAt::Waiting] {
            // Runcrate sends nothing before its POST.
            if provider == Provider::Runcrate && at == KillAt::BeforePost {
                continue;
            }
            let name = format!("killed-{}", figures.len());
            let posts_before = bench.creates_sent(provider);
            kill_create_at(&bench, provider, &name, at);
            let made = bench.clusters_named(provider, &name);
            assert_eq!(
                made,
                usize::from(at != KillAt::BeforePost),
                "{provider:?} {at:?}"
            );
            // The ledger knows of the create whatever the step.
            let entries = bench.ledger_json(true);
            assert!(
                entries.iter().any(|e| e["name"] == name.as_str()),
                "{provider:?} {at:?}: {entries:?}"
            );

            // The next run, same request: one cluster in the end, ready.
            // A create killed before its POST left a claim the re-run takes over: it looks
            // for the name over the rest of the settle window before it sends (the dead run
            // may have sent its request just before it died), here a short one.
            let mut args = create_args(provider, &name);
            args.extend(
                ["--wait", "--interval", "1s", "--settle-window", "4s"].map(str::to_string),
            );
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let started = std::time::Instant::now();
            let next = bench.run(provider, &args);
            next.expect_code(0);
            if at == KillAt::BeforePost {
                assert!(
                    started.elapsed() >= std::time::Duration::from_secs(3),
                    "{provider:?}: the taken-over create looked before it sent"
                );
            }
            assert_eq!(
                bench.clusters_named(provider, &name),
                1,
                "{provider:?} {at:?}"
            );
            let posts = bench.creates_sent(provider) - posts_before;
            let found =
                next.stdout.contains("Found existing") || next.stdout.contains("found by name");
            assert_eq!(
                found,
                at != KillAt::BeforePost,
                "{provider:?} {at:?}: {}",
                next.stdout
            );
            // No intent of that name is left unresolved.
            let unresolved: Vec<_> = bench
                .ledger_json(true)
                .into_iter()
                .filter(|e| e["name"] == name.as_str())
                .filter(|e| e["state"] == "pending" || e["state"] == "failed_ambiguous")
                .collect();
            assert!(unresolved.is_empty(), "{provider:?} {at:?}: {unresolved:?}");
            // Together and E2E: the re-run finds the name, one POST in all. Runcrate killed
            // after its POST: the re-run takes the dead run's claim over and sends its key
            // again, answered with its cluster; killed while waiting: the ledger already
            // holds the cluster, which the re-run gets without a POST.
            let expected = if provider == Provider::Runcrate && at == KillAt::AfterPost {
                2
            } else {
                1
            };
            assert_eq!(posts, expected, "{provider:?} {at:?}");
            figures.push((provider, at, posts));
        }
    }
    println!("killed at | provider | POSTs over both runs | clusters in the end");
    for (provider, at, posts) in &figures {
        println!("{at:?} | {} | {posts} | 1", name_of(*provider));
    }
    assert_eq!(figures.len(), 8);
}
