//! Several processes writing one ledger at once — each of them this test binary, started
//! again on the `child_writer` test — with no `database is locked` error and no lost row,
//! starting from no file at all (so they also race to create it, switch it to WAL and
//! migrate it). The children find the file through `GPUCLOUD_LEDGER`.

use std::process::{Command, Stdio};
use std::time::Instant;

use crate::support::*;
use gpucloud::journal::{CreateRecord, Journal};
use gpucloud::{ClusterId, CreateOutcome, ProviderKind};
use gpucloud_ledger::{DeleteState, IntentState, LEDGER_ENV, Ledger};

const WRITERS: usize = 8;
const ROUNDS: usize = 100;
const CHILD: &str = "GPUCLOUD_LEDGER_TEST_CHILD";

/// Run by the children only: `ROUNDS` creates and deletes, each recorded before and after.
#[test]
#[ignore = "a child process of several_processes_write_at_once_without_lock_errors"]
fn child_writer() {
    let Some(writer) = std::env::var_os(CHILD) else {
        return;
    };
    let writer = writer.to_string_lossy().into_owned();
    let ledger = Ledger::open_default().unwrap();
    for round in 0..ROUNDS {
        let name = format!("w{writer}-{round}");
        let intent = ledger
            .create_started(&intent(ProviderKind::Together, &name))
            .unwrap();
        let id = ClusterId::new(format!("c-{name}"));
        ledger
            .create_finished(
                intent,
                &CreateRecord::Cluster {
                    id: &id,
                    outcome: CreateOutcome::Created,
                },
            )
            .unwrap();
        let delete = ledger.delete_started(ProviderKind::Together, &id).unwrap();
        ledger.delete_finished(delete, None).unwrap();
    }
}

#[test]
fn several_processes_write_at_once_without_lock_errors() {
    let (_dir, path) = ledger_path();
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let children: Vec<_> = (0..WRITERS)
        .map(|writer| {
            Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    &test_name(module_path!(), "child_writer"),
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, writer.to_string())
                .env(LEDGER_ENV, &path)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "a writer failed:\n{stderr}");
        assert!(!stderr.contains("locked"), "{stderr}");
    }
    let elapsed = started.elapsed();

    let ledger = Ledger::open(&path).unwrap();
    let creates = ledger.clusters().unwrap();
    let deletes = ledger.deletes().unwrap();
    assert_eq!(creates.len(), WRITERS * ROUNDS);
    assert_eq!(deletes.len(), WRITERS * ROUNDS);
    assert!(creates.iter().all(|e| e.state == IntentState::Completed
        && e.cluster_id.as_ref().map(ClusterId::as_str) == Some(&format!("c-{}", e.name))
        && e.deleted_at.is_some()));
    assert!(deletes.iter().all(|d| d.state == DeleteState::Completed));
    let mut pids: Vec<_> = creates.iter().map(|e| e.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), WRITERS);
    let transactions = WRITERS * ROUNDS * 4;
    eprintln!(
        "{WRITERS} processes, {transactions} write transactions in {:.2}s ({:.0}/s), \
         process start-up included",
        elapsed.as_secs_f64(),
        transactions as f64 / elapsed.as_secs_f64()
    );
}
