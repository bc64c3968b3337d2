//! What the ledger answers: every cluster gpucloud created, the intents whose outcome is
//! unknown, the deletes; and how an unknown outcome is settled after a look-up.

use chrono::{DateTime, Utc};
use gpucloud::journal::{IntentId, Settlement};
use gpucloud::{ClusterId, ClusterState, FailedStart, Price, ProviderKind};

use crate::entry::{
    ClaimHeld, ClusterEntry, DeleteEntry, DeleteState, ErrorSummary, IntentState, LastSeen,
    Outcome, Provenance,
};
use crate::error::LedgerError;
use crate::rows::{intent_id, row_id};
use crate::store::{Row, Value, vals};
use crate::{Ledger, now_ms};

const CREATE_COLUMNS: &str = "c.id, c.provider, c.name, c.scope, c.idempotency_key, \
     c.request_sha256, c.pid, c.state, c.cluster_id, c.outcome, c.error_kind, c.error_status, \
     c.started_at_ms, c.finished_at_ms, c.resolution, c.resolved_at_ms, \
     (SELECT MAX(d.finished_at_ms) FROM delete_intents d \
      WHERE d.provider = c.provider AND d.cluster_id = c.cluster_id \
        AND (d.state = 'completed' OR d.error_kind = 'not_found')), \
     c.last_state, c.last_phase, c.last_seen_at_ms, c.price_per_hour, c.currency, c.gone_at_ms, \
     c.last_state_code, c.deadline_ms, c.provenance, c.origin, c.owner, c.owner_node, \
     c.lease_until_ms, c.taken_over_by, c.provider_ends_at_ms";

impl Ledger {
    /// Every cluster recorded, and every create that made none (or whose outcome is
    /// unknown), oldest first: one entry per cluster, however many creates got it (a create
    /// interrupted and run again, or several that found one cluster), so that its cost is
    /// counted once. [`Self::creates`] lists every create.
    pub fn clusters(&self) -> Result<Vec<ClusterEntry>, LedgerError> {
        Ok(one_per_cluster(self.creates()?))
    }

