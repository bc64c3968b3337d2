//! Only what is ours: a cluster of the requested name that someone else made (a teammate with
//! their own ledger, a run without one) stops the create with nothing sent, is never swept,
//! and becomes ours only when the create adopts it on request.

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args, name_of};
use crate::simulated::json;
use crate::support::gpucloud;

/// The `(cluster_id, action)` of each cluster a `clusters sweep --json` run looked at.
fn swept(bench: &Bench) -> Vec<(String, String)> {
    let run = bench.run_plain(&[
        "--json",
        "clusters",
        "sweep",
        "--older-than",
        "0s",
        "--delete",
        "--interval",
        "1s",
    ]);
    run.expect_code(0);
    json(&run)
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| {
            (
                s["cluster_id"].as_str().unwrap_or_default().to_string(),
                s["action"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_teammates_cluster_of_the_name_is_never_taken_swept_or_deleted_unless_adopted() {
    for provider in [Provider::Together, Provider::E2e] {
        let bench = Bench::new();
        // The teammate creates "shared-name" through the same account, with their own ledger.
        let theirs_dir = tempfile::tempdir().unwrap();
        let mut theirs_env = bench.env();
        theirs_env.retain(|(k, _)| *k != "GPUCLOUD_LEDGER");
        theirs_env.push((
            "GPUCLOUD_LEDGER",
            theirs_dir
                .path()
                .join("theirs.sqlite3")
                .to_string_lossy()
                .into_owned(),
        ));
        let mut args: Vec<String> = vec!["--json".into()];
        args.extend(create_args(provider, "shared-name"));
        args.extend(["--provider".into(), name_of(provider).into()]);
        let made = gpucloud(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            &theirs_env,
        );
        made.expect_code(0);
        let theirs = json(&made)["cluster"]["id"].as_str().unwrap().to_string();
        let sent = bench.creates_sent(provider);

        // Our create of the same name: refused, nothing sent, the way out said.
        let ours = bench.run(
            provider,
            &create_args(provider, "shared-name")
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        ours.expect_code(4);
        assert!(
            ours.stderr.contains(&format!(
                "already has a cluster named \"shared-name\" ({theirs}, "
            )) && ours
                .stderr
                .contains("that gpucloud did not create; nothing was sent"),
            "{provider:?}: {}",
            ours.stderr
        );
        assert!(ours.stderr.contains("--adopt"), "{}", ours.stderr);
        assert_eq!(bench.creates_sent(provider), sent, "{provider:?}");

        // Our sweep never touches it: it is not in our ledger as ours.
        assert!(
            swept(&bench).iter().all(|(id, _)| *id != theirs),
            "{provider:?}"
        );
        assert_eq!(bench.clusters_named(provider, "shared-name"), 1);
        let deletes = bench
            .sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| e.provider == Some(provider) && e.method == "DELETE")
            .count();
        assert_eq!(deletes, 0, "{provider:?}");

        // Adopted on request: the same cluster, nothing sent, ours from now on.
        let mut adopt: Vec<String> = vec!["--json".into()];
        adopt.extend(create_args(provider, "shared-name"));
        adopt.push("--adopt".into());
        let adopted = bench.run(
            provider,
            &adopt.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        adopted.expect_code(0);
        assert_eq!(json(&adopted)["outcome"], "adopted", "{}", adopted.stdout);
        assert_eq!(json(&adopted)["cluster"]["id"], theirs.as_str());
        assert_eq!(bench.creates_sent(provider), sent, "{provider:?}");
        let entries = bench.ledger_json(false);
        let entry = entries
            .iter()
            .find(|e| e["cluster_id"] == theirs.as_str())
            .unwrap_or_else(|| panic!("{entries:?}"));
        assert_eq!(entry["provenance"], "adopted");

        // …so the sweep deletes it now.
        assert_eq!(
            swept(&bench),
            [(theirs.clone(), "deleted".to_string())],
            "{provider:?}"
        );
    }
}
