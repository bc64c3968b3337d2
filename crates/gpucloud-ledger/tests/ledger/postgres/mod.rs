//! A private, throwaway PostgreSQL server for integration tests: its own data directory in a
//! temporary directory, its own free TCP port on 127.0.0.1, a `gpucloud` superuser with a
//! per-run password (SCRAM only) and a `gpucloud` database. A module of the ledger's test
//! binary, and included by the `shared` bench with `#[path]`.
//!
//! The binaries (`initdb`, `pg_ctl`) are looked for in `GPUCLOUD_PG_BIN` when it is set (and
//! only there), else on `PATH`, else in the newest `/usr/lib/postgresql/*/bin/` (Debian's
//! layout). Without them [`PgServer::start`] returns `None` and says on stderr that the tests
//! are skipped — except under CI (`CI` set and non-empty), where a missing server is a panic:
//! CI must never skip these tests silently.
//!
//! initdb and postgres refuse to run as root; as root every server command is run as the
//! `postgres` system user (`runuser -u postgres --`), which owns the data directory.
//!
//! This file starts, stops and talks to the server; `bins` finds its binaries; `command` runs
//! each of them bounded, with its output kept for the failure message.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

mod bins;
mod command;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bins::{Bins, find_bins};
use command::{output_text, run_bounded};

/// Overrides the search for the server binaries: only this directory is used.
pub const PG_BIN_ENV: &str = "GPUCLOUD_PG_BIN";

/// The superuser initdb creates, and the database created for the tests.
pub const USER: &str = "gpucloud";
pub const DATABASE: &str = "gpucloud";

/// pg_ctl's own wait for start and stop (`-t`), in seconds.
const PG_CTL_WAIT_SECS: u64 = 30;
/// psql's `connect_timeout`, in seconds.
const CONNECT_TIMEOUT_SECS: u64 = 10;

/// A running PostgreSQL server, stopped (`-m immediate`) and deleted when dropped.
#[derive(Debug)]
pub struct PgServer {
    bins: Bins,
    /// The `postgres` system user's uid and gid when this process is root, else `None`.
    run_as: Option<(u32, u32)>,
    data: PathBuf,
    port: u16,
    password: String,
    /// Last field: removed after `Drop::drop` has stopped the server.
    dir: tempfile::TempDir,
}

