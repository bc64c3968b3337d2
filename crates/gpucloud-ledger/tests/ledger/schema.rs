//! The schema: created from an empty file, migrated from version 1 with its rows kept, a newer
//! file refused untouched, and the files private to their owner.

use crate::support::*;
use gpucloud::ProviderKind;
use gpucloud::journal::Journal;
use gpucloud_ledger::schema::{MIGRATIONS, SCHEMA_VERSION};
use gpucloud_ledger::{IntentState, Ledger, LedgerError, LedgerOptions};

fn columns(path: &std::path::Path, table: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn an_empty_file_gets_every_migration_in_wal_mode() {
    let (_dir, path) = ledger_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"").unwrap();

    let ledger = Ledger::open(&path).unwrap();

    assert_eq!(SCHEMA_VERSION, 11);
    assert_eq!(ledger.schema_version().unwrap(), SCHEMA_VERSION);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let create_columns = columns(&path, "create_intents");
    for column in [
        "resolution",
        "last_state",
        "price_per_hour",
        "gone_at_ms",
        "owner",
        "lease_until_ms",
        "taken_over_by",
        "provenance",
    ] {
        assert!(create_columns.contains(&column.to_string()), "{column}");
    }
    // Opening again changes nothing.
    drop(ledger);
    assert_eq!(
        Ledger::open(&path).unwrap().schema_version().unwrap(),
        SCHEMA_VERSION
    );
}

#[test]
fn a_version_1_file_is_migrated_with_its_rows() {
    let (_dir, path) = ledger_path();
    let v1 = Ledger::open_at_version(&path, &LedgerOptions::default(), 1).unwrap();
    assert_eq!(v1.schema_version().unwrap(), 1);
    assert!(!columns(&path, "create_intents").contains(&"resolution".to_string()));
    drop(v1);
    // A row as a version-1 build wrote it.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO create_intents (provider, name, request_sha256, pid, started_at_ms)
         VALUES ('together', 'old', 'abc', 1, 1700000000000)",
        [],
    )
    .unwrap();
    let id = u64::try_from(conn.last_insert_rowid()).unwrap();
    drop(conn);

    let ledger = Ledger::open(&path).unwrap();

    assert_eq!(ledger.schema_version().unwrap(), SCHEMA_VERSION);
    let entry = ledger.entry(id).unwrap();
    assert_eq!(
        (entry.name.as_str(), entry.state, entry.resolution),
        ("old", IntentState::Pending, None)
    );
    assert_eq!(
        (entry.last_seen, entry.price, entry.gone_at),
        (None, None, None)
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let indexes: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name LIKE '%intents_by%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(indexes, 4);
}

