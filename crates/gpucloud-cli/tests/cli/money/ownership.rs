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

/// E2E addresses a cluster by project, location and id: a create that names another
/// location than `E2E_LOCATION` is made, waited for, swept and deleted through a client of
/// its own location (the ledger says which), never through one where its id answers 404 —
/// which a delete would have taken for "already gone" while it billed.
#[test]
fn an_e2e_cluster_in_another_location_is_followed_where_it_is() {
    let bench = Bench::new();
    let mut args = create_args(Provider::E2e, "in-chennai");
    let plan = args
        .iter()
        .position(|a| a == "--sku-item-price-id")
        .unwrap();
    args[plan + 1] = "821".into();
    args.extend(["--region".into(), "Chennai".into(), "--json".into()]);
    let made = bench.run(
        Provider::E2e,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    made.expect_code(0);
    let id = json(&made)["cluster"]["id"].as_str().unwrap().to_string();

    // The environment still says Delhi: the ledger moves every command to Chennai.
    let wait = bench.run(
        Provider::E2e,
        &["clusters", "wait", &id, "--interval", "1s"],
    );
    wait.expect_code(0);
    let got = bench.run(Provider::E2e, &["--json", "clusters", "get", &id]);
    got.expect_code(0);
    assert_eq!(json(&got)["name"], "in-chennai");
    let deleted = bench.run(Provider::E2e, &["clusters", "delete", &id, "--wait"]);
    deleted.expect_code(0);
    assert!(
        !deleted.stdout.contains("already gone"),
        "{}",
        deleted.stdout
    );
    let deletes: Vec<String> = bench
        .sim
        .sim()
        .exchanges()
        .iter()
        .filter(|e| e.provider == Some(Provider::E2e) && e.method == "DELETE")
        .map(|e| format!("{} {:?}", e.path, e.status))
        .collect();
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    assert!(
        bench.clusters_named(Provider::E2e, "in-chennai") == 0
            || bench
                .sim
                .sim()
                .clusters(Provider::E2e)
                .iter()
                .all(|c| c.name != "in-chennai" || c.status.to_lowercase().contains("delet")),
        "{:?}",
        bench.sim.sim().clusters(Provider::E2e)
    );
}

/// A provider's validation answer says which field and why: E2E's 400 lists its field errors,
/// and the status is said once (before: `answered HTTP 400 [400]: Bad Request`).
#[test]
fn an_e2e_refusal_names_the_field_and_the_rule() {
    let bench = Bench::new();
    let mut args = create_args(Provider::E2e, "bad-image");
    let image = args.iter().position(|a| a == "--image-version-id").unwrap();
    args[image + 1] = "999".into();
    let run = bench.run(
        Provider::E2e,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    run.expect_code(4);
    assert!(
        run.stderr
            .contains("answered HTTP 400: Bad Request (image_version_id: Invalid image version.)"),
        "{}",
        run.stderr
    );
}

/// Names work where ids do, and `--provider` is needed only when the answer is ambiguous:
/// the ledger is asked first, then each configured provider's list.
#[test]
fn a_cluster_is_found_by_its_name_on_whichever_provider_has_it() {
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "by-name");
    let got = bench.run_plain(&["--json", "clusters", "get", "by-name"]);
    got.expect_code(0);
    assert_eq!(json(&got)["id"], together.as_str());
    assert_eq!(json(&got)["provider"], "together");

    // The same name on a second provider: ambiguous, listed, nothing acted on.
    let e2e = bench.create(Provider::E2e, "by-name");
    let both = bench.run_plain(&["clusters", "delete", "by-name", "--wait"]);
    both.expect_code(2);
    assert!(
        both.stderr
            .contains(&format!("together {together} (by-name, in the ledger)"))
            && both
                .stderr
                .contains(&format!("e2e {e2e} (by-name, in the ledger)")),
        "{}",
        both.stderr
    );
    let deletes = |bench: &Bench| {
        bench
            .sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| e.method == "DELETE")
            .count()
    };
    assert_eq!(deletes(&bench), 0);
    // --provider says which.
    let one = bench.run(Provider::E2e, &["clusters", "delete", "by-name", "--wait"]);
    one.expect_code(0);
    assert_eq!(deletes(&bench), 1);

    // A name only a provider's list knows (made without the ledger).
    let mut args: Vec<String> = vec!["--no-ledger".into(), "--json".into()];
    args.extend(create_args(Provider::Together, "listed-only"));
    args.extend(["--provider".into(), "together".into()]);
    let made = gpucloud(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &bench.env(),
    );
    made.expect_code(0);
    let listed = json(&made)["cluster"]["id"].as_str().unwrap().to_string();
    let got = bench.run_plain(&["--json", "clusters", "get", "listed-only"]);
    got.expect_code(0);
    assert_eq!(json(&got)["id"], listed.as_str());

    // Known nowhere, and no provider to take it as an id of.
    // Not found: exit 4, as a provider's 404 with --provider is.
    let nowhere = bench.run_plain(&["clusters", "get", "no-such-cluster"]);
    nowhere.expect_code(4);
    assert!(
        nowhere.stderr.contains("give --provider"),
        "{}",
        nowhere.stderr
    );
}