    /// Every create recorded, oldest first (several may name one cluster).
    pub fn creates(&self) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where("TRUE", &[])
    }

    /// The creates whose outcome is unknown ([`IntentState::is_unsettled`]), oldest first;
    /// only `provider`'s if given.
    pub fn unsettled_creates(
        &self,
        provider: Option<ProviderKind>,
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where(
            "c.state IN ('pending', 'failed_ambiguous')
             AND (CAST(?1 AS TEXT) IS NULL OR c.provider = ?1)",
            &vals![provider.map(ProviderKind::as_str)],
        )
    }

    /// The creates whose outcome is unknown and that no live caller is still making, oldest
    /// first: [`Self::unsettled_creates`] without those [`Self::in_flight`] (their owner is
    /// alive and will record the outcome itself; settling its create from outside would report
    /// a live create as lost). A create whose owner ran on this machine and has exited is
    /// unowned at once, whatever its lease says: a process killed mid-create is settled by
    /// the next sweep, not a lease later.
    pub fn unsettled_creates_unowned(
        &self,
        provider: Option<ProviderKind>,
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        let now = self.now();
        Ok(self
            .unsettled_creates(provider)?
            .into_iter()
            .filter(|e| !self.in_flight(e, now))
            .collect())
    }

    /// Whether `entry` is a create its owner is still making at `now`: pending, not taken
    /// over, its lease not run out, and its owner not known to have exited.
    pub fn in_flight(&self, entry: &ClusterEntry, now: DateTime<Utc>) -> bool {
        entry.state == IntentState::Pending
            && !entry.claim.taken_over
            && entry.claim.lease_until.is_some_and(|until| until > now)
            && !self
                .owner
                .certainly_dead(entry.claim.node.as_deref(), i64::from(entry.pid))
    }

    /// The creates still [`IntentState::Pending`], oldest first.
    pub fn pending(&self) -> Result<Vec<ClusterEntry>, LedgerError> {
        self.creates_where("c.state = 'pending'", &[])
    }

    /// One create.
    pub fn entry(&self, intent: IntentId) -> Result<ClusterEntry, LedgerError> {
        self.creates_where("c.id = ?1", &vals![row_id(intent)?])?
            .pop()
            .ok_or(LedgerError::NoSuchIntent(intent))
    }

    /// Every delete recorded, oldest first.
    pub fn deletes(&self) -> Result<Vec<DeleteEntry>, LedgerError> {
        self.read("listing deletes", |tx| {
            tx.query(
                "SELECT id, provider, cluster_id, pid, state, error_kind, error_status,
                        started_at_ms, finished_at_ms
                 FROM delete_intents ORDER BY id",
                &[],
            )?
            .iter()
            .map(delete_row)
            .collect()
        })
    }

    /// Settles an unsettled create after a look-up: `Found` completes it with that cluster
    /// (outcome [`Outcome::FoundByLookup`]), `Gone` marks it failed. Returns `false`, changing
    /// nothing, when the intent was no longer unsettled (its process finished it, or another
    /// process resolved it first).
    pub fn settle_intent(
        &self,
        intent: IntentId,
        lookup: &Settlement,
    ) -> Result<bool, LedgerError> {
        let (state, cluster, outcome, error, note) = match lookup {
            Settlement::Found(id) => (
                IntentState::Completed,
                Some(id.as_str()),
                Some(Outcome::FoundByLookup.as_str()),
                None,
                "found by name in the provider's list",
            ),
            Settlement::Gone => (
                IntentState::Failed,
                None,
                None,
                Some("gone"),
                "not found in the provider's list",
            ),
        };
        self.write("resolving an intent", |tx| {
            let exists = tx.query(
                "SELECT COUNT(*) FROM create_intents WHERE id = ?1",
                &vals![row_id(intent)?],
            )?;
            if exists.first().map(|r| r.int(0)).transpose()? != Some(1) {
                return Err(LedgerError::NoSuchIntent(intent));
            }
            let changed = tx.exec(
                "UPDATE create_intents
                 SET state = ?2, cluster_id = ?3, outcome = ?4, error_kind = ?5,
                     error_status = NULL, resolution = ?6, resolved_at_ms = ?7
                 WHERE id = ?1 AND state IN ('pending', 'failed_ambiguous')",
                &vals![
                    row_id(intent)?,
                    state.as_str(),
                    cluster,
                    outcome,
                    error,
                    note,
                    now_ms()
                ],
            )?;
            Ok(changed == 1)
        })
    }

    fn creates_where(
        &self,
        condition: &str,
        params: &[Value],
    ) -> Result<Vec<ClusterEntry>, LedgerError> {
        let sql = format!(
            "SELECT {CREATE_COLUMNS} FROM create_intents c WHERE {condition} ORDER BY c.id"
        );
        self.read("listing creates", |tx| {
            tx.query(&sql, params)?.iter().map(create_row).collect()
        })
    }
}