#[test]
fn a_file_from_a_newer_build_is_refused_and_left_alone() {
    let (_dir, path) = ledger_path();
    drop(Ledger::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(conn);

    let error = Ledger::open(&path).unwrap_err();

    assert!(
        matches!(
            error,
            LedgerError::SchemaTooNew {
                found: 99,
                known: SCHEMA_VERSION
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("upgrade gpucloud"), "{error}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 99);
}

#[test]
fn migrations_are_numbered_in_order() {
    let versions: Vec<u32> = MIGRATIONS.iter().map(|m| m.version).collect();
    assert_eq!(versions, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
}

/// Before version 8, a Together or E2E create that found someone else's cluster by name
/// recorded it as `already_existed`, and a sweep then deleted it as ours. Migrated, such a
/// cluster is found, not ours: never swept, never a name's answer; everything else stays ours.
#[test]
fn a_version_7_file_marks_the_clusters_it_only_found_as_not_ours() {
    let (_dir, path) = ledger_path();
    drop(Ledger::open_at_version(&path, &LedgerOptions::default(), 7).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut ids = Vec::new();
    // A keyed create's `already_existed` is our key's replay; one reconciled by name (no key)
    // found the name's cluster, someone else's.
    for (provider, name, cluster, outcome, key) in [
        ("together", "teammates", "c-theirs", "already_existed", None),
        ("e2e", "theirs-too", "77", "already_existed", None),
        (
            "runcrate",
            "keyed",
            "3c90c3cc-0d44-4b50-8888-8dd25736052a",
            "already_existed",
            Some("key-1"),
        ),
        ("together", "mine", "c-mine", "created", None),
    ] {
        conn.execute(
            "INSERT INTO create_intents (provider, name, request_sha256, pid, started_at_ms,
                                         state, cluster_id, outcome, idempotency_key)
             VALUES (?1, ?2, 'abc', 1, 1700000000000, 'completed', ?3, ?4, ?5)",
            rusqlite::params![provider, name, cluster, outcome, key],
        )
        .unwrap();
        ids.push(u64::try_from(conn.last_insert_rowid()).unwrap());
    }
    drop(conn);

    let ledger = Ledger::open(&path).unwrap();

    let ours: Vec<(String, bool, gpucloud_ledger::Provenance)> = ids
        .iter()
        .map(|id| {
            let entry = ledger.entry(*id).unwrap();
            (entry.name.clone(), entry.is_ours(), entry.provenance)
        })
        .collect();
    use gpucloud_ledger::Provenance::{Created, Found};
    assert_eq!(
        ours,
        [
            ("teammates".to_string(), false, Found),
            ("theirs-too".to_string(), false, Found),
            ("keyed".to_string(), true, Created),
            ("mine".to_string(), true, Created),
        ]
    );
    // A later create of the name is not handed the cluster it only found.
    let claim = ledger
        .claim_create(
            &intent(ProviderKind::Together, "teammates"),
            std::time::Duration::from_secs(60),
        )
        .unwrap();
    assert!(
        matches!(claim, gpucloud::journal::Claim::Owned { .. }),
        "{claim:?}"
    );
}

#[cfg(unix)]
#[test]
fn the_directory_and_every_file_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = ledger_path();
    let ledger = Ledger::open(&path).unwrap();
    ledger
        .create_started(&intent(ProviderKind::Together, "x"))
        .unwrap();

    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&path), 0o600);
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        assert_eq!(mode(std::path::Path::new(&side)), 0o600, "{suffix}");
    }
}

#[test]
fn a_version_4_file_gets_stable_state_codes_for_the_states_it_recorded() {
    let (_dir, path) = ledger_path();
    drop(Ledger::open_at_version(&path, &LedgerOptions::default(), 4).unwrap());
    // Rows as a version-4 build wrote them: the state as people read it.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let states = [
        Some("ready"),
        Some("failed (CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED)"),
        Some("deleting"),
        Some("gone"),
        Some("unknown (Hibernating)"),
        None,
    ];
    for (n, state) in states.iter().enumerate() {
        conn.execute(
            "INSERT INTO create_intents (provider, name, request_sha256, pid, started_at_ms,
                                         last_state)
             VALUES ('together', ?1, 'abc', 1, 1700000000000, ?2)",
            rusqlite::params![format!("old-{n}"), state],
        )
        .unwrap();
    }
    drop(conn);

    let ledger = Ledger::open(&path).unwrap();
    assert_eq!(ledger.schema_version().unwrap(), SCHEMA_VERSION);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut statement = conn
        .prepare("SELECT last_state, last_state_code FROM create_intents ORDER BY id")
        .unwrap();
    let rows: Vec<(Option<String>, Option<String>)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let codes: Vec<_> = rows.iter().map(|(_, code)| code.as_deref()).collect();
    assert_eq!(
        codes,
        [
            Some("ready"),
            Some("failed"),
            Some("deleting"),
            Some("gone"),
            Some("unknown"),
            None
        ]
    );
    // The text for people is kept as it was.
    assert_eq!(rows[1].0.as_deref(), states[1]);
}

/// The file as it is on disk (with no `-wal` beside it).
fn untouched(path: &std::path::Path, before: &[u8]) {
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "the file is left as it was"
    );
    let wal = format!("{}-wal", path.display());
    assert!(
        !std::path::Path::new(&wal).exists(),
        "nothing written beside it"
    );
}

