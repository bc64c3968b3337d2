//! A CLI killed (SIGKILL) at every step of a create: the next run with the same request finds
//! or takes over what the dead one left, and never makes a second cluster.

use std::process::Stdio;
use std::time::{Duration, Instant};

use gpucloud_sim::{Fault, FaultKind, Provider};

use super::bench::{Bench, PROVIDERS, create_args, name_of};
use crate::support::command;

/// Where a create is killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KillAt {
    /// While it looks the name up, before its POST (Together, E2E).
    BeforePost,
    /// After the provider made the cluster, before its answer arrived.
    AfterPost,
    /// After the create's answer, while waiting for the cluster to be ready.
    Waiting,
}

/// How a create is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// SIGKILL: no chance to say anything.
    Kill,
    /// A signal the CLI answers (`INT`, `TERM`).
    Signal(&'static str),
}

/// Starts `gpucloud clusters create … --wait`, stops it at `at` as `how` says, and returns
/// once it is dead, with its exit code and stderr.
fn stop_create_at(
    bench: &Bench,
    provider: Provider,
    name: &str,
    at: KillAt,
    how: Stop,
) -> (Option<i32>, String) {
    stop_create_with(bench, provider, name, &[], at, how)
}

/// [`stop_create_at`] with `extra` flags on the create (a `--ttl`).
fn stop_create_with(
    bench: &Bench,
    provider: Provider,
    name: &str,
    extra: &[&str],
    at: KillAt,
    how: Stop,
) -> (Option<i32>, String) {
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
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut command, _ledger) = command(&args, &bench.env());
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // The moment to stop it: the slowed request has reached the simulator.
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
    match how {
        Stop::Kill => {
            let _ = child.kill();
        }
        Stop::Signal(signal) => {
            let sent = std::process::Command::new("kill")
                .args([format!("-{signal}"), child.id().to_string()])
                .status()
                .unwrap_or_else(|e| panic!("kill: {e}"));
            assert!(sent.success(), "kill -{signal} failed");
        }
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    faults.clear();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn kill_create_at(bench: &Bench, provider: Provider, name: &str, at: KillAt) {
    stop_create_at(bench, provider, name, at, Stop::Kill);
}

/// Kills (SIGKILL) `gpucloud clusters create … --wait` with `extra` flags at `at`.
pub(super) fn kill_create_with(
    bench: &Bench,
    provider: Provider,
    name: &str,
    extra: &[&str],
    at: KillAt,
) {
    stop_create_with(bench, provider, name, extra, at, Stop::Kill);
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

#[test]
fn an_interrupted_create_says_what_bills_and_how_to_stop_it_and_exits_as_the_signal_says() {
    let bench = Bench::new();
    let mut cases = 0;
    for provider in PROVIDERS {
        for at in [KillAt::BeforePost, KillAt::AfterPost, KillAt::Waiting] {
            if provider == Provider::Runcrate && at == KillAt::BeforePost {
                continue;
            }
            // Ctrl-C before the POST, SIGTERM (a CI runner cancelling the job) after it, and
            // SIGHUP (the terminal closed) while waiting: each says what bills.
            let (signal, code) = match at {
                KillAt::BeforePost => ("INT", 130),
                KillAt::AfterPost => ("TERM", 143),
                KillAt::Waiting => ("HUP", 129),
            };
            let name = format!("interrupted-{cases}");
            cases += 1;
            let (exit, stderr) = stop_create_at(&bench, provider, &name, at, Stop::Signal(signal));
            assert_eq!(exit, Some(code), "{provider:?} {at:?}: {stderr}");
            assert!(
                stderr.contains(&format!("SIG{signal}: interrupted; stopped waiting.")),
                "{provider:?} {at:?}: {stderr}"
            );
            if at == KillAt::Waiting {
                let id = bench
                    .sim
                    .sim()
                    .clusters(provider)
                    .into_iter()
                    .find(|c| c.name == name)
                    .map(|c| c.id)
                    .unwrap_or_else(|| panic!("{provider:?}: no cluster"));
                assert!(
                    stderr.contains(&format!(
                        "{} cluster {id} ({name}) exists and is billing.",
                        name_of(provider)
                    )),
                    "{provider:?}: {stderr}"
                );
                let stop = if provider == Provider::Runcrate {
                    "stop it in the Runcrate dashboard".to_string()
                } else {
                    format!(
                        "Delete it with `gpucloud clusters delete -p {} --wait {id}`.",
                        name_of(provider)
                    )
                };
                assert!(stderr.contains(&stop), "{provider:?}: {stderr}");
            } else {
                assert!(
                    stderr.contains(&format!("the create of {name} had not been answered")),
                    "{provider:?} {at:?}: {stderr}"
                );
            }
            // The ledger is left consistent: the same create again ends with one cluster.
            let mut args = create_args(provider, &name);
            args.extend(["--settle-window", "4s"].map(str::to_string));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            bench.run(provider, &args).expect_code(0);
            assert_eq!(
                bench.clusters_named(provider, &name),
                1,
                "{provider:?} {at:?}"
            );
        }
    }
    assert_eq!(cases, 8);
}
