//! Money safety through the real binary, against a simulator running faster than real time:
//! verified deletes, failed creates cleaned up, the ledger across processes, resize, access,
//! the sweep — and a CLI killed at every step of a create, after which the next run finds the
//! cluster and never creates a second one.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use gpucloud_sim::{Fault, FaultKind, Provider};

use crate::simulated::{TestSim, json, sim_credentials};
use crate::support::{Run, command, gpucloud};

/// Simulated seconds per real second: a Together cluster is ready in about 2 s.
const SCALE: f64 = 300.0;

const PROVIDERS: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];

fn name_of(provider: Provider) -> &'static str {
    match provider {
        Provider::Together => "together",
        Provider::Runcrate => "runcrate",
        Provider::E2e => "e2e",
    }
}

/// `clusters create` flags that pass `provider`'s rules, for a cluster called `name`.
fn create_args(provider: Provider, name: &str) -> Vec<String> {
    let rest: &[&str] = match provider {
        Provider::Together => &[
            "--gpus",
            "16",
            "--gpu-model",
            "H100_SXM",
            "--region",
            "us-central-8",
            "--nvidia-version-id",
            "cuda-12.8-driver-570",
        ],
        Provider::Runcrate => &["--nodes", "2", "--offer-id", "offer-h100-sxm-8x"],
        Provider::E2e => &[
            "--nodes",
            "2",
            "--ssh-key",
            "101",
            "--image-version-id",
            "2",
            "--sku-id",
            "201",
            "--sku-item-price-id",
            "811",
            "--security-group-id",
            "1",
        ],
    };
    ["clusters", "create", "--name", name]
        .into_iter()
        .chain(rest.iter().copied())
        .map(str::to_string)
        .collect()
}

/// A simulator and a ledger shared by every run of one test.
struct Bench {
    sim: TestSim,
    _dir: tempfile::TempDir,
    ledger: PathBuf,
}

impl Bench {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let ledger = dir.path().join("ledger.sqlite3");
        Self {
            sim: TestSim::start_scaled(SCALE),
            _dir: dir,
            ledger,
        }
    }

    /// The environment of a run: the simulator's credentials and endpoints, and the ledger.
    fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = sim_credentials();
        env.push((
            "GPUCLOUD_LEDGER",
            self.ledger.to_string_lossy().into_owned(),
        ));
        for provider in PROVIDERS {
            let variable = match provider {
                Provider::Together => "TOGETHER_BASE_URL",
                Provider::Runcrate => "RUNCRATE_BASE_URL",
                Provider::E2e => "E2E_BASE_URL",
            };
            env.push((variable, self.sim.sim().base_url(provider)));
        }
        env
    }

    /// `gpucloud args… --provider P` (every endpoint from the environment).
    fn run(&self, provider: Provider, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--provider", name_of(provider)]);
        gpucloud(&all, &self.env())
    }

    /// `gpucloud args…` without a provider (ledger, sweep).
    fn run_plain(&self, args: &[&str]) -> Run {
        gpucloud(args, &self.env())
    }

    /// Creates a cluster (`--json`) and returns its id.
    fn create(&self, provider: Provider, name: &str) -> String {
        let args = create_args(provider, name);
        let mut all: Vec<&str> = vec!["--json"];
        all.extend(args.iter().map(String::as_str));
        let run = self.run(provider, &all);
        run.expect_code(0);
        json(&run)["cluster"]["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{}", run.stdout))
    }

    fn creates_sent(&self, provider: Provider) -> usize {
        self.sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| {
                e.provider == Some(provider) && e.operation.as_deref() == Some("create_cluster")
            })
            .count()
    }

    fn clusters_named(&self, provider: Provider, name: &str) -> usize {
        self.sim
            .sim()
            .clusters(provider)
            .iter()
            .filter(|c| c.name == name)
            .count()
    }

    fn ledger_json(&self, all: bool) -> Vec<serde_json::Value> {
        let mut args = vec!["--json", "ledger"];
        if all {
            args.push("--all");
        }
        let run = self.run_plain(&args);
        run.expect_code(0);
        json(&run).as_array().cloned().unwrap_or_default()
    }
}

#[test]
fn delete_wait_returns_once_the_cluster_is_gone_and_again_says_it_was_already_gone() {
    let bench = Bench::new();
    for provider in [Provider::Together, Provider::E2e] {
        let id = bench.create(provider, "short-lived");
        let run = bench.run(
            provider,
            &["clusters", "delete", &id, "--wait", "--interval", "1s"],
        );
        run.expect_code(0);
        assert!(
            run.stdout.contains("the provider confirmed it gone after"),
            "{}",
            run.stdout
        );
        assert_eq!(
            bench.clusters_named(provider, "short-lived"),
            0,
            "gone at the provider"
        );

        let again = bench.run(provider, &["--json", "clusters", "delete", &id, "--wait"]);
        again.expect_code(0);
        assert_eq!(json(&again)["already_gone"], true, "{}", again.stdout);
    }
    // Both deletes are in the ledger, and nothing it knows of may still be billing.
    assert!(bench.ledger_json(false).is_empty());
    let all = bench.ledger_json(true);
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|e| e["gone_at"].is_string()), "{all:?}");
}

