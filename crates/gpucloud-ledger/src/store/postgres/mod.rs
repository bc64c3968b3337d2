//! The shared backend: a PostgreSQL database that a team's machines use at once.
//!
//! The facade's journal calls are synchronous and may come from inside any async runtime, so
//! the driver (tokio-postgres, with a deadpool pool that replaces broken connections) runs on
//! a small runtime of the ledger's own. A transaction is a task there holding one pooled
//! connection; the calling thread sends it one statement at a time and waits, bounded, for
//! each answer. The calling thread never enters that runtime, so nothing nests.
//!
//! Concurrent claims on one name are serialized by a transaction-scoped advisory lock on the
//! name ([`Tx::lock_key`]); everything else is plain `READ COMMITTED`.
//!
//! This file connects (TLS, pool, runtime) and migrates; `transaction` is the task that holds
//! a connection and the calling thread's side of talking to it; `dialect` turns the ledger's
//! backend-neutral statements and values into PostgreSQL's and back.

mod dialect;
mod transaction;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::config::{Host, SslMode};

use super::{Store, Tx, Value, Work};
use crate::error::LedgerError;
use crate::options::LedgerOptions;
use crate::schema;

/// A ledger in PostgreSQL.
pub(crate) struct PostgresStore {
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    location: String,
    timeout: Duration,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl Drop for PostgresStore {
    /// Without blocking: the ledger may be dropped inside an async runtime.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db?sslmode=…`)
    /// and applies every missing migration up to `version`. TLS is used as `sslmode` says
    /// (`prefer` by default: TLS where the server offers it), verified against the platform's
    /// roots.
    pub(crate) fn open(
        url: &str,
        options: &LedgerOptions,
        version: u32,
    ) -> Result<Self, LedgerError> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e: tokio_postgres::Error| {
                LedgerError::unavailable("reading the PostgreSQL location", e.to_string())
            })?;
        let location = describe(&config);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(options.busy_timeout);
        }
        if config.get_application_name().is_none() {
            config.application_name("gpucloud-ledger");
        }
        if config.get_options().is_none() {
            // A statement that waits longer than a write may wait on SQLite fails instead.
            config.options(format!(
                "-c statement_timeout={}",
                options.busy_timeout.as_millis()
            ));
        }
        let manager_config = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        let manager = if config.get_ssl_mode() == SslMode::Disable {
            Manager::from_config(config, tokio_postgres::NoTls, manager_config)
        } else {
            let mut tls = gpucloud_core::tls::rustls_config().map_err(|e| {
                LedgerError::unavailable("configuring TLS for PostgreSQL", e.to_string())
            })?;
            // The HTTP clients' ALPN is not PostgreSQL's.
            tls.alpn_protocols.clear();
            Manager::from_config(
                config,
                tokio_postgres_rustls::MakeRustlsConnect::new(tls),
                manager_config,
            )
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("gpucloud-ledger-postgres")
            .enable_all()
            .build()
            .map_err(|e| {
                LedgerError::unavailable("starting the PostgreSQL driver", e.to_string())
            })?;
        let timeout = options.busy_timeout;
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(timeout))
            .create_timeout(Some(timeout))
            .recycle_timeout(Some(timeout))
            .build()
            .map_err(|e| LedgerError::unavailable("creating the connection pool", e.to_string()))?;
        let store = Self {
            runtime: Some(runtime),
            pool,
            location,
            timeout,
        };
        store.migrate_to(version)?;
        Ok(store)
    }

    /// Applies the missing migrations in one transaction, under an advisory lock so that
    /// several processes opening a new database at once migrate it once.
    fn migrate_to(&self, target: u32) -> Result<(), LedgerError> {
        let doing = format!("opening the ledger at {}", self.location);
        self.write(&doing, &mut |tx| {
            tx.lock_key("gpucloud-ledger schema")?;
            tx.exec(
                "CREATE TABLE IF NOT EXISTS gpucloud_ledger_schema (version BIGINT NOT NULL)",
                &[],
            )?;
            let found = current_version(tx)?;
            if found > schema::SCHEMA_VERSION {
                return Err(LedgerError::SchemaTooNew {
                    found: i64::from(found),
                    known: schema::SCHEMA_VERSION,
                });
            }
            for step in schema::MIGRATIONS
                .iter()
                .filter(|m| m.version > found && m.version <= target)
            {
                for statement in step.postgres.split(';').map(str::trim) {
                    if !statement.is_empty() {
                        tx.exec(statement, &[])?;
                    }
                }
                tx.exec("DELETE FROM gpucloud_ledger_schema", &[])?;
                tx.exec(
                    "INSERT INTO gpucloud_ledger_schema (version) VALUES (?1)",
                    &[Value::from(step.version)],
                )?;
            }
            Ok(())
        })
    }

    fn runtime(&self) -> Result<&tokio::runtime::Runtime, LedgerError> {
        self.runtime
            .as_ref()
            .ok_or_else(|| LedgerError::unavailable("using the ledger", "it is shut down"))
    }

    fn transaction(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError> {
        transaction::run(self.runtime()?, &self.pool, self.timeout, doing, work)
    }
}

fn current_version(tx: &mut dyn Tx) -> Result<u32, LedgerError> {
    let rows = tx.query("SELECT MAX(version) FROM gpucloud_ledger_schema", &[])?;
    let found = rows.first().map(|r| r.opt_int(0)).transpose()?.flatten();
    u32::try_from(found.unwrap_or(0)).map_err(|_| LedgerError::SchemaTooNew {
        found: found.unwrap_or(0),
        known: schema::SCHEMA_VERSION,
    })
}

impl Store for PostgresStore {
    fn write(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError> {
        self.transaction(doing, work)
    }

    fn read(&self, doing: &str, work: &mut Work<'_>) -> Result<(), LedgerError> {
        self.transaction(doing, work)
    }

    fn schema_version(&self) -> Result<u32, LedgerError> {
        let mut version = 0;
        self.read("reading the schema version", &mut |tx| {
            version = current_version(tx)?;
            Ok(())
        })?;
        Ok(version)
    }

    fn location(&self) -> &str {
        &self.location
    }
}

/// `postgres://user@host:port/db`: where the database is, never the password.
fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{host}:{port}/{}",
        config.get_user().unwrap_or(""),
        config.get_dbname().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::dialect::numbered;
    use super::*;

    #[test]
    fn parameters_are_renumbered_and_the_password_is_never_described() {
        assert_eq!(numbered("a = ?1 AND b = ?12"), "a = $1 AND b = $12");
        let config: tokio_postgres::Config = "postgres://team:s3cret@db.example:6432/ledger"
            .parse()
            .unwrap();
        let text = describe(&config);
        assert_eq!(text, "postgres://team@db.example:6432/ledger");
    }
}
