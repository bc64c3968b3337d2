//! The embedded backend: one SQLite file, shared by every process of the machine through
//! SQLite's own locking (WAL, a busy timeout, `BEGIN IMMEDIATE` for every write).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use super::{Row, Store, Tx, Value, Work};
use crate::error::LedgerError;
use crate::options::LedgerOptions;
use crate::schema;

/// A ledger file: one connection behind a mutex (each call is one short transaction).
pub(crate) struct SqliteStore {
    path: PathBuf,
    location: String,
    conn: Mutex<Connection>,
    busy_timeout: Duration,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the file at `path`: the directory with mode 0700 and the
    /// file with mode 0600 on Unix (SQLite gives its `-wal` and `-shm` files the database
    /// file's mode), WAL journal, `synchronous = FULL` (an intent is on disk before its
    /// request is sent), the busy timeout, and every missing migration up to `version`.
    pub(crate) fn open(
        path: &Path,
        options: &LedgerOptions,
        version: u32,
    ) -> Result<Self, LedgerError> {
        create_private_file(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // Every failure to open names the file, and one that says the file is damaged
        // becomes `Unreadable`: nothing has been written to it then, and nothing will be.
        let named = |e: LedgerError| LedgerError::naming_file(path, e);
        let mut conn = Connection::open_with_flags(path, flags)
            .map_err(|e| named(LedgerError::sqlite("opening", e)))?;
        conn.busy_timeout(options.busy_timeout)
            .map_err(|e| named(LedgerError::sqlite("setting the busy timeout", e)))?;
        // Before the first write (the switch to WAL is one): a file another program owns is
        // refused as it is.
        schema::identify(&conn).map_err(named)?;
        check_pages(&conn).map_err(named)?;
        let mode = switch_to_wal(&conn, options.busy_timeout).map_err(named)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LedgerError::NotWal { mode });
        }
        conn.execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| named(LedgerError::sqlite("setting synchronous = FULL", e)))?;
        schema::migrate_to(&mut conn, version).map_err(named)?;
        Ok(Self {
            path: path.to_path_buf(),
            location: path.display().to_string(),
            conn: Mutex::new(conn),
            busy_timeout: options.busy_timeout,
        })
    }

    /// The connection (a panic in another thread leaves it usable: every change is a
    /// transaction, rolled back if it did not commit).
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn transaction(
        &self,
        doing: &str,
        behavior: TransactionBehavior,
        work: &mut Work<'_>,
    ) -> Result<(), LedgerError> {
        let mut conn = self.lock();
        let locked = match behavior {
            TransactionBehavior::Immediate => begin_immediate(&conn, self.busy_timeout),
            _ => conn.transaction_with_behavior(behavior),
        };
        let tx =
            locked.map_err(|e| LedgerError::sqlite(format!("{doing}: locking the ledger"), e))?;
        work(&mut SqliteTx {
            tx: &tx,
            doing,
            path: &self.path,
        })?;
        tx.commit()
            .map_err(|e| LedgerError::sqlite(format!("{doing}: committing"), e))
    }
}

/// How often a writer tries for the write lock while another holds it.
const WRITE_LOCK_POLL: Duration = Duration::from_millis(1);

/// `BEGIN IMMEDIATE`, tried every [`WRITE_LOCK_POLL`] until `busy_timeout` has passed. SQLite's
/// own busy handler sleeps longer at each try (1, 2, 5, 10 … up to 100 ms), so with several
/// writers waiting the lock sits free while they sleep: 16 callers in one process, each with
/// its own handle on one file, made 69 creates/s through it and 522 with this (the ledger
/// bench, simulator answering at once; 62 and 341 with 20 ms added to every answer). The
/// handler is off only while the lock is sought; the statements inside the transaction have
/// it back.
fn begin_immediate(conn: &Connection, busy_timeout: Duration) -> rusqlite::Result<Transaction<'_>> {
    conn.busy_timeout(Duration::ZERO)?;
    let started = Instant::now();
    // `new_unchecked` takes the connection shared, so the tries can borrow it one after
    // another; the mutex guard around it is what rules out a nested transaction.
    let locked = loop {
        match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Err(error) if is_busy(&error) && started.elapsed() < busy_timeout => {
                std::thread::sleep(WRITE_LOCK_POLL);
            }
            result => break result,
        }
    };
    // Restored whatever came of it; a transaction that cannot have it is rolled back.
    conn.busy_timeout(busy_timeout)?;
    locked
}