#[test]
fn create_wait_deletes_a_cluster_that_fails_and_keeps_it_when_asked() {
    let bench = Bench::new();
    for provider in [Provider::Together, Provider::E2e] {
        let faults = bench.sim.sim().faults();
        faults.inject(Fault::new(provider, FaultKind::FailProvisioning));
        let mut args = create_args(provider, "doomed");
        args.extend(["--wait", "--interval", "1s"].map(str::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = bench.run(provider, &args);
        run.expect_code(5);
        assert!(
            run.stderr
                .contains("was deleted; the provider confirmed it gone after"),
            "{}",
            run.stderr
        );
        assert_eq!(bench.clusters_named(provider, "doomed"), 0);

        faults.inject(Fault::new(provider, FaultKind::FailProvisioning));
        let mut kept_args = create_args(provider, "doomed-kept");
        kept_args.extend(["--wait", "--interval", "1s", "--keep-on-failure"].map(str::to_string));
        let kept_args: Vec<&str> = kept_args.iter().map(String::as_str).collect();
        let kept = bench.run(provider, &kept_args);
        kept.expect_code(5);
        assert!(
            kept.stderr.contains("was kept and may be billing"),
            "{}",
            kept.stderr
        );
        assert!(
            kept.stderr.contains("clusters delete -p"),
            "{}",
            kept.stderr
        );
        assert_eq!(bench.clusters_named(provider, "doomed-kept"), 1);
    }
}

#[test]
fn the_ledger_lists_a_runcrate_cluster_created_by_an_earlier_process() {
    let bench = Bench::new();
    let id = bench.create(Provider::Runcrate, "listed-nowhere-else");

    let table = bench.run_plain(&["ledger"]);
    table.expect_code(0);
    let line = table
        .stdout
        .lines()
        .find(|l| l.contains(&id))
        .unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(line.starts_with("runcrate"), "{line}");
    assert!(line.contains("listed-nowhere-else"), "{line}");
    assert!(
        line.contains(" USD"),
        "Runcrate states an hourly rate: {line}"
    );

    let entries = bench.ledger_json(false);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["cluster_id"], id.as_str());
    assert_eq!(entries[0]["provider"], "runcrate");
    assert_eq!(entries[0]["may_be_alive"], true);
    assert!(
        entries[0]["cost_so_far"]["amount"].is_number(),
        "{:?}",
        entries[0]
    );
    // Runcrate lets nobody list clusters: the ledger is the only list there is.
    bench
        .run(Provider::Runcrate, &["clusters", "list"])
        .expect_code(4);
}

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
    node.expect_code(1);
    assert!(node.stderr.contains("its nodes are 0: "), "{}", node.stderr);
}

fn wait_ready(bench: &Bench, provider: Provider, id: &str) {
    bench
        .run(provider, &["clusters", "wait", id, "--interval", "1s"])
        .expect_code(0);
}

#[test]
fn sweep_lists_then_deletes_what_gpucloud_left_alive() {
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "forgotten");
    let e2e = bench.create(Provider::E2e, "forgotten");

    let young = bench.run_plain(&["clusters", "sweep", "--older-than", "1h"]);
    young.expect_code(0);
    assert!(
        young.stdout.starts_with("No cluster gpucloud created"),
        "{}",
        young.stdout
    );

    let listed = bench.run_plain(&["--json", "clusters", "sweep", "--older-than", "0s"]);
    listed.expect_code(0);
    let actions: Vec<_> = json(&listed)
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| {
            (
                s["cluster_id"].as_str().unwrap_or("").to_string(),
                s["action"].clone(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            (together.clone(), "alive".into()),
            (e2e.clone(), "alive".into())
        ]
    );
    assert_eq!(
        bench.clusters_named(Provider::Together, "forgotten"),
        1,
        "listing deletes nothing"
    );

    let swept = bench.run_plain(&[
        "--json",
        "clusters",
        "sweep",
        "--older-than",
        "0s",
        "--delete",
        "--interval",
        "1s",
    ]);
    swept.expect_code(0);
    let actions: Vec<_> = json(&swept)
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| s["action"].clone())
        .collect();
    assert_eq!(actions, ["deleted", "deleted"]);
    assert_eq!(bench.clusters_named(Provider::Together, "forgotten"), 0);
    assert_eq!(bench.clusters_named(Provider::E2e, "forgotten"), 0);
    assert!(bench.ledger_json(false).is_empty(), "nothing left alive");
}

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
