//! A name is one request: the same create again finds its cluster, a different request under
//! the same name is refused (exit 4, both requests side by side) with nothing sent, and
//! `--name` with `-f` makes one request file serve many names.

use gpucloud_sim::Provider;

use super::bench::{Bench, PROVIDERS, create_args};
use crate::simulated::json;

/// `create_args` with the size (`--gpus` or `--nodes`) replaced by `size`.
fn resized(provider: Provider, name: &str, size: &str) -> Vec<String> {
    let mut args = create_args(provider, name);
    let at = args
        .iter()
        .position(|a| a == "--gpus" || a == "--nodes")
        .unwrap_or_else(|| panic!("no size in {args:?}"));
    args[at + 1] = size.to_string();
    args
}

#[test]
fn the_same_name_with_a_different_request_is_refused_showing_both() {
    let bench = Bench::new();
    for provider in PROVIDERS {
        let first = bench.create(provider, "one-request");
        let sent = bench.creates_sent(provider);

        // The same request: the cluster it made, nothing new.
        let again = bench.run(
            provider,
            &[
                &["--json"][..],
                &as_strs(&create_args(provider, "one-request")),
            ]
            .concat(),
        );
        again.expect_code(0);
        assert_eq!(
            json(&again)["cluster"]["id"],
            first.as_str(),
            "{provider:?}"
        );
        assert_eq!(json(&again)["outcome"], "already_existed", "{provider:?}");

        // Another size under the same name: refused, both sizes shown, nothing sent.
        let (field, size) = match provider {
            Provider::Together => ("/num_gpus", "32"),
            Provider::Runcrate => ("/node_count", "4"),
            Provider::E2e => ("/no_of_nodes", "3"),
        };
        let other = bench.run(provider, &as_strs(&resized(provider, "one-request", size)));
        other.expect_code(4);
        assert!(
            other.stderr.contains(&format!(
                "the name \"one-request\" is taken by {} cluster {first}, made by a different \
                 request",
                provider.as_str()
            )),
            "{provider:?}: {}",
            other.stderr
        );
        let row = other
            .stderr
            .lines()
            .find(|l| l.starts_with(field))
            .unwrap_or_else(|| panic!("{provider:?}: no {field} row in\n{}", other.stderr));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells.get(2), Some(&size), "{provider:?}: {row}");
        assert!(
            other.stderr.contains("REQUEST THAT MADE IT"),
            "{}",
            other.stderr
        );
        assert_eq!(
            bench.creates_sent(provider),
            sent,
            "{provider:?}: nothing sent"
        );
        assert_eq!(bench.clusters_named(provider, "one-request"), 1);
    }
}

#[test]
fn name_with_a_request_file_replaces_the_files_name() {
    let bench = Bench::new();
    for name in ["from-file-a", "from-file-b"] {
        let run = bench.run(
            Provider::Together,
            &[
                "--json",
                "clusters",
                "create",
                "-f",
                "tests/fixtures/together.toml",
                "--name",
                name,
            ],
        );
        run.expect_code(0);
        assert_eq!(json(&run)["cluster"]["name"], name, "{}", run.stdout);
        assert_eq!(bench.clusters_named(Provider::Together, name), 1);
    }
    assert_eq!(bench.creates_sent(Provider::Together), 2);
}

fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A shell loop of creates shares one look-up by name: each run is its own process, and the
/// list of the account the first one took is kept in the ledger for the others (5 s).
#[test]
fn a_loop_of_creates_lists_the_account_once() {
    let bench = Bench::new();
    let lists = |provider: Provider| {
        bench
            .sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| {
                e.provider == Some(provider) && e.operation.as_deref() == Some("list_clusters")
            })
            .count()
    };
    for provider in [Provider::Together, Provider::E2e] {
        bench.create(provider, "loop-0");
        let listed = lists(provider);
        assert!(listed > 0, "{provider:?}");
        for i in 1..4 {
            bench.create(provider, &format!("loop-{i}"));
        }
        assert_eq!(lists(provider), listed, "{provider:?}");
        for i in 0..4 {
            assert_eq!(bench.clusters_named(provider, &format!("loop-{i}")), 1);
        }
    }
}