impl PgServer {
    /// Starts a server, or returns `None` (having said so on stderr) when no PostgreSQL server
    /// binaries are found and `CI` is not set. Panics, with the server log's tail, when a server
    /// is found but does not start.
    pub fn start() -> Option<PgServer> {
        let bins = match find_bins() {
            Ok(bins) => bins,
            Err(why) => return skip(&why),
        };
        let dir = tempfile::Builder::new()
            .prefix("gpucloud-pg-")
            .tempdir()
            .expect("create the temporary directory for the PostgreSQL data directory");
        // The directory was just created by this process: its owner is our effective uid.
        let root = std::fs::metadata(dir.path())
            .expect("read the metadata of the new temporary directory")
            .uid()
            == 0;
        let run_as = if root {
            match postgres_user() {
                Some(ids) => Some(ids),
                None => {
                    return skip(
                        "running as root, and initdb refuses to run as root, but there is no \
                         `postgres` user in /etc/passwd to run it as",
                    );
                }
            }
        } else {
            None
        };

        // The temporary directory (0700 by default) must be traversable by the server's user;
        // only the data directory inside it is theirs.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("make the temporary directory traversable by the postgres user");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("create the PostgreSQL data directory");
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700))
            .expect("restrict the PostgreSQL data directory to its owner");

        let password = random_password();
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, format!("{password}\n")).expect("write initdb's --pwfile");
        std::fs::set_permissions(&pwfile, std::fs::Permissions::from_mode(0o600))
            .expect("restrict initdb's --pwfile to its owner");
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&data, Some(uid), Some(gid))
                .expect("chown the PostgreSQL data directory to the postgres user");
            std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid))
                .expect("chown initdb's --pwfile to the postgres user");
        }

        let mut server = PgServer {
            bins,
            run_as,
            data,
            port: 0,
            password,
            dir,
        };

        let mut initdb = server.server_command(&server.bins.initdb);
        initdb
            .arg("-D")
            .arg(&server.data)
            .arg("-U")
            .arg(USER)
            .arg(format!("--pwfile={}", pwfile.display()))
            .arg("--auth=scram-sha-256")
            .arg("--no-sync")
            .args(["-E", "UTF8", "--locale=C"]);
        let out = run_bounded(&mut initdb, "initdb");
        // The password is in memory from here on; no copy of it stays on disk but the hash.
        let _ = std::fs::remove_file(&pwfile);
        if !out.status.success() {
            panic!(
                "initdb ({}) failed with {}:\n{}",
                server.bins.initdb.display(),
                out.status,
                output_text(&out)
            );
        }

        server.port = free_port();
        server.pg_ctl_start();
        server.wait_until_accepting();
        let out = server.psql_admin("postgres", &format!("create database {DATABASE}"));
        if !out.status.success() {
            panic!(
                "creating the {DATABASE} database on the PostgreSQL test server failed with \
                 {}:\n{}\n--- server log (tail) ---\n{}",
                out.status,
                output_text(&out),
                server.log_tail()
            );
        }
        Some(server)
    }

    /// `postgres://gpucloud:<password>@127.0.0.1:<port>/gpucloud`.
    pub fn url(&self) -> String {
        format!(
            "postgres://{USER}:{}@127.0.0.1:{}/{DATABASE}",
            self.password, self.port
        )
    }

    /// The `gpucloud` superuser's password, for tests that check it never leaks.
    pub fn password(&self) -> &str {
        &self.password
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory the server binaries were found in.
    pub fn bin_dir(&self) -> &Path {
        &self.bins.dir
    }

    /// A `psql` command (the server's own, else the one on `PATH`) with a bounded connect
    /// (`PGCONNECT_TIMEOUT`), reading no `~/.psqlrc`; add the connection and the arguments.
    pub fn psql(&self) -> Command {
        let mut psql = Command::new(&self.bins.psql);
        psql.env("PGCONNECT_TIMEOUT", CONNECT_TIMEOUT_SECS.to_string())
            .arg("--no-psqlrc");
        psql
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`): its clients see the database go
    /// away. Panics if pg_ctl fails.
    pub fn stop(&self) {
        let out = self.pg_ctl_stop();
        if !out.status.success() {
            panic!(
                "pg_ctl stop failed with {}:\n{}\n--- server log (tail) ---\n{}",
                out.status,
                output_text(&out),
                self.log_tail()
            );
        }
    }

    /// Starts the stopped server again, on the same port, and waits until it accepts
    /// connections.
    pub fn restart(&self) {
        self.pg_ctl_start();
        self.wait_until_accepting();
    }

    /// The last lines of the server log, for failure messages.
    pub fn log_tail(&self) -> String {
        let log = self.data.join("log");
        match std::fs::read_to_string(&log) {
            Ok(text) => {
                let lines: Vec<&str> = text.lines().collect();
                lines[lines.len().saturating_sub(40)..].join("\n")
            }
            Err(err) => format!("(no server log at {}: {err})", log.display()),
        }
    }

    fn pg_ctl_start(&self) {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off -c max_connections=100",
            self.port,
            shell_quote(&self.data)
        );
        let mut pg_ctl = self.server_command(&self.bins.pg_ctl);
        pg_ctl
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.data.join("log"))
            .arg("-w")
            .args(["-t", &PG_CTL_WAIT_SECS.to_string()])
            .arg("-o")
            .arg(options)
            .arg("start");
        let out = run_bounded(&mut pg_ctl, "pg_ctl start");
        if !out.status.success() {
            panic!(
                "pg_ctl start ({}, port {}) failed with {}:\n{}\n--- server log (tail) ---\n{}",
                self.bins.pg_ctl.display(),
                self.port,
                out.status,
                output_text(&out),
                self.log_tail()
            );
        }
    }

    fn pg_ctl_stop(&self) -> Output {
        let mut pg_ctl = self.server_command(&self.bins.pg_ctl);
        pg_ctl
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w"])
            .args(["-t", &PG_CTL_WAIT_SECS.to_string()])
            .arg("stop");
        run_bounded(&mut pg_ctl, "pg_ctl stop")
    }

    /// pg_ctl -w already waited for the server to say it is ready; this checks it over TCP
    /// with the password, retrying for a bounded time.
    fn wait_until_accepting(&self) {
        let deadline = Instant::now() + Duration::from_secs(PG_CTL_WAIT_SECS);
        loop {
            let out = self.psql_admin("postgres", "select 1");
            if out.status.success() {
                return;
            }
            if Instant::now() >= deadline {
                panic!(
                    "the PostgreSQL test server on port {} was started but accepts no \
                     connection:\n{}\n--- server log (tail) ---\n{}",
                    self.port,
                    output_text(&out),
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// psql as the superuser over TCP, the password in `PGPASSWORD` (never on a command line).
    fn psql_admin(&self, database: &str, sql: &str) -> Output {
        let mut psql = self.psql();
        psql.env("PGPASSWORD", &self.password)
            .arg(format!(
                "host=127.0.0.1 port={} user={USER} dbname={database} \
                 connect_timeout={CONNECT_TIMEOUT_SECS}",
                self.port
            ))
            .args(["-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]);
        run_bounded(&mut psql, "psql")
    }

    /// A server command, run as the `postgres` user when this process is root, from a working
    /// directory that user can enter.
    fn server_command(&self, program: &Path) -> Command {
        let mut command = if self.run_as.is_some() {
            let mut runuser = Command::new("runuser");
            runuser.args(["-u", "postgres", "--"]).arg(program);
            runuser
        } else {
            Command::new(program)
        };
        command.current_dir(self.dir.path());
        command
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        // Already stopped (by `stop`, or a failed start) is fine: pg_ctl just says so.
        let _ = self.pg_ctl_stop();
    }
}

/// Without a server: `None` and a line on stderr, or, under CI, a panic.
fn skip(why: &str) -> Option<PgServer> {
    let ci = std::env::var_os("CI").is_some_and(|ci| !ci.is_empty());
    if ci {
        panic!(
            "CI is set and the PostgreSQL tests cannot run: {why}. CI must not skip them: \
             install Debian's postgresql package (.ci/run does) or set {PG_BIN_ENV} to the \
             directory holding initdb and pg_ctl"
        );
    }
    eprintln!("PostgreSQL tests skipped: {why} (set {PG_BIN_ENV}, or install postgresql)");
    None
}

/// The `postgres` user's uid and gid, from /etc/passwd.
fn postgres_user() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != "postgres" {
            return None;
        }
        let _password = fields.next()?;
        let uid = fields.next()?.parse().ok()?;
        let gid = fields.next()?.parse().ok()?;
        Some((uid, gid))
    })
}

/// 32 hex digits from std's randomly keyed hasher, the pid and the time: a different,
/// non-trivial password on every run (and for every server in a run).
fn random_password() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let mut words = [0u64; 2];
    for (round, word) in words.iter_mut().enumerate() {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.write_u128(nanos);
        hasher.write_usize(round);
        *word = hasher.finish();
    }
    format!("pg{:016x}{:016x}", words[0], words[1])
}

/// A TCP port free on 127.0.0.1 a moment ago (bound, read, released).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0 to find a free port for the PostgreSQL test server");
    listener
        .local_addr()
        .expect("read the port of the listener on 127.0.0.1:0")
        .port()
}

/// pg_ctl hands `-o` to a shell: a path in it is quoted.
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
