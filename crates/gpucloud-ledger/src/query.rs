//! What the ledger answers: every cluster gpucloud created, the intents whose outcome is
//! unknown, the deletes; and how an unknown outcome is settled after a look-up.

use chrono::{DateTime, Utc};
use gpucloud::journal::IntentId;
use gpucloud::{ClusterId, ProviderKind};
use rusqlite::{Row, params};
use serde::Serialize;

use crate::journal::{intent_id, row_id};
use crate::{Ledger, LedgerError, now_ms};

/// Where a create's intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentState {
    /// Recorded before its request; no outcome yet. The process may still be running, or may
    /// have died between the request and its answer: a cluster may exist.
    Pending,
    /// A cluster exists: its id is known.
    Completed,
    /// The create failed in a way that may have created a cluster anyway (a timeout, a
    /// dropped connection, a 5xx): look it up.
    FailedAmbiguous,
    /// The create failed and made nothing (or a look-up found nothing).
    Failed,
}

impl IntentState {
    /// The word stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Completed => "completed",
            Self::FailedAmbiguous => "failed_ambiguous",
            Self::Failed => "failed",
        }
    }

    /// Whether a cluster may exist that the ledger has no id for.
    pub fn is_unresolved(self) -> bool {
        matches!(self, Self::Pending | Self::FailedAmbiguous)
    }

    fn parse(s: &str) -> Result<Self, LedgerError> {
        [
            Self::Pending,
            Self::Completed,
            Self::FailedAmbiguous,
            Self::Failed,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| LedgerError::Corrupt(format!("intent state {s:?}")))
    }
}

/// How a completed create got its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The create made it.
    Created,
    /// The create made it; its answer was lost and a look-up found it.
    CreatedReconciled,
    /// A cluster of that name (or key) existed before.
    AlreadyExisted,
    /// The create's outcome was unknown; a later look-up found the cluster.
    FoundByLookup,
}

impl Outcome {
    /// The word stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::CreatedReconciled => "created_reconciled",
            Self::AlreadyExisted => "already_existed",
            Self::FoundByLookup => "found_by_lookup",
        }
    }

    fn parse(s: &str) -> Result<Self, LedgerError> {
        [
            Self::Created,
            Self::CreatedReconciled,
            Self::AlreadyExisted,
            Self::FoundByLookup,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| LedgerError::Corrupt(format!("outcome {s:?}")))
    }
}

/// What the ledger keeps of an error: its kind (`timeout`, `no_capacity`, `api`, …, the
/// facade's `Error` variant in snake case) and HTTP status, never its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorSummary {
    /// The kind.
    pub kind: String,
    /// The provider's HTTP status, if it answered.
    pub status: Option<u16>,
}

/// One create gpucloud recorded, with what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterEntry {
    /// The intent's id (what [`Ledger::resolve_pending`] takes).
    pub intent: IntentId,
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster name.
    pub name: String,
    /// Where the name is unique (a Together project, `project/location` on E2E).
    pub scope: Option<String>,
    /// Runcrate's idempotency key.
    pub idempotency_key: Option<String>,
    /// SHA-256 (hex) of the request body.
    pub request_sha256: String,
    /// The process that sent the create.
    pub pid: u32,
    /// Where the intent stands.
    pub state: IntentState,
    /// The cluster, once known.
    pub cluster_id: Option<ClusterId>,
    /// How it came to be, once known.
    pub outcome: Option<Outcome>,
    /// Why the create failed.
    pub error: Option<ErrorSummary>,
    /// When the intent was recorded (before any request).
    pub created_at: DateTime<Utc>,
    /// When the create's outcome was recorded.
    pub finished_at: Option<DateTime<Utc>>,
    /// How an unknown outcome was settled later, and when.
    pub resolution: Option<(String, DateTime<Utc>)>,
    /// When the provider last accepted a delete of this cluster (or answered that it was
    /// already gone).
    pub deleted_at: Option<DateTime<Utc>>,
}

/// Where a delete stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteState {
    /// Sent, no answer recorded.
    Pending,
    /// The provider accepted it.
    Completed,
    /// It failed (`not_found`: the cluster was already gone).
    Failed,
}