#[test]
fn a_damaged_file_or_another_programs_database_is_refused_named_and_untouched() {
    let (_dir, path) = ledger_path();
    // A ledger with a create in it, then its second page overwritten.
    {
        let ledger = Ledger::open(&path).unwrap();
        ledger
            .create_started(&intent(ProviderKind::Together, "kept"))
            .unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192, "{} bytes", bytes.len());
    bytes[4096..8192].fill(0xA5);
    std::fs::write(&path, &bytes).unwrap();
    let _ = std::fs::remove_file(format!("{}-wal", path.display()));
    let _ = std::fs::remove_file(format!("{}-shm", path.display()));
    match Ledger::open(&path) {
        Err(LedgerError::Unreadable { path: named, .. }) => assert_eq!(named, path),
        other => panic!("a damaged file: {other:?}"),
    }
    untouched(&path, &bytes);

    let (_dir, notes) = ledger_path();
    std::fs::create_dir_all(notes.parent().unwrap()).unwrap();
    let text = b"not a database\n".repeat(400);
    std::fs::write(&notes, &text).unwrap();
    match Ledger::open(&notes) {
        Err(e @ LedgerError::Unreadable { .. }) => {
            assert!(e.to_string().contains(&notes.display().to_string()), "{e}");
        }
        other => panic!("not a database: {other:?}"),
    }
    untouched(&notes, &text);

    let (_dir, foreign) = ledger_path();
    std::fs::create_dir_all(foreign.parent().unwrap()).unwrap();
    {
        let conn = rusqlite::Connection::open(&foreign).unwrap();
        conn.execute_batch("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT);")
            .unwrap();
    }
    let before = std::fs::read(&foreign).unwrap();
    match Ledger::open(&foreign) {
        Err(LedgerError::NotALedger { path: named, found }) => {
            assert_eq!(named, foreign);
            assert!(found.contains("accounts"), "{found}");
        }
        other => panic!("another program's database: {other:?}"),
    }
    untouched(&foreign, &before);
    // A ledger made before the stamp (its tables and schema version, application_id 0) is
    // still a ledger, and gets the stamp.
    let (_dir, old) = ledger_path();
    Ledger::open_at_version(&old, &LedgerOptions::default(), 1).unwrap();
    rusqlite::Connection::open(&old)
        .unwrap()
        .execute_batch("PRAGMA application_id = 0")
        .unwrap();
    Ledger::open(&old).unwrap();
    let id: i32 = rusqlite::Connection::open(&old)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, gpucloud_ledger::schema::APPLICATION_ID);
}

#[test]
fn a_busy_file_is_named_and_not_called_damaged() {
    let (_dir, path) = ledger_path();
    Ledger::open(&path).unwrap();
    // Another connection holds the file exclusively.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    let options = LedgerOptions {
        busy_timeout: std::time::Duration::from_millis(50),
        ..LedgerOptions::default()
    };
    match Ledger::open_with(&path, &options) {
        Err(e @ LedgerError::Sqlite { .. }) => {
            assert!(e.is_locked(), "{e}");
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        }
        other => panic!("a busy file is busy, not damaged: {other:?}"),
    }
}

#[test]
fn only_a_gpucloud_ledger_passes_for_one() {
    // A new ledger is stamped with gpucloud's application id.
    let (_dir, fresh) = ledger_path();
    Ledger::open(&fresh).unwrap();
    let id: i32 = rusqlite::Connection::open(&fresh)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, gpucloud_ledger::schema::APPLICATION_ID);
    // Another program's database with a schema version of its own, and one with tables of
    // the ledger's names but no version: neither is a ledger.
    for (sql, what) in [
        (
            "CREATE TABLE accounts (id INTEGER); PRAGMA user_version = 3;",
            "versioned",
        ),
        (
            "CREATE TABLE create_intents (id INTEGER); CREATE TABLE delete_intents (id INTEGER);",
            "unversioned",
        ),
    ] {
        let (_dir, path) = ledger_path();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        assert!(
            matches!(Ledger::open(&path), Err(LedgerError::NotALedger { .. })),
            "{what}"
        );
    }
}