/// One list across every configured provider, each cluster with its provider; a provider
/// not read (no list, no credentials, an error) is said on stderr and in `unread`, never left
/// out silently, and the ledger's clusters there are shown from the ledger; -p narrows.
#[test]
fn clusters_list_spans_every_configured_provider() {
    let bench = Bench::new();
    let together = bench.create(Provider::Together, "everywhere");
    let e2e = bench.create(Provider::E2e, "everywhere");
    let listed = |run: &crate::support::Run| -> Vec<(String, String, String)> {
        crate::simulated::result(run)["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["provider"].as_str().unwrap().to_string(),
                    c["id"].as_str().unwrap().to_string(),
                    c["known_from"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let all = bench.run_plain(&["--json", "clusters", "list"]);
    all.expect_code(0);
    let rows = listed(&all);
    assert!(
        rows.contains(&("together".into(), together.clone(), "provider".into())),
        "{rows:?}"
    );
    assert!(
        rows.contains(&("e2e".into(), e2e.clone(), "provider".into())),
        "{rows:?}"
    );
    assert!(
        all.stderr
            .contains("runcrate: not read: it documents no list"),
        "{}",
        all.stderr
    );
    assert_eq!(json(&all)["unread"][0]["provider"], "runcrate");
    assert_eq!(json(&all)["unread"][0]["counts"], false);

    let table = bench.run_plain(&["clusters", "list"]);
    table.expect_code(0);
    assert!(table.stdout.starts_with("PROVIDER"), "{}", table.stdout);

    // Without E2E's key, its cluster is shown as the ledger last saw it, and the run fails:
    // E2E may have clusters this list did not read.
    let mut env = bench.env();
    env.retain(|(k, _)| *k != "E2E_API_KEY");
    let without = gpucloud(&["--json", "clusters", "list"], &env);
    assert_eq!(without.code, 1, "{}", without.stderr);
    assert!(
        without
            .stderr
            .contains("e2e: not read: configuration: E2E_API_KEY"),
        "{}",
        without.stderr
    );
    assert!(
        listed(&without).contains(&("e2e".into(), e2e.clone(), "ledger".into())),
        "{}",
        without.stdout
    );
    let unread = &crate::simulated::result(&without)["unread"];
    assert!(
        unread
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["provider"] == "e2e" && u["counts"] == true),
        "{unread}"
    );

    let narrowed = bench.run(Provider::E2e, &["--json", "clusters", "list"]);
    narrowed.expect_code(0);
    assert_eq!(json(&narrowed)["clusters"].as_array().unwrap().len(), 1);
}

/// No provider read at all (no credentials, a wrong key) is never "No clusters." and success;
/// a Runcrate cluster, which no list shows, is listed from the ledger.
#[test]
fn clusters_list_never_says_no_clusters_when_it_read_nothing() {
    let bench = Bench::new();
    let runcrate = bench.create(Provider::Runcrate, "unlisted-at-runcrate");
    let nothing: Vec<(&str, String)> = bench
        .env()
        .into_iter()
        .filter(|(k, _)| *k == "GPUCLOUD_LEDGER")
        .collect();
    let bare = gpucloud(&["clusters", "list"], &nothing);
    assert_ne!(bare.code, 0, "{}", bare.stderr);
    for provider in ["together", "e2e"] {
        assert!(
            bare.stderr.contains(&format!("{provider}: not read")),
            "{}",
            bare.stderr
        );
    }
    // The Runcrate cluster is in the table, from the ledger.
    let line = bare
        .stdout
        .lines()
        .find(|l| l.contains(&runcrate))
        .unwrap_or_else(|| panic!("{}", bare.stdout));
    assert!(line.trim_end().ends_with("ledger"), "{line}");

    let mut wrong = bench.env();
    wrong.retain(|(k, _)| *k != "TOGETHER_API_KEY");
    wrong.push((
        "TOGETHER_API_KEY",
        "tgp_v1_wrongwrongwrongwrongwrong".into(),
    ));
    let refused = gpucloud(&["--json", "clusters", "list"], &wrong);
    assert_eq!(refused.code, 4, "{}", refused.stderr);
    let document = crate::simulated::result(&refused);
    assert!(
        document["unread"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["provider"] == "together" && u["counts"] == true),
        "{document}"
    );
}
