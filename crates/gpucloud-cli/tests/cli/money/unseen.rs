//! Nothing billing unseen: a ledger file that cannot be read, or is not a ledger, is named and
//! left as it was; a create whose answer never reached the ledger is settled before a sweep
//! reports; two sweeps never delete one cluster twice.

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args};
use super::killed::{KillAt, kill_create_with};

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
    assert!(
        run.stderr.contains(&path),
        "the file is named: {}",
        run.stderr
    );
    for words in expected {
        assert!(run.stderr.contains(words), "{words:?} in {}", run.stderr);
    }
    assert_eq!(bytes(&bench.ledger), before, "the file is left as it was");
    let wal = bench.ledger.with_extension("sqlite3-wal");
    assert!(
        !wal.exists(),
        "nothing was written beside it: {}",
        wal.display()
    );
    assert_eq!(
        bench.creates_sent(Provider::Together),
        0,
        "nothing was sent"
    );
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
    std::fs::write(
        &bench.ledger,
        b"these are someone's notes, not a database\n".repeat(200),
    )
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

/// `gpucloud --json clusters sweep --expired --delete` (1 s polls) and its rows.
fn sweep_expired(bench: &Bench) -> (crate::support::Run, Vec<serde_json::Value>) {
    let run = bench.run_plain(&[
        "--json",
        "clusters",
        "sweep",
        "--expired",
        "--delete",
        "--interval",
        "1s",
    ]);
    let rows = crate::simulated::result(&run)
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{}\n{}", run.stdout, run.stderr));
    (run, rows)
}

#[test]
fn a_create_killed_before_its_answer_is_settled_and_swept_at_its_deadline_by_the_next_sweep() {
    let bench = Bench::new();
    kill_create_with(
        &bench,
        Provider::Together,
        "killed-mid-post",
        &["--ttl", "2s"],
        KillAt::AfterPost,
    );
    assert_eq!(
        bench.clusters_named(Provider::Together, "killed-mid-post"),
        1
    );
    // The unknown create carries the deadline it was created with.
    let entries = bench.ledger_json(false);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0]["deadline"].is_string(), "{:?}", entries[0]);
    assert!(entries[0]["cluster_id"].is_null(), "{:?}", entries[0]);
    std::thread::sleep(std::time::Duration::from_millis(2500));

    // Its owner is dead (this machine, its process gone): settled at once, not a lease later,
    // and deleted at its deadline by the same sweep.
    let (run, rows) = sweep_expired(&bench);
    run.expect_code(0);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "killed-mid-post");
    assert_eq!(rows[0]["action"], "deleted", "{rows:?}");
    assert!(
        run.stderr.contains("whose answer was lost made cluster"),
        "{}",
        run.stderr
    );
    let alive = bench
        .sim
        .sim()
        .clusters(Provider::Together)
        .into_iter()
        .filter(|c| c.name == "killed-mid-post" && c.status != "DELETED")
        .count();
    assert_eq!(alive, 0, "nothing left billing");
}

#[test]
fn a_create_no_look_up_can_settle_fails_every_sweep_and_refresh_and_says_when_and_why() {
    let bench = Bench::new();
    // Runcrate documents no list: nothing but the create's own idempotency key finds it.
    kill_create_with(
        &bench,
        Provider::Runcrate,
        "unlisted",
        &["--ttl", "1s"],
        KillAt::AfterPost,
    );
    let (run, rows) = sweep_expired(&bench);
    assert_ne!(run.code, 0, "never 'nothing to do': {}", run.stderr);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["action"], "unknown");
    assert_eq!(rows[0]["name"], "unlisted");
    assert!(rows[0]["cluster_id"].is_null());
    assert!(
        rows[0]["settles_after"].is_null(),
        "no sweep settles it: {rows:?}"
    );
    let detail = rows[0]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("idempotency key"), "{detail}");
    assert!(run.stderr.contains("outcome unknown"), "{}", run.stderr);

    let text = bench.run_plain(&["clusters", "sweep", "--expired"]);
    assert_ne!(text.code, 0);
    assert!(!text.stdout.contains("No cluster"), "{}", text.stdout);
    assert!(
        text.stdout.contains("unlisted"),
        "{}\n{}",
        text.stdout,
        text.stderr
    );

    let refreshed = bench.run_plain(&["ledger", "--refresh"]);
    assert_ne!(refreshed.code, 0, "{}", refreshed.stderr);
    assert!(
        refreshed.stderr.contains("\"unlisted\""),
        "{}",
        refreshed.stderr
    );
    assert!(
        refreshed.stderr.contains("unknown outcome"),
        "{}",
        refreshed.stderr
    );
}

