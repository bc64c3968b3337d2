//! One safety net for a program and the command line: a program that attaches the ledger
//! `gpucloud` uses (one line, `with_journal(Arc::new(Ledger::open_default()?))`) has its
//! clusters in `gpucloud ledger` and swept by `clusters sweep`, and a cluster the command line
//! made is the program's answer to the same request, not "someone else's".

use std::sync::Arc;
use std::time::Duration;

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, CreateOutcome, ProviderKind};
use gpucloud_ledger::Ledger;
use gpucloud_sim::Provider;

use super::bench::Bench;
use crate::simulated::json;

/// The library's client of Together as a program builds it: the environment a `gpucloud` run
/// gets, and the ledger `gpucloud` opens by default, attached in one line.
fn program_client(bench: &Bench) -> ClusterClient {
    let env = bench.env();
    let vars = move |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
    // What `Ledger::open_default()` opens: `$GPUCLOUD_LEDGER`, here the bench's file.
    let ledger = Ledger::open(&bench.ledger).unwrap_or_else(|e| panic!("{e}"));
    ClusterClient::from_vars(ProviderKind::Together, &vars, |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .with_journal(Arc::new(ledger))
}

fn spec(name: &str) -> ClusterSpec {
    ClusterSpec::new(name, ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_ttl(Duration::from_secs(1))
}

#[test]
fn a_program_s_cluster_is_in_the_ledger_and_swept_by_the_command_line() {
    let bench = Bench::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let client = program_client(&bench);
    let created = runtime
        .block_on(client.create(&spec("train-42")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(created.outcome, CreateOutcome::Created);
    assert!(created.deadline.is_some());

    let listed = bench.ledger_json(false);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["cluster_id"], created.cluster.id.as_str());
    assert_eq!(
        listed[0]["provenance"], "created",
        "ours to the command line"
    );

    std::thread::sleep(Duration::from_millis(1100));
    let sweep = bench.run_plain(&[
        "--json",
        "clusters",
        "sweep",
        "--expired",
        "--delete",
        "--interval",
        "1s",
    ]);
    sweep.expect_code(0);
    let rows = json(&sweep);
    assert_eq!(rows[0]["cluster_id"], created.cluster.id.as_str(), "{rows}");
    assert_eq!(rows[0]["action"], "deleted", "{rows}");
}

#[test]
fn a_cluster_the_command_line_made_is_the_program_s_answer_to_the_same_request() {
    let bench = Bench::new();
    let made = bench.run(
        Provider::Together,
        &[
            "--json",
            "clusters",
            "create",
            "--name",
            "intent-42",
            "--gpus",
            "16",
            "--gpu-model",
            "H100_SXM",
            "--region",
            "us-central-8",
        ],
    );
    made.expect_code(0);
    let id = json(&made)["cluster"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let client = program_client(&bench);
    let spec = ClusterSpec::new("intent-42", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8");
    let again = runtime
        .block_on(client.create(&spec))
        .unwrap_or_else(|e| panic!("the CLI's cluster is not someone else's: {e}"));
    assert_eq!(again.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(again.cluster.id.as_str(), id);
    assert_eq!(
        bench.creates_sent(Provider::Together),
        1,
        "never a second POST"
    );
}
