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

use std::error::Error as StdError;
use std::sync::mpsc;
use std::time::Duration;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use super::{Row, Store, Tx, Value, Work};
use crate::{LedgerError, LedgerOptions, schema};

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
        let (commands, inbox) = tokio::sync::mpsc::unbounded_channel();
        let (ready, began) = mpsc::sync_channel(1);
        self.runtime()?
            .spawn(serve(self.pool.clone(), inbox, ready, doing.to_string()));
        answer(&began, self.timeout, doing)?;
        let mut tx = PostgresTx {
            commands: &commands,
            doing,
            timeout: self.timeout,
        };
        // On an error the commands are dropped: the task rolls the transaction back.
        work(&mut tx)?;
        tx.send(Command::Commit)
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

enum Command {
    Exec(
        String,
        Vec<Value>,
        mpsc::SyncSender<Result<Answer, LedgerError>>,
    ),
    Query(
        String,
        Vec<Value>,
        mpsc::SyncSender<Result<Answer, LedgerError>>,
    ),
    Commit(mpsc::SyncSender<Result<Answer, LedgerError>>),
}

enum Answer {
    Changed(u64),
    Rows(Vec<Row>),
    Done,
}

struct PostgresTx<'a> {
    commands: &'a tokio::sync::mpsc::UnboundedSender<Command>,
    doing: &'a str,
    timeout: Duration,
}

impl PostgresTx<'_> {
    fn send(
        &mut self,
        command: impl FnOnce(mpsc::SyncSender<Result<Answer, LedgerError>>) -> Command,
    ) -> Result<(), LedgerError> {
        self.ask(command).map(drop)
    }

    fn ask(
        &mut self,
        command: impl FnOnce(mpsc::SyncSender<Result<Answer, LedgerError>>) -> Command,
    ) -> Result<Answer, LedgerError> {
        let (reply, answered) = mpsc::sync_channel(1);
        self.commands
            .send(command(reply))
            .map_err(|_| LedgerError::unavailable(self.doing, "the connection was lost"))?;
        answer(&answered, self.timeout, self.doing)
    }
}

/// The task's answer, waited for at most `timeout`.
fn answer<T>(
    from: &mpsc::Receiver<Result<T, LedgerError>>,
    timeout: Duration,
    doing: &str,
) -> Result<T, LedgerError> {
    match from.recv_timeout(timeout) {
        Ok(answer) => answer,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(LedgerError::unavailable(
            doing,
            format!("PostgreSQL did not answer within {} s", timeout.as_secs()),
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(LedgerError::unavailable(doing, "the connection was lost"))
        }
    }
}

impl Tx for PostgresTx<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, LedgerError> {
        match self.ask(|reply| Command::Exec(numbered(sql), params.to_vec(), reply))? {
            Answer::Changed(n) => Ok(n),
            _ => Err(LedgerError::unavailable(
                self.doing,
                "an answer out of turn",
            )),
        }
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, LedgerError> {
        match self.ask(|reply| Command::Query(numbered(sql), params.to_vec(), reply))? {
            Answer::Rows(rows) => Ok(rows),
            _ => Err(LedgerError::unavailable(
                self.doing,
                "an answer out of turn",
            )),
        }
    }

    fn lock_key(&mut self, key: &str) -> Result<(), LedgerError> {
        self.query(
            "SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))::text",
            &[Value::from(key)],
        )
        .map(drop)
    }
}

/// Holds one pooled connection in a transaction and runs the statements sent to it, until
/// a commit or until the sender goes away (then the transaction is rolled back).
async fn serve(
    pool: Pool,
    mut inbox: tokio::sync::mpsc::UnboundedReceiver<Command>,
    ready: mpsc::SyncSender<Result<(), LedgerError>>,
    doing: String,
) {
    let mut client = match pool.get().await {
        Ok(client) => client,
        Err(e) => {
            let _ = ready.send(Err(LedgerError::unavailable(&doing, causes(&e))));
            return;
        }
    };
    let tx = match client.transaction().await {
        Ok(tx) => tx,
        Err(e) => {
            let _ = ready.send(Err(LedgerError::postgres(&doing, e)));
            return;
        }
    };
    if ready.send(Ok(())).is_err() {
        return;
    }
    while let Some(command) = inbox.recv().await {
        match command {
            Command::Exec(sql, params, reply) => {
                let answer = run(&tx, &sql, &params, false, &doing).await;
                let _ = reply.send(answer);
            }
            Command::Query(sql, params, reply) => {
                let answer = run(&tx, &sql, &params, true, &doing).await;
                let _ = reply.send(answer);
            }
            Command::Commit(reply) => {
                let answer = tx
                    .commit()
                    .await
                    .map(|()| Answer::Done)
                    .map_err(|e| LedgerError::postgres(&doing, e));
                let _ = reply.send(answer);
                return;
            }
        }
    }
}

/// Runs one statement, prepared once per connection (the pool's statement cache: the ledger
/// sends the same few statements over and over).
async fn run(
    tx: &deadpool_postgres::Transaction<'_>,
    sql: &str,
    params: &[Value],
    rows: bool,
    doing: &str,
) -> Result<Answer, LedgerError> {
    let failed = |e| LedgerError::postgres(doing, e);
    let statement = tx.prepare_cached(sql).await.map_err(failed)?;
    let params: Vec<Param<'_>> = params.iter().map(Param).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    if rows {
        let rows = tx.query(&statement, &refs).await.map_err(failed)?;
        rows.iter()
            .map(|r| read_row(r, doing))
            .collect::<Result<_, _>>()
            .map(Answer::Rows)
    } else {
        tx.execute(&statement, &refs)
            .await
            .map(Answer::Changed)
            .map_err(failed)
    }
}

/// An error and its sources on one line (the pool's "error connecting to server" says why only
/// in its source: "Connection refused").
fn causes(error: &(dyn StdError + 'static)) -> String {
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

fn read_row(row: &tokio_postgres::Row, doing: &str) -> Result<Row, LedgerError> {
    let get = |e| LedgerError::postgres(doing, e);
    let mut values = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)
                .map_err(get)?
                .map(Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)
                .map_err(get)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)
                .map_err(get)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)
                .map_err(get)?
                .map(Value::Real)
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)
                .map_err(get)?
                .map(Value::Bool)
        } else if *ty == Type::TEXT || *ty == Type::VARCHAR {
            row.try_get::<_, Option<String>>(i)
                .map_err(get)?
                .map(Value::Text)
        } else {
            return Err(LedgerError::Corrupt(format!(
                "column {:?} has type {ty}, which the ledger does not read",
                column.name()
            )));
        };
        values.push(value.unwrap_or(Value::Null));
    }
    Ok(Row(values))
}

/// `?N` parameters renumbered `$N`, PostgreSQL's form (the ledger's SQL has no `?` elsewhere).
fn numbered(sql: &str) -> String {
    sql.replace('?', "$")
}

/// A [`Value`] bound as the type PostgreSQL inferred for its parameter.
#[derive(Debug)]
struct Param<'a>(&'a Value);

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT8 => v.to_sql(ty, out),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
            #[allow(clippy::cast_precision_loss)]
            Value::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            Value::Real(v) if *ty == Type::FLOAT8 => v.to_sql(ty, out),
            Value::Bool(v) if *ty == Type::BOOL => v.to_sql(ty, out),
            Value::Text(v) if *ty == Type::TEXT || *ty == Type::VARCHAR => v.to_sql(ty, out),
            other => Err(format!("the ledger cannot bind {other:?} as {ty}").into()),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
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
