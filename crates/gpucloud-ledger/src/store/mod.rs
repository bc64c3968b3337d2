//! The databases a ledger can live in, behind one interface: a transaction that runs
//! statements written once, in the SQL that SQLite and PostgreSQL both understand, with
//! `?N` parameters ([`postgres`] renumbers them `$N`). Every query of the ledger is written
//! against [`Tx`]; a backend only moves values in and out.

use std::fmt;

use crate::error::LedgerError;

#[cfg(feature = "postgres")]
pub(crate) mod postgres;
pub(crate) mod sqlite;

/// A value bound to a statement or read from a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Self::Int(v)
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Self::Int(i64::from(v))
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Self::Real(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Self::Bool(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Self::Text(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Self::Text(v)
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Self::Text(v.clone())
    }
}

impl From<u16> for Value {
    fn from(v: u16) -> Self {
        Self::Int(i64::from(v))
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Self::Null, Into::into)
    }
}

/// The parameters of a statement: `vals![a, b]` is `[Value::from(a), Value::from(b)]`.
macro_rules! vals {
    ($($value:expr),* $(,)?) => {
        [$($crate::store::Value::from($value)),*]
    };
}
pub(crate) use vals;

/// One row of an answer, its columns in the order the query names them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    fn value(&self, i: usize) -> Result<&Value, LedgerError> {
        self.0
            .get(i)
            .ok_or_else(|| LedgerError::Corrupt(format!("no column {i} in a row")))
    }

    fn wrong(&self, i: usize, wanted: &str) -> LedgerError {
        LedgerError::Corrupt(format!("column {i} is {:?}, not {wanted}", self.0.get(i)))
    }

    pub(crate) fn opt_int(&self, i: usize) -> Result<Option<i64>, LedgerError> {
        match self.value(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            _ => Err(self.wrong(i, "an integer")),
        }
    }

    pub(crate) fn int(&self, i: usize) -> Result<i64, LedgerError> {
        self.opt_int(i)?.ok_or_else(|| self.wrong(i, "an integer"))
    }

    pub(crate) fn opt_real(&self, i: usize) -> Result<Option<f64>, LedgerError> {
        match self.value(i)? {
            Value::Null => Ok(None),
            Value::Real(v) => Ok(Some(*v)),
            // SQLite hands back a REAL with no fraction as written; an integer is a number too.
            #[allow(clippy::cast_precision_loss)]
            Value::Int(v) => Ok(Some(*v as f64)),
            _ => Err(self.wrong(i, "a number")),
        }
    }

    pub(crate) fn opt_text(&self, i: usize) -> Result<Option<String>, LedgerError> {
        match self.value(i)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            _ => Err(self.wrong(i, "text")),
        }
    }

    pub(crate) fn text(&self, i: usize) -> Result<String, LedgerError> {
        self.opt_text(i)?.ok_or_else(|| self.wrong(i, "text"))
    }
}

/// One transaction.
pub(crate) trait Tx {
    /// Runs a statement; returns how many rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, LedgerError>;
    /// Runs a query; returns every row.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, LedgerError>;
    /// Holds `key` until the transaction ends, so that transactions on the same key run one
    /// after another. (SQLite: every write transaction already holds the file's one write lock.)
    fn lock_key(&mut self, key: &str) -> Result<(), LedgerError>;
}

/// Work done inside a transaction.
pub(crate) type Work<'a> = dyn FnMut(&mut dyn Tx) -> Result<(), LedgerError> + 'a;

/// A database a ledger lives in.
pub(crate) trait Store: fmt::Debug + Send + Sync {
    /// Runs `work` in one transaction that may write: committed when it returns `Ok`, rolled
    /// back otherwise.
    fn write(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError>;
    /// Runs `work` in one transaction that only reads.
    fn read(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError>;
    /// The schema version the database has.
    fn schema_version(&self) -> Result<u32, LedgerError>;
    /// Where the database is, with no secret (a file path, or a PostgreSQL host and database).
    fn location(&self) -> &str;
    /// The file, for a ledger in SQLite.
    fn path(&self) -> Option<&std::path::Path> {
        None
    }
}