/// One delete gpucloud recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteEntry {
    /// The intent's id.
    pub intent: IntentId,
    /// The provider.
    pub provider: ProviderKind,
    /// The cluster.
    pub cluster_id: ClusterId,
    /// The process that sent it.
    pub pid: u32,
    /// Where it stands.
    pub state: DeleteState,
    /// Why it failed.
    pub error: Option<ErrorSummary>,
    /// When it was recorded (before any request).
    pub started_at: DateTime<Utc>,
    /// When its outcome was recorded.
    pub finished_at: Option<DateTime<Utc>>,
}

/// What a later look-up found for an unresolved intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The cluster exists.
    Found(ClusterId),
    /// The provider has no such cluster: the create made nothing.
    Gone,
}

const CREATE_COLUMNS: &str = "c.id, c.provider, c.name, c.scope, c.idempotency_key, \
     c.request_sha256, c.pid, c.state, c.cluster_id, c.outcome, c.error_kind, c.error_status, \
     c.started_at_ms, c.finished_at_ms, c.resolution, c.resolved_at_ms, \
     (SELECT MAX(d.finished_at_ms) FROM delete_intents d \
      WHERE d.provider = c.provider AND d.cluster_id = c.cluster_id \
        AND (d.state = 'completed' OR d.error_kind = 'not_found'))";

impl Ledger {
    /// Every create recorded, oldest first.
    pub fn clusters(&self) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where("1", params![])
    }

    /// The creates whose outcome is unknown ([`IntentState::is_unresolved`]), oldest first;
    /// only `provider`'s if given.
    pub fn unresolved(
        &self,
        provider: Option<ProviderKind>,
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where(
            "c.state IN ('pending', 'failed_ambiguous') AND (?1 IS NULL OR c.provider = ?1)",
            params![provider.map(ProviderKind::as_str)],
        )
    }

    /// The creates still [`IntentState::Pending`], oldest first.
    pub fn pending(&self) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where("c.state = 'pending'", params![])
    }

    /// One create.
    pub fn entry(&self, intent: IntentId) -> Result<ClusterEntry, LedgerError> {
        self.creates_where("c.id = ?1", params![row_id(intent)?])?
            .pop()
            .ok_or(LedgerError::NoSuchIntent(intent))
    }

    /// Every delete recorded, oldest first.
    pub fn deletes(&self) -> Result<Vec<DeleteEntry>, LedgerError> {
        let conn = self.lock();
        let doing = "listing deletes";
        let mut statement = conn
            .prepare(
                "SELECT id, provider, cluster_id, pid, state, error_kind, error_status,
                        started_at_ms, finished_at_ms
                 FROM delete_intents ORDER BY id",
            )
            .map_err(|e| LedgerError::sqlite(doing, e))?;
        let rows = statement
            .query_map([], |row| Ok(delete_row(row)))
            .map_err(|e| LedgerError::sqlite(doing, e))?;
        rows.map(|r| r.map_err(|e| LedgerError::sqlite(doing, e))?)
            .collect()
    }

    /// Settles an unresolved create after a look-up: `Found` completes it with that cluster
    /// (outcome [`Outcome::FoundByLookup`]), `Gone` marks it failed. Returns `false`, changing
    /// nothing, when the intent was no longer unresolved (its process finished it, or another
    /// process resolved it first).
    pub fn resolve_pending(&self, intent: IntentId, lookup: &Lookup) -> Result<bool, LedgerError> {
        let (state, cluster, outcome, error, note) = match lookup {
            Lookup::Found(id) => (
                IntentState::Completed,
                Some(id.as_str()),
                Some(Outcome::FoundByLookup.as_str()),
                None,
                "found by name in the provider's list",
            ),
            Lookup::Gone => (
                IntentState::Failed,
                None,
                None,
                Some("gone"),
                "not found in the provider's list",
            ),
        };
        self.write("resolving an intent", |tx| {
            let exists: bool = tx
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM create_intents WHERE id = ?1)",
                    params![row_id(intent)?],
                    |row| row.get(0),
                )
                .map_err(|e| LedgerError::sqlite("resolving an intent", e))?;
            if !exists {
                return Err(LedgerError::NoSuchIntent(intent));
            }
            let changed = tx
                .execute(
                    "UPDATE create_intents
                     SET state = ?2, cluster_id = ?3, outcome = ?4, error_kind = ?5,
                         error_status = NULL, resolution = ?6, resolved_at_ms = ?7
                     WHERE id = ?1 AND state IN ('pending', 'failed_ambiguous')",
                    params![
                        row_id(intent)?,
                        state.as_str(),
                        cluster,
                        outcome,
                        error,
                        note,
                        now_ms()
                    ],
                )
                .map_err(|e| LedgerError::sqlite("resolving an intent", e))?;
            Ok(changed == 1)
        })
    }

    fn creates_where(
        &self,
        condition: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        let conn = self.lock();
        let doing = "listing creates";
        let sql = format!(
            "SELECT {CREATE_COLUMNS} FROM create_intents c WHERE {condition} ORDER BY c.id"
        );
        let mut statement = conn
            .prepare(&sql)
            .map_err(|e| LedgerError::sqlite(doing, e))?;
        let rows = statement
            .query_map(params, |row| Ok(create_row(row)))
            .map_err(|e| LedgerError::sqlite(doing, e))?;
        rows.map(|r| r.map_err(|e| LedgerError::sqlite(doing, e))?)
            .collect()
    }
}

