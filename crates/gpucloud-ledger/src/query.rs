//! What the ledger answers: every cluster gpucloud created, the intents whose outcome is
//! unknown, the deletes; and how an unknown outcome is settled after a look-up.

use chrono::{DateTime, Utc};
use gpucloud::journal::IntentId;
use gpucloud::{ClusterId, Price, ProviderKind};
use rusqlite::{Row, params};

use crate::entry::{
    ClusterEntry, DeleteEntry, DeleteState, ErrorSummary, IntentState, LastSeen, Lookup, Outcome,
};
use crate::journal::{intent_id, row_id};
use crate::{Ledger, LedgerError, now_ms};

const CREATE_COLUMNS: &str = "c.id, c.provider, c.name, c.scope, c.idempotency_key, \
     c.request_sha256, c.pid, c.state, c.cluster_id, c.outcome, c.error_kind, c.error_status, \
     c.started_at_ms, c.finished_at_ms, c.resolution, c.resolved_at_ms, \
     (SELECT MAX(d.finished_at_ms) FROM delete_intents d \
      WHERE d.provider = c.provider AND d.cluster_id = c.cluster_id \
        AND (d.state = 'completed' OR d.error_kind = 'not_found')), \
     c.last_state, c.last_phase, c.last_seen_at_ms, c.price_per_hour, c.currency, c.gone_at_ms";

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
        last_seen: match (
            row.get::<_, Option<String>>(17).map_err(get)?,
            row.get::<_, Option<i64>>(19).map_err(get)?,
        ) {
            (Some(state), Some(at)) => Some(LastSeen {
                state,
                phase: row.get(18).map_err(get)?,
                at: time(at)?,
            }),
            _ => None,
        },
        price: match (
            row.get::<_, Option<f64>>(20).map_err(get)?,
            row.get::<_, Option<String>>(21).map_err(get)?,
        ) {
            (Some(per_hour), Some(currency)) => Some(Price { per_hour, currency }),
            _ => None,
        },
        gone_at: row
            .get::<_, Option<i64>>(22)
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
