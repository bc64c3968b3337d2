//! A process killed between its POST and the answer: the simulator has the cluster, the
//! ledger has the intent, still pending. The next run resolves it by look-up and a repeated
//! create finds the cluster instead of making a second. The doomed process is this test
//! binary, started again on the `child_creator` test.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::*;
use gpucloud::settle::{SettleOptions, Settled};
use gpucloud::{CreateOutcome, TogetherConfig};
use gpucloud_ledger::{IntentState, LEDGER_ENV, Ledger};
use gpucloud_sim::{Fault, FaultKind, Provider, credentials};

const CHILD: &str = "GPUCLOUD_LEDGER_TEST_SIM_URL";
const NAME: &str = "crash-after-post";
/// The child's claim on the name: settlement leaves a create to its owner until it runs out.
const CHILD_LEASE: Duration = Duration::from_secs(1);

/// Run by the child only: a journaled Together create whose answer never comes in time.
#[tokio::test]
#[ignore = "a child process of the crash test"]
async fn child_creator() {
    let Some(url) = std::env::var_os(CHILD) else {
        return;
    };
    let ledger = Arc::new(Ledger::open_default().unwrap());
    let client = gpucloud::ClusterClient::together(
        TogetherConfig::new(credentials::TOGETHER_API_KEY.to_string())
            .with_base_url(url.to_string_lossy().into_owned())
            .with_timeout(Duration::from_secs(600))
            .with_journal(ledger)
            // A short claim: once it runs out unrenewed, its owner is known to be gone.
            .with_claim_policy(gpucloud::journal::ClaimPolicy {
                lease: CHILD_LEASE,
                ..gpucloud::journal::ClaimPolicy::default()
            }),
    )
    .unwrap();
    let _ = client.create(&spec(Provider::Together, NAME)).await;
    panic!("the parent should have killed this process first");
}

#[tokio::test]
async fn a_process_killed_after_its_post_leaves_an_intent_the_next_run_resolves() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    // The create happens; its answer is held back far longer than the test lasts.
    sim.faults().inject(
        Fault::new(
            Provider::Together,
            FaultKind::Slow {
                delay: Duration::from_secs(300),
            },
        )
        .on("create_cluster"),
    );
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            &test_name(module_path!(), "child_creator"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, sim.base_url(Provider::Together))
        .env(LEDGER_ENV, &path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !sim
        .clusters(Provider::Together)
        .iter()
        .any(|c| c.name == NAME)
    {
        assert!(Instant::now() < deadline, "the child never sent its POST");
        assert!(child.try_wait().unwrap().is_none(), "the child ended early");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The next run: the intent is there, pending, from the dead process.
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let pending = ledger.pending().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].name, NAME);
    assert_eq!(pending[0].pid, child.id());
    let together = client(&sim, Provider::Together, Some(ledger.clone()));
    // While the dead owner's claim has not run out, nothing tells it from a live one: its
    // create is left to it. Once the claim has run out unrenewed, it is settled.
    tokio::time::sleep(CHILD_LEASE + Duration::from_millis(200)).await;
    let resolved = gpucloud::settle::settle_pending(&*ledger, &together, &SettleOptions::default())
        .await
        .unwrap();
    let cluster = match &resolved[..] {
        [Settled::Found { intent, cluster }] if *intent == pending[0].intent => cluster.clone(),
        other => panic!("{other:?}"),
    };
    let entry = ledger.entry(pending[0].intent).unwrap();
    assert_eq!(entry.state, IntentState::Completed);
    assert_eq!(entry.cluster_id.as_ref(), Some(&cluster));

    // Creating again finds it: still one cluster of that name.
    let again = together
        .create(&spec(Provider::Together, NAME))
        .await
        .unwrap();
    assert_eq!(
        (again.outcome, &again.cluster.id),
        (CreateOutcome::AlreadyExisted, &cluster)
    );
    let named = sim
        .clusters(Provider::Together)
        .iter()
        .filter(|c| c.name == NAME)
        .count();
    assert_eq!(named, 1);
    sim.shutdown().await;
}