fn create_row(row: &Row<'_>) -> Result<ClusterEntry, LedgerError> {
    let get = |e| LedgerError::sqlite("reading a create", e);
    let resolution: Option<String> = row.get(14).map_err(get)?;
    let resolved_at: Option<i64> = row.get(15).map_err(get)?;
    Ok(ClusterEntry {
        intent: intent_id(row.get(0).map_err(get)?)?,
        provider: provider(&row.get::<_, String>(1).map_err(get)?)?,
        name: row.get(2).map_err(get)?,
        scope: row.get(3).map_err(get)?,
        idempotency_key: row.get(4).map_err(get)?,
        request_sha256: row.get(5).map_err(get)?,
        pid: row.get(6).map_err(get)?,
        state: IntentState::parse(&row.get::<_, String>(7).map_err(get)?)?,
        cluster_id: row
            .get::<_, Option<String>>(8)
            .map_err(get)?
            .map(ClusterId::new),
        outcome: row
            .get::<_, Option<String>>(9)
            .map_err(get)?
            .map(|o| Outcome::parse(&o))
            .transpose()?,
        error: error_summary(row.get(10).map_err(get)?, row.get(11).map_err(get)?),
        created_at: time(row.get(12).map_err(get)?)?,
        finished_at: row
            .get::<_, Option<i64>>(13)
            .map_err(get)?
            .map(time)
            .transpose()?,
        resolution: match (resolution, resolved_at) {
            (Some(note), Some(at)) => Some((note, time(at)?)),
            _ => None,
        },
        deleted_at: row
            .get::<_, Option<i64>>(16)
            .map_err(get)?
            .map(time)
            .transpose()?,
    })
}

fn delete_row(row: &Row<'_>) -> Result<DeleteEntry, LedgerError> {
    let get = |e| LedgerError::sqlite("reading a delete", e);
    let state = match row.get::<_, String>(4).map_err(get)?.as_str() {
        "pending" => DeleteState::Pending,
        "completed" => DeleteState::Completed,
        "failed" => DeleteState::Failed,
        other => return Err(LedgerError::Corrupt(format!("delete state {other:?}"))),
    };
    Ok(DeleteEntry {
        intent: intent_id(row.get(0).map_err(get)?)?,
        provider: provider(&row.get::<_, String>(1).map_err(get)?)?,
        cluster_id: ClusterId::new(row.get::<_, String>(2).map_err(get)?),
        pid: row.get(3).map_err(get)?,
        state,
        error: error_summary(row.get(5).map_err(get)?, row.get(6).map_err(get)?),
        started_at: time(row.get(7).map_err(get)?)?,
        finished_at: row
            .get::<_, Option<i64>>(8)
            .map_err(get)?
            .map(time)
            .transpose()?,
    })
}

fn provider(s: &str) -> Result<ProviderKind, LedgerError> {
    s.parse()
        .map_err(|_| LedgerError::Corrupt(format!("provider {s:?}")))
}

fn error_summary(kind: Option<String>, status: Option<u16>) -> Option<ErrorSummary> {
    kind.map(|kind| ErrorSummary { kind, status })
}

fn time(ms: i64) -> Result<DateTime<Utc>, LedgerError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| LedgerError::Corrupt(format!("time {ms}")))
}
