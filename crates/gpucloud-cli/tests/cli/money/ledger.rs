//! What the ledger remembers across processes: a cluster an earlier run created, listed with
//! its cost, and the sweep that finds and deletes what gpucloud left alive.

use gpucloud_sim::Provider;

use super::bench::Bench;
use crate::simulated::json;
use crate::support::Run;

/// `(cluster_id, action)` of each cluster a `clusters sweep --json` run looked at.
fn sweep_actions(run: &Run) -> Vec<(serde_json::Value, serde_json::Value)> {
    crate::simulated::result(run)
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| (s["cluster_id"].clone(), s["action"].clone()))
        .collect()
}

/// `clusters sweep --json --older-than 0s --delete` with 1 s polls.
const SWEEP_DELETE: [&str; 8] = [
    "--json",
    "clusters",
    "sweep",
    "--older-than",
    "0s",
    "--delete",
    "--interval",
    "1s",
];

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
    assert_eq!(
        sweep_actions(&listed),
        [
            (together.as_str().into(), "alive".into()),
            (e2e.as_str().into(), "alive".into())
        ]
    );
    assert_eq!(
        bench.clusters_named(Provider::Together, "forgotten"),
        1,
        "listing deletes nothing"
    );

    let swept = bench.run_plain(&SWEEP_DELETE);
    swept.expect_code(0);
    assert_eq!(
        sweep_actions(&swept),
        [
            (together.as_str().into(), "deleted".into()),
            (e2e.as_str().into(), "deleted".into())
        ]
    );
    assert_eq!(bench.clusters_named(Provider::Together, "forgotten"), 0);
    assert_eq!(bench.clusters_named(Provider::E2e, "forgotten"), 0);
    assert!(bench.ledger_json(false).is_empty(), "nothing left alive");
}

#[test]
fn sweep_lists_what_no_api_can_delete_apart_and_fails_to_say_it_still_bills() {
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "left");
    let runcrate = bench.create(Provider::Runcrate, "left");

    let listed = bench.run_plain(&["clusters", "sweep", "--older-than", "0s"]);
    listed.expect_code(0);
    let (deletable, by_hand) = listed
        .stdout
        .split_once("not deletable through the provider's API")
        .unwrap_or_else(|| panic!("no separate list:\n{}", listed.stdout));
    assert!(
        deletable.contains(&together) && !deletable.contains(&runcrate),
        "{}",
        listed.stdout
    );
    assert!(
        by_hand.contains(&runcrate)
            && by_hand.contains("stop it in the Runcrate dashboard (www.runcrate.ai)"),
        "{}",
        listed.stdout
    );

    let swept = bench.run_plain(&SWEEP_DELETE);
    // Asked to delete what cannot be deleted: not a success, and it says where to stop it.
    swept.expect_code(4);
    assert!(
        swept.stderr.contains(
            "1 of 2 clusters cannot be deleted through their provider's API and are still \
             billing: stop them in the Runcrate dashboard (www.runcrate.ai)"
        ),
        "{}",
        swept.stderr
    );
    assert_eq!(
        sweep_actions(&swept),
        [
            (together.as_str().into(), "deleted".into()),
            (runcrate.as_str().into(), "stop_by_hand".into())
        ]
    );
    assert_eq!(bench.clusters_named(Provider::Together, "left"), 0);
    // No DELETE was ever sent to Runcrate: it documents none.
    assert!(
        !bench
            .sim
            .sim()
            .exchanges()
            .iter()
            .any(|e| e.provider == Some(Provider::Runcrate) && e.method == "DELETE"),
        "a DELETE was sent to Runcrate"
    );
}

#[test]
fn a_failed_start_the_provider_released_is_settled_costs_nothing_and_is_not_swept() {
    let bench = Bench::new();
    // `offer-fail` never starts; Runcrate releases every machine of a failed start.
    let failed = bench.run(
        Provider::Runcrate,
        &[
            "clusters",
            "create",
            "--allow-no-delete",
            "--name",
            "doomed",
            "--nodes",
            "2",
            "--offer-id",
            "offer-fail",
            "--wait",
            "--interval",
            "1s",
        ],
    );
    failed.expect_code(5);
    assert!(failed.stderr.contains("nothing bills"), "{}", failed.stderr);

    // Not in the "may be alive" list, and what `--all` shows agrees with the message above.
    assert!(bench.ledger_json(false).is_empty(), "listed as alive");
    let all = bench.ledger_json(true);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["may_be_alive"], false, "{:?}", all[0]);
    assert_eq!(all[0]["released"], true, "{:?}", all[0]);
    assert_eq!(all[0]["cost_so_far"]["amount"], 0.0, "{:?}", all[0]);
    let table = bench.run_plain(&["ledger", "--all"]);
    assert!(
        table
            .stdout
            .contains("released by the provider (nothing bills)"),
        "{}",
        table.stdout
    );
    let swept = bench.run_plain(&["clusters", "sweep", "--older-than", "0s"]);
    swept.expect_code(0);
    assert!(
        swept.stdout.starts_with("No cluster gpucloud created"),
        "{}",
        swept.stdout
    );
}

