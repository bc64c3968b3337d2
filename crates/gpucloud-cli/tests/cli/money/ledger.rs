//! What the ledger remembers across processes: a cluster an earlier run created, listed with
//! its cost, and the sweep that finds and deletes what gpucloud left alive.

use gpucloud_sim::Provider;

use super::bench::Bench;
use crate::simulated::json;

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
