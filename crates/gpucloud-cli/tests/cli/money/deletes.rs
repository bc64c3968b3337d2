//! Deletes that are verified (`--wait` returns once the provider no longer has the cluster)
//! and creates that fail while waiting, deleted unless kept on purpose.

use gpucloud_sim::{Fault, FaultKind, Provider};

use super::bench::{Bench, create_args, name_of};
use crate::simulated::json;

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

/// With `--json`, the failure is one document on stdout that says what became of the cluster,
/// so a script knows whether something still bills without reading stderr.
#[test]
fn create_wait_deletes_a_cluster_that_fails_and_keeps_it_when_asked() {
    let bench = Bench::new();
    for provider in [Provider::Together, Provider::E2e] {
        let faults = bench.sim.sim().faults();
        // `--json clusters create … --wait` of a cluster whose provisioning fails.
        let doomed = |name: &str, extra: &[&str]| {
            faults.inject(Fault::new(provider, FaultKind::FailProvisioning));
            let mut args = vec!["--json".to_string()];
            args.extend(create_args(provider, name));
            args.extend(
                ["--wait", "--interval", "1s"]
                    .iter()
                    .chain(extra)
                    .map(|s| (*s).to_string()),
            );
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            bench.run(provider, &args)
        };
        let run = doomed("doomed", &[]);
        run.expect_code(5);
        assert!(
            run.stderr
                .contains("was deleted; the provider confirmed it gone after"),
            "{}",
            run.stderr
        );
        assert_eq!(bench.clusters_named(provider, "doomed"), 0);
        let failure = json(&run);
        assert_eq!(failure["error"]["kind"], "cluster_failed", "{}", run.stdout);
        assert_eq!(failure["error"]["exit_code"], 5, "{}", run.stdout);
        let cluster = &failure["cluster"];
        assert_eq!(cluster["provider"], name_of(provider), "{}", run.stdout);
        assert_eq!(cluster["cleanup"], "deleted", "{}", run.stdout);
        assert_eq!(cluster["may_be_billing"], false, "{}", run.stdout);
        assert!(cluster.get("how_to_stop").is_none(), "{}", run.stdout);
        let id = cluster["id"].as_str().unwrap_or_default();
        assert!(
            !id.is_empty() && run.stderr.contains(&format!("cluster {id} was deleted")),
            "{}\n{}",
            run.stdout,
            run.stderr
        );

        // Its delete fails (every DELETE answered 500): it may be billing, and the document
        // says how to stop it.
        faults.inject(
            Fault::new(provider, FaultKind::ServerError { status: 500 })
                .on("delete_cluster")
                .times(1000),
        );
        let stuck = doomed("doomed-stuck", &[]);
        faults.clear();
        stuck.expect_code(5);
        let cluster = &json(&stuck)["cluster"];
        assert_eq!(cluster["cleanup"], "delete_failed", "{}", stuck.stdout);
        assert_eq!(cluster["may_be_billing"], true, "{}", stuck.stdout);
        assert!(
            cluster["how_to_stop"]
                .as_str()
                .is_some_and(|how| how.contains("clusters delete -p")),
            "{}",
            stuck.stdout
        );
        assert_eq!(bench.clusters_named(provider, "doomed-stuck"), 1);

        let kept = doomed("doomed-kept", &["--keep-on-failure"]);
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
        let failure = json(&kept);
        let id = bench
            .sim
            .sim()
            .clusters(provider)
            .into_iter()
            .find(|c| c.name == "doomed-kept")
            .map(|c| c.id)
            .unwrap_or_else(|| panic!("no doomed-kept cluster"));
        assert_eq!(failure["cluster"]["id"], id.as_str(), "{}", kept.stdout);
        assert_eq!(failure["cluster"]["cleanup"], "kept", "{}", kept.stdout);
        assert_eq!(
            failure["cluster"]["may_be_billing"], true,
            "{}",
            kept.stdout
        );
        assert!(
            failure["cluster"]["how_to_stop"].as_str().is_some_and(
                |how| how.contains(&format!("clusters delete -p {} --wait", name_of(provider)))
            ),
            "{}",
            kept.stdout
        );
    }

    // Runcrate releases every machine of a failed start itself: nothing bills.
    bench
        .sim
        .sim()
        .faults()
        .inject(Fault::new(Provider::Runcrate, FaultKind::FailProvisioning));
    let mut args = vec!["--json".to_string()];
    args.extend(create_args(Provider::Runcrate, "doomed-released"));
    args.extend(["--wait", "--interval", "1s"].map(str::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let released = bench.run(Provider::Runcrate, &args);
    released.expect_code(5);
    let cluster = &json(&released)["cluster"];
    assert_eq!(cluster["provider"], "runcrate", "{}", released.stdout);
    assert_eq!(cluster["cleanup"], "released", "{}", released.stdout);
    assert_eq!(cluster["may_be_billing"], false, "{}", released.stdout);
    assert!(cluster.get("how_to_stop").is_none(), "{}", released.stdout);
}
