#![doc = include_str!("../README.md")]

mod claim;
mod entry;
mod error;
mod journal;
mod names;
mod observe;
mod options;
mod owner;
mod path;
mod query;
mod rows;
pub mod schema;
mod store;
pub mod sweep;
mod unknown;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

pub use entry::{
    ClaimHeld, ClusterEntry, DeleteEntry, DeleteState, ErrorSummary, IntentState, LastSeen,
    Outcome, Provenance,
};
pub use error::LedgerError;
pub use options::{DEFAULT_BUSY_TIMEOUT, LedgerOptions};
pub use path::{LEDGER_ENV, default_path};
pub use unknown::Unknown;

use store::{Store, Tx};

/// A durable [`gpucloud::journal::Journal`], and the queries over it: in a SQLite file (one
/// machine, any number of processes) or in a PostgreSQL database (a team's machines).
///
/// Install it with `with_journal(Arc::new(ledger))` on a facade config. Of several callers
/// creating the same name at once — tasks, processes, or machines sharing the database —
/// exactly one sends the create; the others wait for it and get its cluster.
pub struct Ledger {
    store: Box<dyn Store>,
    owner: owner::Owner,
    /// The time claims and leases are measured by (milliseconds since the Unix epoch).
    clock: fn() -> i64,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("location", &self.store.location())
            .finish()
    }
}

impl Ledger {
    /// Opens the ledger `$GPUCLOUD_LEDGER` names (a path, or a
    /// `postgres://` URL), else the file in the XDG state directory.
    pub fn open_default() -> Result<Self, LedgerError> {
        match std::env::var(LEDGER_ENV) {
            Ok(url) if is_postgres(&url) => Self::connect(&url, &LedgerOptions::default()),
            _ => Self::open(default_path()?),
        }
    }

    /// Opens (creating if needed) the ledger file at `path`, with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LedgerError> {
        Self::open_with(path, &LedgerOptions::default())
    }

    /// Opens (creating if needed) the ledger file at `path`: the directory with mode 0700 and
    /// the file with mode 0600 on Unix, WAL journal, `synchronous = FULL` (an intent is on
    /// disk before its request is sent), the busy timeout, and every missing migration.
    pub fn open_with(path: impl AsRef<Path>, options: &LedgerOptions) -> Result<Self, LedgerError> {
        Self::open_at_version(path.as_ref(), options, schema::SCHEMA_VERSION)
    }

    /// [`Self::open_with`], migrating only up to `version` (tests of migrations).
    #[doc(hidden)]
    pub fn open_at_version(
        path: &Path,
        options: &LedgerOptions,
        version: u32,
    ) -> Result<Self, LedgerError> {
        let store = store::sqlite::SqliteStore::open(path, options, version)?;
        Ok(Self::with_store(Box::new(store)))
    }

    /// Connects to a ledger in PostgreSQL (`postgres://user:password@host:port/db`, with
    /// `?sslmode=disable|prefer|require`), creating its tables if needed. The URL's password
    /// is used to connect and kept nowhere else: [`Self::location`] and every error leave it
    /// out.
    #[cfg(feature = "postgres")]
    pub fn connect(url: &str, options: &LedgerOptions) -> Result<Self, LedgerError> {
        let store = store::postgres::PostgresStore::open(url, options, schema::SCHEMA_VERSION)?;
        Ok(Self::with_store(Box::new(store)))
    }

    /// Without the `postgres` feature, a `postgres://` location is refused.
    #[cfg(not(feature = "postgres"))]
    pub fn connect(url: &str, options: &LedgerOptions) -> Result<Self, LedgerError> {
        let _ = (url, options);
        Err(LedgerError::UnsupportedLocation(
            "a postgres:// ledger needs gpucloud-ledger's `postgres` feature".to_string(),
        ))
    }

    /// Opens `location`: a `postgres://` (or `postgresql://`) URL, else a file path.
    pub fn open_location(location: &str, options: &LedgerOptions) -> Result<Self, LedgerError> {
        if is_postgres(location) {
            Self::connect(location, options)
        } else {
            Self::open_with(location, options)
        }
    }

    fn with_store(store: Box<dyn Store>) -> Self {
        Self {
            store,
            owner: owner::Owner::of_this_process(),
            clock: now_ms,
        }
    }

    /// Measures claims and leases by `clock` instead of the system time (tests of a lease's
    /// boundaries).
    #[doc(hidden)]
    #[must_use]
    pub fn with_lease_clock(mut self, clock: fn() -> i64) -> Self {
        self.clock = clock;
        self
    }

    /// Where the ledger is, with no secret: the file's path, or `postgres://user@host:port/db`.
    pub fn location(&self) -> &str {
        self.store.location()
    }

    /// The ledger file, for a ledger in SQLite.
    pub fn path(&self) -> Option<&Path> {
        self.store.path()
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<u32, LedgerError> {
        self.store.schema_version()
    }

    /// Runs `change` in one transaction that writes (SQLite: `BEGIN IMMEDIATE`, the write
    /// lock taken up front).
    fn write<T>(
        &self,
        doing: &str,
        change: impl FnOnce(&mut dyn Tx) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        once(doing, change, |work| self.store.write(doing, work))
    }

    /// Runs `look` in one transaction that reads.
    fn read<T>(
        &self,
        doing: &str,
        look: impl FnOnce(&mut dyn Tx) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        once(doing, look, |work| self.store.read(doing, work))
    }
}

/// Runs `f` through a store's transaction (which takes a `FnMut`), once, and returns its value.
fn once<T>(
    doing: &str,
    f: impl FnOnce(&mut dyn Tx) -> Result<T, LedgerError>,
    run: impl FnOnce(&mut store::Work<'_>) -> Result<(), LedgerError>,
) -> Result<T, LedgerError> {
    let mut f = Some(f);
    let mut out = None;
    run(&mut |tx| {
        if let Some(f) = f.take() {
            out = Some(f(tx)?);
        }
        Ok(())
    })?;
    out.ok_or_else(|| LedgerError::unavailable(doing, "the transaction did not run"))
}

/// Whether `location` names a PostgreSQL database rather than a file.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// Milliseconds since the Unix epoch, now.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