#[test]
fn a_ttl_is_kept_by_the_sweep_of_expired_clusters_which_deletes_and_verifies() {
    let bench = Bench::new();
    let create = |provider: Provider, name: &str, ttl: Option<&str>| {
        let mut args = super::bench::create_args(provider, name);
        if let Some(ttl) = ttl {
            args.extend(["--ttl".to_string(), ttl.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = bench.run(provider, &[&["--json"][..], &args].concat());
        run.expect_code(0);
        json(&run)["cluster"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let short = create(Provider::Together, "short-lived", Some("2s"));
    let long = create(Provider::E2e, "long-lived", Some("8h"));
    let unbounded = create(Provider::Together, "unbounded", None);

    let entries = bench.ledger_json(false);
    let left = |id: &str| {
        entries
            .iter()
            .find(|e| e["cluster_id"] == id)
            .map(|e| e["time_left_secs"].clone())
            .unwrap_or_else(|| panic!("{id} not in {entries:?}"))
    };
    assert!(left(&short).as_i64().is_some_and(|s| s <= 2), "{entries:?}");
    assert!(
        left(&long).as_i64().is_some_and(|s| s > 8 * 3600 - 60),
        "{entries:?}"
    );
    assert!(left(&unbounded).is_null(), "no deadline: {entries:?}");
    let table = bench.run_plain(&["ledger"]);
    assert!(table.stdout.contains("TIME LEFT"), "{}", table.stdout);

    // Before the deadline nothing is due.
    let early = bench.run_plain(&["clusters", "sweep", "--expired", "--delete"]);
    early.expect_code(0);
    assert!(
        early
            .stdout
            .contains("No cluster gpucloud past its deadline is alive."),
        "{}",
        early.stdout
    );
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let expired = bench.run_plain(&["ledger"]);
    assert!(expired.stdout.contains("EXPIRED"), "{}", expired.stdout);

    let swept = bench.run_plain(&[
        "--json",
        "clusters",
        "sweep",
        "--expired",
        "--delete",
        "--interval",
        "1s",
    ]);
    swept.expect_code(0);
    assert_eq!(
        sweep_actions(&swept),
        [(short.as_str().into(), "deleted".into())]
    );
    // Verified gone at the provider; the others are untouched.
    assert_eq!(bench.clusters_named(Provider::Together, "short-lived"), 0);
    assert_eq!(bench.clusters_named(Provider::Together, "unbounded"), 1);
    assert_eq!(bench.clusters_named(Provider::E2e, "long-lived"), 1);
    let again = bench.run_plain(&["clusters", "sweep", "--expired", "--delete"]);
    again.expect_code(0);
    assert!(again.stdout.starts_with("No cluster"), "{}", again.stdout);
}

/// A sweep on a terminal shows each cluster as it is looked at and its delete as it goes;
/// elsewhere it is quiet until the table at the end (before, it printed nothing for its whole
/// run, terminal or not).
#[test]
fn a_sweep_shows_its_progress_on_a_terminal_and_is_quiet_elsewhere() {
    let bench = Bench::new();
    let id = bench.create(Provider::Together, "swept");
    let mut env = bench.env();
    env.push(("TERM", "xterm".into()));
    let (code, shown) = crate::support::on_a_terminal(
        &[
            "clusters",
            "sweep",
            "--older-than",
            "0s",
            "--delete",
            "--yes",
            "--interval",
            "1s",
        ],
        &env,
        "",
    );
    assert_eq!(code, Some(0), "{shown}");
    assert!(
        shown.contains(&format!("together {id}: looking it up")),
        "{shown}"
    );
    // Piped: only the result.
    let id = bench.create(Provider::Together, "swept-quietly");
    let quiet = bench.run_plain(&SWEEP_DELETE);
    quiet.expect_code(0);
    assert!(!quiet.stderr.contains("looking it up"), "{}", quiet.stderr);
    assert!(quiet.stdout.contains(&id), "{}", quiet.stdout);
}

/// `gpucloud ledger` shows the last state a command saw; `--refresh` asks the providers first
/// (one get each) and shows the state now.
#[test]
fn ledger_refresh_shows_the_state_now() {
    let bench = Bench::new();
    let id = bench.create(Provider::Together, "refreshed");
    let before = bench.ledger_json(false);
    let state = |entries: &[serde_json::Value]| {
        entries
            .iter()
            .find(|e| e["cluster_id"] == id.as_str())
            .map(|e| e["last_seen"]["state"].clone())
    };
    assert_eq!(state(&before), Some(serde_json::json!("provisioning")));
    bench
        .sim
        .sim()
        .clock()
        .advance(std::time::Duration::from_secs(3 * 3600));
    let gets = |bench: &Bench| {
        bench
            .sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| e.operation.as_deref() == Some("get_cluster"))
            .count()
    };
    let sent = gets(&bench);
    // Without --refresh: nothing sent, the last state seen.
    assert_eq!(
        state(&bench.ledger_json(false)),
        Some(serde_json::json!("provisioning"))
    );
    assert_eq!(gets(&bench), sent);
    let run = bench.run_plain(&["--json", "ledger", "--refresh"]);
    run.expect_code(0);
    let now = json(&run).as_array().cloned().unwrap_or_default();
    assert_eq!(state(&now), Some(serde_json::json!("ready")), "{now:?}");
    assert_eq!(gets(&bench), sent + 1);
}