/// Whether this machine lets a test mount a small file system of its own (a mount namespace
/// and tmpfs: root, or an unprivileged user namespace). CI must: there a test that needs it
/// fails rather than skips.
fn can_mount_a_small_file_system() -> bool {
    let works = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        works || std::env::var_os("CI").is_none(),
        "CI must be able to mount a tmpfs in a mount namespace (unshare -m, as root)"
    );
    works
}

#[test]
fn a_create_whose_outcome_the_full_ledger_disk_cannot_record_fails_with_its_cluster() {
    if !can_mount_a_small_file_system() {
        eprintln!("skipped: no mount namespace here");
        return;
    }
    let bench = Bench::new();
    let faults = bench.sim.sim().faults();
    faults.inject(
        gpucloud_sim::Fault::new(
            Provider::Together,
            gpucloud_sim::FaultKind::Slow {
                delay: std::time::Duration::from_secs(3),
            },
        )
        .on("create_cluster"),
    );
    // The ledger lives on a 1 MiB file system of the run's own, mounted over a directory
    // of the test's; the test fills it (through /proc/PID/root) while the POST is unanswered.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let small = dir.path().display().to_string();
    let mut env = bench.env();
    env.retain(|(k, _)| *k != "GPUCLOUD_LEDGER");
    env.push(("GPUCLOUD_LEDGER", format!("{small}/ledger.sqlite3")));
    env.push(("GPUCLOUD_BIN", env!("CARGO_BIN_EXE_gpucloud").to_string()));
    env.push(("SMALL_FS", small.clone()));
    env.push(("PATH", std::env::var("PATH").unwrap_or_default()));
    let mut args = vec![
        "-m".to_string(),
        "sh".into(),
        "-c".into(),
        "mount -t tmpfs -o size=1m tmpfs \"$SMALL_FS\" && exec \"$GPUCLOUD_BIN\" \"$@\"".into(),
        "sh".into(),
        "--json".into(),
    ];
    args.extend(create_args(Provider::Together, "unrecorded"));
    args.extend(["--provider", "together"].map(str::to_string));
    let child = std::process::Command::new("unshare")
        .args(&args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let started = std::time::Instant::now();
    while !bench
        .sim
        .sim()
        .exchanges()
        .iter()
        .any(|e| e.operation.as_deref() == Some("create_cluster") && e.fault.is_some())
    {
        assert!(started.elapsed().as_secs() < 20, "the create never came");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // The run's own view of the directory: its tmpfs.
    let filler = format!("/proc/{}/root{small}/filler", child.id());
    let mut file = std::fs::File::create(&filler).unwrap_or_else(|e| panic!("{filler}: {e}"));
    let chunk = vec![0u8; 4096];
    let full = loop {
        if let Err(error) = std::io::Write::write_all(&mut file, &chunk) {
            break error;
        }
    };
    assert_eq!(full.raw_os_error(), Some(28), "ENOSPC: {full}");
    drop(file);
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let cluster = bench
        .sim
        .sim()
        .clusters(Provider::Together)
        .into_iter()
        .find(|c| c.name == "unrecorded")
        .unwrap_or_else(|| panic!("the cluster was made: {stderr}"));
    for words in [
        "could not record it",
        "may be billing",
        "No sweep will see it",
        &format!("gpucloud clusters delete -p together --wait {}", cluster.id),
    ] {
        assert!(stderr.contains(words), "{words:?} in {stderr}");
    }
    let document: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(document["error"]["kind"], "unrecorded");
    assert_eq!(document["cluster"]["id"], cluster.id.as_str());
    assert_eq!(document["cluster"]["may_be_billing"], true);
}

#[test]
fn two_sweeps_at_once_send_one_delete_per_cluster() {
    let bench = Bench::new();
    let names: Vec<String> = (0..4).map(|i| format!("reaped-{i}")).collect();
    let mut ids = Vec::new();
    for name in &names {
        let mut args = create_args(Provider::Together, name);
        args.extend(["--ttl", "1s", "--json", "--provider", "together"].map(str::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = crate::support::gpucloud(&args, &bench.env());
        run.expect_code(0);
        ids.push(
            crate::simulated::json(&run)["cluster"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(1200));
    // Each DELETE answered slowly, so that each sweep meets the other's deletes in flight.
    bench.sim.sim().faults().inject(
        gpucloud_sim::Fault::new(
            Provider::Together,
            gpucloud_sim::FaultKind::Slow {
                delay: std::time::Duration::from_millis(400),
            },
        )
        .on("delete_cluster"),
    );
    let sweep = || {
        let env = bench.env();
        std::thread::spawn(move || {
            crate::support::gpucloud(
                &[
                    "--json",
                    "clusters",
                    "sweep",
                    "--expired",
                    "--delete",
                    "--interval",
                    "1s",
                ],
                &env,
            )
        })
    };
    let (first, second) = (sweep(), sweep());
    let runs = [first, second].map(|t| t.join().unwrap_or_else(|_| panic!("a sweep panicked")));
    let mut actions: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for run in &runs {
        run.expect_code(0);
        for row in crate::simulated::json(run)
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            actions
                .entry(row["cluster_id"].as_str().unwrap_or_default().to_string())
                .or_default()
                .push(row["action"].as_str().unwrap_or_default().to_string());
        }
    }
    let deletes: Vec<String> = bench
        .sim
        .sim()
        .exchanges()
        .iter()
        .filter(|e| e.method == "DELETE")
        .map(|e| e.path.clone())
        .collect();
    assert_eq!(
        deletes.len(),
        ids.len(),
        "one DELETE per cluster: {deletes:?}"
    );
    for id in &ids {
        assert_eq!(
            deletes.iter().filter(|p| p.ends_with(id.as_str())).count(),
            1,
            "{id}: {deletes:?}"
        );
        let seen = actions.get(id).cloned().unwrap_or_default();
        // Exactly one sweep deleted it; the other, if it looked, saw the other's delete or
        // the cluster gone, never a failure.
        assert_eq!(
            seen.iter().filter(|a| *a == "deleted").count(),
            1,
            "{id}: {seen:?}"
        );
        assert!(
            seen.iter()
                .all(|a| ["deleted", "deleted_by_another", "gone"].contains(&a.as_str())),
            "{id}: {seen:?}"
        );
    }
    // One delete intent per cluster in the ledger.
    let conn = rusqlite::Connection::open(&bench.ledger).unwrap_or_else(|e| panic!("{e}"));
    let intents: i64 = conn
        .query_row("SELECT COUNT(*) FROM delete_intents", [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(intents, i64::try_from(ids.len()).unwrap_or_default());
}

#[test]
fn a_create_interrupted_and_run_again_is_one_ledger_row_and_one_cost() {
    let bench = Bench::new();
    for provider in [Provider::Together, Provider::Runcrate] {
        let name = format!("rerun-{}", super::bench::name_of(provider));
        kill_create_with(&bench, provider, &name, &["--ttl", "1h"], KillAt::AfterPost);
        // The same request again: it finds (or, by its key, gets) the cluster the first made.
        let id = bench.create(provider, &name);
        assert_eq!(bench.clusters_named(provider, &name), 1, "{provider:?}");
        let rows: Vec<serde_json::Value> = bench
            .ledger_json(true)
            .into_iter()
            .filter(|e| e["name"] == name.as_str())
            .collect();
        assert_eq!(rows.len(), 1, "{provider:?}: one row per cluster: {rows:?}");
        assert_eq!(rows[0]["cluster_id"], id.as_str());
        assert!(
            rows[0]["deadline"].is_string(),
            "the first create's ttl holds: {rows:?}"
        );
        let text = bench.run_plain(&["ledger"]);
        assert_eq!(
            text.stdout.lines().filter(|l| l.contains(&id)).count(),
            1,
            "{}",
            text.stdout
        );
    }
}