/// `entries` (oldest first) with the creates of one cluster — the same provider, origin and
/// id — merged into the first of them: its intent, name and start (the cluster has billed
/// since the first create that got it), the earliest deadline any of them set, ours if any
/// made or adopted it, the latest sighting, and gone once any saw it gone.
fn one_per_cluster(entries: Vec<ClusterEntry>) -> Vec<ClusterEntry> {
    let mut merged: Vec<ClusterEntry> = Vec::with_capacity(entries.len());
    let mut index: std::collections::HashMap<(ProviderKind, Option<String>, ClusterId), usize> =
        std::collections::HashMap::new();
    for entry in entries {
        let Some(id) = entry.cluster_id.clone() else {
            merged.push(entry);
            continue;
        };
        let key = (entry.provider, entry.origin.clone(), id);
        let Some(&at) = index.get(&key) else {
            index.insert(key, merged.len());
            merged.push(entry);
            continue;
        };
        let first = &mut merged[at];
        first.deadline = match (first.deadline, entry.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if first.provenance == Provenance::Found {
            first.provenance = entry.provenance;
        }
        if entry.last_seen.as_ref().map(|s| s.at) > first.last_seen.as_ref().map(|s| s.at) {
            first.last_seen = entry.last_seen;
        }
        first.gone_at = match (first.gone_at, entry.gone_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        first.deleted_at = first.deleted_at.or(entry.deleted_at);
        first.provider_ends_at = match (first.provider_ends_at, entry.provider_ends_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        first.released |= entry.released;
        first.price = first.price.take().or(entry.price);
    }
    merged
}

fn create_row(row: &Row) -> Result<ClusterEntry, LedgerError> {
    let opt_time = |i| row.opt_int(i)?.map(time).transpose();
    Ok(ClusterEntry {
        intent: intent_id(row.int(0)?)?,
        provider: provider(&row.text(1)?)?,
        name: row.text(2)?,
        scope: row.opt_text(3)?,
        idempotency_key: row.opt_text(4)?,
        request_sha256: row.text(5)?,
        pid: pid(row.int(6)?)?,
        state: IntentState::parse(&row.text(7)?)?,
        cluster_id: row.opt_text(8)?.map(ClusterId::new),
        outcome: row.opt_text(9)?.map(|o| Outcome::parse(&o)).transpose()?,
        error: error_summary(row.opt_text(10)?, row.opt_int(11)?)?,
        created_at: time(row.int(12)?)?,
        finished_at: opt_time(13)?,
        resolution: match (row.opt_text(14)?, row.opt_int(15)?) {
            (Some(note), Some(at)) => Some((note, time(at)?)),
            _ => None,
        },
        deleted_at: opt_time(16)?,
        last_seen: match (row.opt_text(17)?, row.opt_int(19)?) {
            (Some(state), Some(at)) => Some(LastSeen {
                state,
                phase: row.opt_text(18)?,
                at: time(at)?,
            }),
            _ => None,
        },
        price: match (row.opt_real(20)?, row.opt_text(21)?) {
            (Some(per_hour), Some(currency)) => Some(Price { per_hour, currency }),
            _ => None,
        },
        gone_at: opt_time(22)?,
        // Seen failed, and settled gone then (it was never seen running).
        released: row.opt_text(23)?.as_deref() == Some(ClusterState::Failed(String::new()).code())
            && row.opt_int(22)?.is_some()
            && provider(&row.text(1)?)?.profile().failed_start == FailedStart::Released,
        deadline: opt_time(24)?,
        provenance: Provenance::parse(row.opt_text(25)?.as_deref())?,
        origin: row.opt_text(26)?,
        claim: ClaimHeld {
            owner: row.opt_text(27)?,
            node: row.opt_text(28)?,
            lease_until: opt_time(29)?,
            taken_over: row.opt_int(30)?.is_some(),
        },
        provider_ends_at: opt_time(31)?,
    })
}

fn delete_row(row: &Row) -> Result<DeleteEntry, LedgerError> {
    let state = match row.text(4)?.as_str() {
        "pending" => DeleteState::Pending,
        "completed" => DeleteState::Completed,
        "failed" => DeleteState::Failed,
        other => return Err(LedgerError::Corrupt(format!("delete state {other:?}"))),
    };
    Ok(DeleteEntry {
        intent: intent_id(row.int(0)?)?,
        provider: provider(&row.text(1)?)?,
        cluster_id: ClusterId::new(row.text(2)?),
        pid: pid(row.int(3)?)?,
        state,
        error: error_summary(row.opt_text(5)?, row.opt_int(6)?)?,
        started_at: time(row.int(7)?)?,
        finished_at: row.opt_int(8)?.map(time).transpose()?,
    })
}

fn pid(v: i64) -> Result<u32, LedgerError> {
    u32::try_from(v).map_err(|_| LedgerError::Corrupt(format!("process id {v}")))
}

fn provider(s: &str) -> Result<ProviderKind, LedgerError> {
    s.parse()
        .map_err(|_| LedgerError::Corrupt(format!("provider {s:?}")))
}

fn error_summary(
    kind: Option<String>,
    status: Option<i64>,
) -> Result<Option<ErrorSummary>, LedgerError> {
    let status = status
        .map(|s| u16::try_from(s).map_err(|_| LedgerError::Corrupt(format!("HTTP status {s}"))))
        .transpose()?;
    Ok(kind.map(|kind| ErrorSummary { kind, status }))
}

fn time(ms: i64) -> Result<DateTime<Utc>, LedgerError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| LedgerError::Corrupt(format!("time {ms}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::ClaimHeld;

    fn at(second: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + second, 0).unwrap_or_default()
    }

    /// A completed create of `id` recorded at `second`.
    fn entry(intent: IntentId, id: &str, second: i64) -> ClusterEntry {
        ClusterEntry {
            intent,
            provider: ProviderKind::Together,
            name: "n".into(),
            scope: None,
            idempotency_key: None,
            request_sha256: String::new(),
            pid: 1,
            state: IntentState::Completed,
            cluster_id: Some(ClusterId::new(id)),
            outcome: Some(Outcome::Created),
            error: None,
            created_at: at(second),
            finished_at: None,
            resolution: None,
            deleted_at: None,
            last_seen: None,
            price: None,
            gone_at: None,
            released: false,
            deadline: None,
            provenance: Provenance::Created,
            origin: Some("o".into()),
            claim: ClaimHeld::default(),
            provider_ends_at: None,
        }
    }

    fn seen(state: &str, second: i64) -> Option<LastSeen> {
        Some(LastSeen {
            state: state.into(),
            phase: None,
            at: at(second),
        })
    }

    #[test]
    fn the_creates_of_one_cluster_are_one_entry_with_what_each_knew() {
        let mut first = entry(1, "c", 0);
        first.provenance = Provenance::Found;
        first.deadline = Some(at(500));
        first.last_seen = seen("provisioning", 10);
        first.provider_ends_at = Some(at(900));
        let mut second = entry(2, "c", 5);
        second.provenance = Provenance::Adopted;
        second.deadline = Some(at(300));
        second.last_seen = seen("ready", 20);
        second.released = true;
        second.gone_at = Some(at(40));
        second.provider_ends_at = Some(at(800));
        let other = entry(3, "d", 6);
        let mut elsewhere = entry(4, "c", 7);
        elsewhere.origin = Some("another account".into());
        let merged = one_per_cluster(vec![first, second, other, elsewhere]);
        assert_eq!(merged.len(), 3, "{merged:?}");
        let c = &merged[0];
        assert_eq!(c.intent, 1, "the first create's entry");
        assert_eq!(c.created_at, at(0), "billing since the first create");
        assert_eq!(
            c.provenance,
            Provenance::Adopted,
            "ours once any made it ours"
        );
        assert_eq!(c.deadline, Some(at(300)), "the earliest deadline");
        assert_eq!(c.provider_ends_at, Some(at(800)));
        assert_eq!(c.last_seen, seen("ready", 20), "the latest sighting");
        assert!(c.released);
        assert_eq!(c.gone_at, Some(at(40)));
        assert_eq!(merged[1].intent, 3);
        assert_eq!(
            merged[2].intent, 4,
            "the same id elsewhere is another cluster"
        );

        // A later sighting is kept; an older or equally old one does not replace it; ours
        // stays ours; not released stays so.
        let mut newer = entry(1, "c", 0);
        newer.last_seen = seen("ready", 20);
        let mut older = entry(2, "c", 5);
        older.last_seen = seen("provisioning", 10);
        older.provenance = Provenance::Found;
        let mut same_time = entry(3, "c", 6);
        same_time.last_seen = seen("deleting", 20);
        let merged = one_per_cluster(vec![newer, older, same_time]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].last_seen, seen("ready", 20));
        assert_eq!(merged[0].provenance, Provenance::Created);
        assert!(!merged[0].released);
        assert_eq!(merged[0].deadline, None);
    }
}
