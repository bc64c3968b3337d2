//! What can go wrong with a ledger.

use std::fmt;
use std::path::PathBuf;

/// A ledger could not be opened, read or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum LedgerError {
    /// No location: `GPUCLOUD_LEDGER`, `XDG_STATE_HOME` and `HOME` are all unset or relative.
    NoLocation,
    /// The file or its directory could not be created.
    Io {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// SQLite refused (a lock held past the busy timeout, a full disk, a corrupt file).
    Sqlite {
        /// What the ledger was doing.
        doing: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// PostgreSQL refused a statement (a constraint, a timeout, a lost connection).
    #[cfg(feature = "postgres")]
    Postgres {
        /// What the ledger was doing.
        doing: String,
        /// The driver's error (it never holds the password).
        source: tokio_postgres::Error,
    },
    /// The database could not be reached or did not answer in time: nothing was recorded.
    Unavailable {
        /// What the ledger was doing.
        doing: String,
        /// Why.
        reason: String,
    },
    /// The claim on a create's name was lost: its lease ran out and another caller took it
    /// over.
    ClaimLost(u64),
    /// The location is neither a path nor a `postgres://` URL this build can open.
    UnsupportedLocation(String),
    /// The file was written by a newer build of this crate; it is left untouched.
    SchemaTooNew {
        /// The file's `user_version`.
        found: i64,
        /// The newest version this build knows.
        known: u32,
    },
    /// The file would not switch to write-ahead logging (e.g. on a network file system), so
    /// several processes could not share it safely.
    NotWal {
        /// The journal mode SQLite kept.
        mode: String,
    },
    /// The file is not a gpucloud ledger (another program's SQLite database): it was
    /// refused before anything was written to it.
    NotALedger {
        /// The file.
        path: PathBuf,
        /// What it holds instead (its application id and tables).
        found: String,
    },
    /// The file is damaged (SQLite: malformed, or not a database): nothing was written to it,
    /// and it is never replaced, since it is the only record of the clusters it lists.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// SQLite's words.
        reason: String,
    },
    /// A row holds a value this build does not know (written by hand, or by a newer build).
    Corrupt(String),
    /// No intent with this id.
    NoSuchIntent(u64),
}

impl LedgerError {
    pub(crate) fn sqlite(doing: impl Into<String>, source: rusqlite::Error) -> Self {
        Self::Sqlite {
            doing: doing.into(),
            source,
        }
    }

    #[cfg(feature = "postgres")]
    pub(crate) fn postgres(doing: impl Into<String>, source: tokio_postgres::Error) -> Self {
        Self::Postgres {
            doing: doing.into(),
            source,
        }
    }

    pub(crate) fn unavailable(doing: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Unavailable {
            doing: doing.into(),
            reason: reason.into(),
        }
    }

    /// `error`, raised while opening the file at `path`, with the file named: a damaged file
    /// becomes [`Self::Unreadable`], another program's [`Self::NotALedger`] gets its path.
    pub(crate) fn naming_file(path: &std::path::Path, error: Self) -> Self {
        match error {
            Self::NotALedger { found, .. } => Self::NotALedger {
                path: path.to_path_buf(),
                found,
            },
            Self::Unreadable { reason, .. } => Self::Unreadable {
                path: path.to_path_buf(),
                reason,
            },
            Self::Sqlite { source, .. }
                if matches!(
                    source.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
                ) =>
            {
                Self::Unreadable {
                    path: path.to_path_buf(),
                    reason: source.to_string(),
                }
            }
            Self::Sqlite { doing, source } => Self::Sqlite {
                doing: format!("{}: {doing}", path.display()),
                source,
            },
            other => other,
        }
    }

    /// Whether the database could not be reached or did not answer (so a retry later may
    /// work), as opposed to a refusal.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Unavailable { .. } => true,
            #[cfg(feature = "postgres")]
            Self::Postgres { source, .. } => source.is_closed() || source.code().is_none(),
            _ => false,
        }
    }

    /// Whether the failure was another process holding the database longer than the busy
    /// timeout.
    pub fn is_locked(&self) -> bool {
        matches!(
            self,
            Self::Sqlite { source, .. } if matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            )
        )
    }
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoLocation => f.write_str(
                "no ledger location: set GPUCLOUD_LEDGER, XDG_STATE_HOME or HOME (absolute)",
            ),
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Sqlite { doing, source } => write!(f, "{doing}: {source}"),
            #[cfg(feature = "postgres")]
            Self::Postgres { doing, source } => match source.as_db_error() {
                Some(db) => write!(f, "{doing}: PostgreSQL: {}", db.message()),
                None => write!(f, "{doing}: PostgreSQL: {source}"),
            },
            Self::Unavailable { doing, reason } => {
                write!(
                    f,
                    "{doing}: the ledger's database is unavailable ({reason})"
                )
            }
            Self::ClaimLost(id) => write!(
                f,
                "the claim of create #{id} was lost: its lease ran out and another caller took it over"
            ),
            Self::UnsupportedLocation(what) => write!(f, "unsupported ledger location: {what}"),
            Self::SchemaTooNew { found, known } => write!(
                f,
                "the ledger has schema version {found}, newer than this build's {known}: \
                 upgrade gpucloud (the file is left as it is)"
            ),
            Self::NotWal { mode } => write!(
                f,
                "the ledger stayed in journal mode {mode:?} instead of WAL (a network file \
                 system?): set GPUCLOUD_LEDGER to a local path"
            ),
            Self::NotALedger { path, found } => write!(
                f,
                "{} is not a gpucloud ledger ({found}); it was left as it was: point \
                 GPUCLOUD_LEDGER at a gpucloud ledger file, or at a path where none exists yet",
                path.display()
            ),
            Self::Unreadable { path, reason } => write!(
                f,
                "the ledger {p} cannot be read ({reason}); nothing was written to it. It is \
                 the record of the clusters gpucloud created from here, so keep it: copy it \
                 aside (cp {p} {p}.damaged) and try `sqlite3 {p}.damaged .recover` for what \
                 can still be read. Another GPUCLOUD_LEDGER starts an empty record, and \
                 --no-ledger keeps none: either way no sweep will see the clusters this file \
                 recorded",
                p = path.display()
            ),
            Self::Corrupt(what) => write!(f, "unreadable ledger row: {what}"),
            Self::NoSuchIntent(id) => write!(f, "no intent {id} in the ledger"),
        }
    }
}

impl std::error::Error for LedgerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Sqlite { source, .. } => Some(source),
            #[cfg(feature = "postgres")]
            Self::Postgres { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `error` and its sources on one line, each said once (some errors repeat their source).
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    line
}
