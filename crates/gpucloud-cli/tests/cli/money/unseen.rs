//! Nothing billing unseen: a ledger file that cannot be read, or is not a ledger, is named and
//! left as it was; a create whose answer never reached the ledger is settled before a sweep
//! reports; two sweeps never delete one cluster twice.

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args};

/// The bytes of `path`, or nothing if it does not exist.
fn bytes(path: &std::path::Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// A create against `bench` with the ledger file as it is: refused before anything is sent,
/// the file named and left byte for byte as it was, no WAL file beside it.
fn assert_refused_untouched(bench: &Bench, expected: &[&str]) -> String {
    let before = bytes(&bench.ledger);
    let args = create_args(Provider::Together, "never-sent");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = bench.run(Provider::Together, &args);
    run.expect_code(3);
    let path = bench.ledger.display().to_string();
    assert!(run.stderr.contains(&path), "the file is named: {}", run.stderr);
    for words in expected {
        assert!(run.stderr.contains(words), "{words:?} in {}", run.stderr);
    }
    assert_eq!(bytes(&bench.ledger), before, "the file is left as it was");
    let wal = bench.ledger.with_extension("sqlite3-wal");
    assert!(!wal.exists(), "nothing was written beside it: {}", wal.display());
    assert_eq!(bench.creates_sent(Provider::Together), 0, "nothing was sent");
    run.stderr.clone()
}

#[test]
fn a_damaged_ledger_is_named_kept_as_it_was_and_nothing_is_sent() {
    let bench = Bench::new();
    // A real ledger, one cluster in it, then its second page overwritten.
    bench.create(Provider::Runcrate, "recorded-here");
    bench.run_plain(&["ledger"]).expect_code(0);
    let mut file = bytes(&bench.ledger).unwrap_or_default();
    // Checkpointed by the last process to close it: the pages are in the main file.
    assert!(file.len() > 8192, "{} bytes", file.len());
    for byte in &mut file[4096..8192] {
        *byte = 0xA5;
    }
    std::fs::write(&bench.ledger, &file).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(bench.ledger.with_extension("sqlite3-wal"));
    let _ = std::fs::remove_file(bench.ledger.with_extension("sqlite3-shm"));
    let sent_before = bench.creates_sent(Provider::Together);
    assert_eq!(sent_before, 0);
    let stderr = assert_refused_untouched(
        &bench,
        &[
            "cannot be read",
            "nothing was written to it",
            "copy it aside",
            ".recover",
            "--no-ledger keeps none",
        ],
    );
    assert!(!stderr.contains("pass --no-ledger to"), "{stderr}");

    // `gpucloud ledger` names it too, and writes nothing either.
    let shown = bench.run_plain(&["ledger"]);
    assert_ne!(shown.code, 0);
    assert!(
        shown.stderr.contains(&bench.ledger.display().to_string()),
        "{}",
        shown.stderr
    );
    assert_eq!(bytes(&bench.ledger).as_deref(), Some(file.as_slice()));
}

#[test]
fn a_file_that_is_not_a_database_is_named_and_kept() {
    let bench = Bench::new();
    std::fs::write(&bench.ledger, b"these are someone's notes, not a database\n".repeat(200))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_refused_untouched(&bench, &["cannot be read", "copy it aside"]);
}

#[test]
fn another_programs_sqlite_database_is_refused_before_anything_is_written() {
    let bench = Bench::new();
    {
        let conn = rusqlite::Connection::open(&bench.ledger).unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT);
             INSERT INTO accounts (owner) VALUES ('someone');",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let stderr = assert_refused_untouched(&bench, &["is not a gpucloud ledger", "accounts"]);
    assert!(stderr.contains("left as it was"), "{stderr}");
    let conn = rusqlite::Connection::open(&bench.ledger).unwrap_or_else(|e| panic!("{e}"));
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tables, ["accounts"], "no table of gpucloud's was added");
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mode, "delete", "not switched to WAL");
}
