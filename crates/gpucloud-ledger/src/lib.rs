#![doc = include_str!("../README.md")]

mod entry;
mod error;
mod journal;
mod observe;
mod path;
mod query;
mod resolve;
pub mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

pub use entry::{
    ClusterEntry, DeleteEntry, DeleteState, ErrorSummary, IntentState, LastSeen, Lookup, Outcome,
};
pub use error::LedgerError;
pub use path::{LEDGER_ENV, default_path};
pub use resolve::{ResolveOptions, Resolved, resolve_pending_with};

/// How long a write waits for another process's transaction before it fails, by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A durable [`gpucloud::journal::Journal`] in a SQLite file, and the queries over it.
///
/// One connection per `Ledger`, behind a mutex (each call is one short transaction); any
/// number of processes may open the same file. Install it with `with_journal(Arc::new(ledger))`
/// on a facade config.
pub struct Ledger {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).finish()
    }
}

/// How to open a ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerOptions {
    /// How long a write waits for another process (see [`DEFAULT_BUSY_TIMEOUT`]).
    pub busy_timeout: Duration,
}

impl Default for LedgerOptions {
    fn default() -> Self {
        Self {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }
}

impl Ledger {
    /// Opens the ledger at [`default_path`] (`$GPUCLOUD_LEDGER`, else the XDG state directory).
    pub fn open_default() -> Result<Self, LedgerError> {
        Self::open(default_path()?)
    }

    /// Opens (creating if needed) the ledger at `path`, with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LedgerError> {
        Self::open_with(path, &LedgerOptions::default())
    }

    /// Opens (creating if needed) the ledger at `path`: the directory with mode 0700 and the
    /// file with mode 0600 on Unix (SQLite gives its `-wal` and `-shm` files the database
    /// file's mode), WAL journal, `synchronous = FULL` (an intent is on disk before its
    /// request is sent), the busy timeout, and every missing migration applied.
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
        create_private_file(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags)
            .map_err(|e| LedgerError::sqlite(format!("opening {}", path.display()), e))?;
        conn.busy_timeout(options.busy_timeout)
            .map_err(|e| LedgerError::sqlite("setting the busy timeout", e))?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|e| LedgerError::sqlite("switching to WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LedgerError::NotWal { mode });
        }
        conn.execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| LedgerError::sqlite("setting synchronous = FULL", e))?;
        schema::migrate_to(&mut conn, version)?;
        Ok(Self {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
    }

    /// Where the ledger is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the file.
    pub fn schema_version(&self) -> Result<u32, LedgerError> {
        schema::version(&self.lock())
    }

    /// The connection (a panic in another thread leaves it usable: every change is a
    /// transaction, rolled back if it did not commit).
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `change` in one `BEGIN IMMEDIATE` transaction (the write lock taken up front, so
    /// a busy database waits for the busy timeout instead of failing on lock upgrade).
    fn write<T>(
        &self,
        doing: &str,
        change: impl FnOnce(&Transaction<'_>) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| LedgerError::sqlite(format!("{doing}: locking the ledger"), e))?;
        let value = change(&tx)?;
        tx.commit()
            .map_err(|e| LedgerError::sqlite(format!("{doing}: committing"), e))?;
        Ok(value)
    }
}

/// Milliseconds since the Unix epoch, now.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Creates `path` (and its directory) readable by its owner only, if it does not exist yet.
fn create_private_file(path: &Path) -> Result<(), LedgerError> {
    let io = |source| LedgerError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(io)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map(drop).map_err(io)
}
