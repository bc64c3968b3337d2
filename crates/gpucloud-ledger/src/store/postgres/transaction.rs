//! One transaction as a task on the ledger's runtime: the task holds a pooled connection
//! inside `BEGIN` and runs the statements it is sent; the calling thread ([`PostgresTx`]) sends
//! them one at a time and waits, bounded, for each answer. A commit ends the task; a sender that
//! goes away (the work failed) rolls the transaction back.

use std::sync::mpsc;
use std::time::Duration;

use deadpool_postgres::Pool;
use tokio::runtime::Runtime;
use tokio_postgres::types::ToSql;

use super::dialect::{Param, numbered, read_row};
use crate::error::LedgerError;
use crate::store::{Row, Tx, Value, Work};

/// Runs `work` in one transaction on a connection from `pool`, held by a task on `runtime`;
/// every answer is waited for at most `timeout`, so a database that went away fails the call
/// instead of hanging it.
pub(super) fn run(
    runtime: &Runtime,
    pool: &Pool,
    timeout: Duration,
    doing: &str,
    work: &mut Work<'_>,
) -> Result<(), LedgerError> {
    let (commands, inbox) = tokio::sync::mpsc::unbounded_channel();
    let (ready, began) = mpsc::sync_channel(1);
    runtime.spawn(serve(pool.clone(), inbox, ready, doing.to_string()));
    answer(&began, timeout, doing)?;
    let mut tx = PostgresTx {
        commands: &commands,
        doing,
        timeout,
    };
    // On an error the commands are dropped: the task rolls the transaction back.
    work(&mut tx)?;
    tx.send(Command::Commit)
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
            let _ = ready.send(Err(LedgerError::unavailable(
                &doing,
                crate::error::chain(&e),
            )));
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
                let answer = statement(&tx, &sql, &params, false, &doing).await;
                let _ = reply.send(answer);
            }
            Command::Query(sql, params, reply) => {
                let answer = statement(&tx, &sql, &params, true, &doing).await;
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
async fn statement(
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
