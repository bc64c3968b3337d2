//! The throwaway PostgreSQL server of `support/postgres/` itself: it starts, answers over TCP
//! with its password, goes away when stopped and comes back on the same URL when restarted.
//! Skipped (with a line on stderr) where no PostgreSQL server binaries are installed, unless
//! `CI` is set.

use std::process::Output;
use std::time::Instant;

use crate::postgres::PgServer;

fn select_one(server: &PgServer) -> Output {
    server
        .psql()
        .arg(server.url())
        .args(["-q", "-A", "-t", "-c", "select 1"])
        .output()
        .expect("run psql against the test server")
}

#[test]
fn starts_stops_and_restarts() {
    let started = Instant::now();
    let Some(server) = PgServer::start() else {
        return;
    };
    eprintln!(
        "PostgreSQL test server from {} started on port {} in {:?}",
        server.bin_dir().display(),
        server.port(),
        started.elapsed()
    );
    assert!(server.url().starts_with("postgres://gpucloud:"));
    assert!(
        server
            .url()
            .ends_with(&format!("@127.0.0.1:{}/gpucloud", server.port()))
    );
    assert!(server.password().len() >= 16, "a non-trivial password");
    assert!(server.url().contains(server.password()));

    let out = select_one(&server);
    assert!(
        out.status.success(),
        "psql against the running server: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");

    let stopping = Instant::now();
    server.stop();
    eprintln!("stopped in {:?}", stopping.elapsed());
    let out = select_one(&server);
    assert!(
        !out.status.success(),
        "psql succeeded against a stopped server: {}",
        String::from_utf8_lossy(&out.stdout)
    );

    let restarting = Instant::now();
    server.restart();
    eprintln!("restarted in {:?}", restarting.elapsed());
    let out = select_one(&server);
    assert!(
        out.status.success(),
        "psql against the restarted server: {}\n--- server log (tail) ---\n{}",
        String::from_utf8_lossy(&out.stderr),
        server.log_tail()
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}