fn is_busy(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
}

impl Store for SqliteStore {
    /// `BEGIN IMMEDIATE`: the write lock taken up front, so a busy database waits for the
    /// busy timeout instead of failing on lock upgrade.
    fn write(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError> {
        self.transaction(doing, TransactionBehavior::Immediate, work)
    }

    fn read(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError> {
        self.transaction(doing, TransactionBehavior::Deferred, work)
    }

    fn schema_version(&self) -> Result<u32, LedgerError> {
        schema::version(&self.lock())
    }

    fn location(&self) -> &str {
        &self.location
    }

    fn path(&self) -> Option<&Path> {
        Some(&self.path)
    }
}

struct SqliteTx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    doing: &'a str,
    path: &'a Path,
}

impl SqliteTx<'_> {
    /// SQLite's error, the file named if it says the file is damaged (found after opening:
    /// the check on opening reads the structure, not every row).
    fn fail(&self, e: rusqlite::Error) -> LedgerError {
        match LedgerError::naming_file(self.path, LedgerError::sqlite(self.doing, e)) {
            unreadable @ LedgerError::Unreadable { .. } => unreadable,
            LedgerError::Sqlite { source, .. } => LedgerError::sqlite(self.doing, source),
            other => other,
        }
    }
}

impl Tx for SqliteTx<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, LedgerError> {
        let changed = self
            .tx
            .execute(sql, rusqlite::params_from_iter(params))
            .map_err(|e| self.fail(e))?;
        Ok(u64::try_from(changed).unwrap_or(u64::MAX))
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, LedgerError> {
        let mut statement = self.tx.prepare(sql).map_err(|e| self.fail(e))?;
        let columns = statement.column_count();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| self.fail(e))?;
        let mut all = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.fail(e))? {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                values.push(match row.get_ref(i).map_err(|e| self.fail(e))? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(v) => Value::Int(v),
                    ValueRef::Real(v) => Value::Real(v),
                    ValueRef::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
                    ValueRef::Blob(_) => {
                        return Err(LedgerError::Corrupt(format!("a blob in column {i}")));
                    }
                });
            }
            all.push(Row(values));
        }
        Ok(all)
    }

    fn lock_key(&mut self, _: &str) -> Result<(), LedgerError> {
        Ok(())
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Self::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Self::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Self::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Self::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Self::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*v))),
        })
    }
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

/// Reads the file's structure (`PRAGMA quick_check`: every page of every b-tree, not the
/// indexes against their tables), so that a damaged ledger is refused on opening, before a
/// create is claimed or sent, rather than at the first query that meets the damage.
fn check_pages(conn: &Connection) -> Result<(), LedgerError> {
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(|e| LedgerError::sqlite("checking the file", e))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(LedgerError::Unreadable {
            path: PathBuf::new(),
            reason: verdict.chars().take(200).collect(),
        })
    }
}

/// Switches the file to WAL. SQLite does not call the busy handler for a journal-mode change
/// it cannot make at once (another connection opening the same new file holds a lock), so the
/// change is retried here, every 10 ms, for as long as the busy timeout: two processes
/// opening one new ledger at the same moment both succeed.
fn switch_to_wal(
    conn: &Connection,
    busy_timeout: std::time::Duration,
) -> Result<String, LedgerError> {
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        }) {
            Ok(mode) => return Ok(mode),
            Err(rusqlite::Error::SqliteFailure(code, _))
                if matches!(
                    code.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && started.elapsed() < busy_timeout =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(LedgerError::sqlite("switching to WAL", e)),
        }
    }
}
