//! How to open a ledger: the bounds every backend honours.

use std::time::Duration;

/// How long a write waits for another process's transaction (SQLite's busy timeout; on
/// PostgreSQL, the connect, pool and statement timeouts) before it fails, by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How to open a ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerOptions {
    /// How long a write waits for another process (see [`DEFAULT_BUSY_TIMEOUT`]).
    pub busy_timeout: Duration,
    /// The most connections a PostgreSQL ledger holds (default 4).
    pub pool_size: usize,
}

impl Default for LedgerOptions {
    fn default() -> Self {
        Self {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            pool_size: 4,
        }
    }
}
