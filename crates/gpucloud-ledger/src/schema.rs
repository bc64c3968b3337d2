//! The ledger's schema and its migrations: an ordered list, the database's `PRAGMA
//! user_version` saying how many of them it has. Opening a ledger applies the missing ones in
//! one `BEGIN IMMEDIATE` transaction (so two processes opening an old file at once migrate it
//! once), and refuses a file written by a newer build rather than guess at its schema.

use rusqlite::{Connection, TransactionBehavior};

use crate::LedgerError;

/// One step of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// The `user_version` a database has once this step is applied.
    pub version: u32,
    /// What the step does.
    pub description: &'static str,
    /// The SQL, run as one batch inside the migration's transaction.
    pub sql: &'static str,
}

/// Every migration, in order; `MIGRATIONS[i].version == i + 1`. Append only: a released step
/// is never edited.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "create and delete intents",
        sql: "
CREATE TABLE create_intents (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    provider        TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    scope           TEXT,
    idempotency_key TEXT,
    request_sha256  TEXT    NOT NULL,
    pid             INTEGER NOT NULL,
    started_at_ms   INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'completed', 'failed_ambiguous', 'failed')),
    cluster_id      TEXT,
    outcome         TEXT
                    CHECK (outcome IN ('created', 'created_reconciled', 'already_existed',
                                       'found_by_lookup')),
    error_kind      TEXT,
    error_status    INTEGER,
    finished_at_ms  INTEGER
) STRICT;
CREATE TABLE delete_intents (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    provider        TEXT    NOT NULL,
    cluster_id      TEXT    NOT NULL,
    pid             INTEGER NOT NULL,
    started_at_ms   INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'completed', 'failed')),
    error_kind      TEXT,
    error_status    INTEGER,
    finished_at_ms  INTEGER
) STRICT;
",
    },
    Migration {
        version: 2,
        description: "how an intent was resolved after the fact; indexes for the CLI's queries",
        sql: "
ALTER TABLE create_intents ADD COLUMN resolution TEXT;
ALTER TABLE create_intents ADD COLUMN resolved_at_ms INTEGER;
CREATE INDEX create_intents_by_state ON create_intents (provider, state);
CREATE INDEX delete_intents_by_cluster ON delete_intents (provider, cluster_id);
",
    },
    Migration {
        version: 3,
        description: "what a client last saw of each cluster: state, price, when it was gone",
        sql: "
ALTER TABLE create_intents ADD COLUMN last_state TEXT;
ALTER TABLE create_intents ADD COLUMN last_phase TEXT;
ALTER TABLE create_intents ADD COLUMN last_seen_at_ms INTEGER;
ALTER TABLE create_intents ADD COLUMN price_per_hour REAL;
ALTER TABLE create_intents ADD COLUMN currency TEXT;
ALTER TABLE create_intents ADD COLUMN gone_at_ms INTEGER;
CREATE INDEX create_intents_by_cluster ON create_intents (provider, cluster_id);
",
    },
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// The database's `user_version`.
pub fn version(conn: &Connection) -> Result<u32, LedgerError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| LedgerError::sqlite("reading the schema version", e))?;
    u32::try_from(version).map_err(|_| LedgerError::SchemaTooNew {
        found: version,
        known: SCHEMA_VERSION,
    })
}

/// Applies every missing migration up to `target`, in one transaction; returns the version
/// the database had before.
pub fn migrate_to(conn: &mut Connection, target: u32) -> Result<u32, LedgerError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| LedgerError::sqlite("locking the ledger to migrate it", e))?;
    let found = version(&tx)?;
    if found > SCHEMA_VERSION {
        return Err(LedgerError::SchemaTooNew {
            found: i64::from(found),
            known: SCHEMA_VERSION,
        });
    }
    for step in MIGRATIONS
        .iter()
        .filter(|m| m.version > found && m.version <= target)
    {
        tx.execute_batch(step.sql).map_err(|e| {
            LedgerError::sqlite(
                format!("migration {} ({})", step.version, step.description),
                e,
            )
        })?;
        // `user_version` takes no bound parameter; the value is our own integer.
        tx.execute_batch(&format!("PRAGMA user_version = {}", step.version))
            .map_err(|e| LedgerError::sqlite("recording the schema version", e))?;
    }
    tx.commit()
        .map_err(|e| LedgerError::sqlite("committing the migration", e))?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive_from_one() {
        for (i, step) in MIGRATIONS.iter().enumerate() {
            assert_eq!(step.version as usize, i + 1, "{}", step.description);
        }
    }
}
