//! Claims on a cluster name: of several callers creating the same provider, scope and name at
//! once — tasks, processes, or machines sharing a PostgreSQL ledger — exactly one records its
//! intent and sends the create; the others are told it is in flight, and then which cluster it
//! made.
//!
//! A claim is one transaction that holds the name (SQLite: the file's write lock; PostgreSQL:
//! an advisory lock on the name) while it looks at the name's creates and, if none is in
//! flight, inserts its own. A create is in flight while it is pending and its lease has not
//! run out, unless its owner ran on this node and has exited. One whose lease ran out is taken
//! over: the new intent is linked to it (`taken_over_by`) and the caller reconciles first.

use std::time::Duration;

use gpucloud::journal::{Claim, CreateIntent, DeleteClaim, IntentId, TakenOver};
use gpucloud::{ClusterId, ClusterState, ProviderKind};

use crate::Ledger;
use crate::error::LedgerError;
use crate::journal::insert_intent;
use crate::rows::{intent_id, row_id};
use crate::store::{Tx, vals};

/// The stored state codes that rule a create's cluster out as the name's cluster: being
/// deleted, deleted, or answered 404.
fn not_the_names() -> [&'static str; 3] {
    [
        ClusterState::Deleting.code(),
        ClusterState::Deleted.code(),
        crate::observe::GONE,
    ]
}

impl Ledger {
    /// Claims `intent`'s name under a lease of `lease` (see [`gpucloud::journal::Claim`]).
    pub fn claim_create(
        &self,
        intent: &CreateIntent,
        lease: Duration,
    ) -> Result<Claim, LedgerError> {
        self.write("claiming a create", |tx| claim(tx, self, intent, lease))
    }

    /// Claims the delete of `provider`'s `cluster` under a lease of `lease` (see
    /// [`gpucloud::journal::DeleteClaim`]): held by another caller while its delete is pending
    /// under a live lease (and its owner not known to have exited), or was accepted less than
    /// `lease` ago; otherwise this caller's, its intent recorded.
    pub fn claim_delete(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
        lease: Duration,
    ) -> Result<DeleteClaim, LedgerError> {
        self.write("claiming a delete", |tx| {
            tx.lock_key(&format!(
                "gpucloud-ledger delete {}\u{1f}{}",
                provider.as_str(),
                cluster.as_str()
            ))?;
            let now = (self.clock)();
            let recent = now.saturating_sub(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX));
            let others = tx.query(
                "SELECT owner, owner_node, pid, state, lease_until_ms, finished_at_ms
                 FROM delete_intents
                 WHERE provider = ?1 AND cluster_id = ?2
                   AND ((state = 'pending' AND lease_until_ms > ?3)
                        OR (state = 'completed' AND finished_at_ms > ?4))
                 ORDER BY id DESC",
                &vals![provider.as_str(), cluster.as_str(), now, recent],
            )?;
            for row in &others {
                let owner = row
                    .opt_text(0)?
                    .unwrap_or_else(|| format!("process {}", row.int(2).unwrap_or(0)));
                let pending = row.text(3)? == "pending";
                if pending
                    && self
                        .owner
                        .certainly_dead(row.opt_text(1)?.as_deref(), row.int(2)?)
                {
                    continue;
                }
                return Ok(DeleteClaim::Held { owner });
            }
            let rows = tx.query(
                "INSERT INTO delete_intents
                     (provider, cluster_id, pid, started_at_ms, owner, owner_node, lease_until_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                &vals![
                    provider.as_str(),
                    cluster.as_str(),
                    self.owner.pid,
                    now,
                    self.owner.display.as_str(),
                    self.owner.node.as_deref(),
                    lease_until(now, lease)
                ],
            )?;
            crate::rows::returned_id(&rows).map(DeleteClaim::Owned)
        })
    }

    /// Extends the lease of the pending create `intent` to `lease` from now;
    /// [`LedgerError::ClaimLost`] if it was taken over meanwhile.
    pub fn renew_claim(&self, intent: IntentId, lease: Duration) -> Result<(), LedgerError> {
        self.write("renewing a claim", |tx| {
            let changed = tx.exec(
                "UPDATE create_intents SET lease_until_ms = ?2
                 WHERE id = ?1 AND state = 'pending' AND taken_over_by IS NULL",
                &vals![row_id(intent)?, lease_until((self.clock)(), lease)],
            )?;
            if changed == 1 {
                Ok(())
            } else {
                Err(LedgerError::ClaimLost(intent))
            }
        })
    }
}

fn lease_until(now: i64, lease: Duration) -> i64 {
    now.saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX))
}

fn claim(
    tx: &mut dyn Tx,
    ledger: &Ledger,
    intent: &CreateIntent,
    lease: Duration,
) -> Result<Claim, LedgerError> {
    let scope = intent.scope.as_deref();
    tx.lock_key(&format!(
        "gpucloud-ledger create {}\u{1f}{}\u{1f}{}",
        intent.provider.as_str(),
        scope.unwrap_or(""),
        intent.name
    ))?;
    let now = (ledger.clock)();
    let pending = tx.query(
        "SELECT id, owner, owner_node, pid, lease_until_ms, idempotency_key, request_sha256,
                started_at_ms
         FROM create_intents
         WHERE provider = ?1 AND name = ?2 AND COALESCE(scope, '') = COALESCE(?3, '')
           AND state = 'pending' AND taken_over_by IS NULL
         ORDER BY id",
        &vals![intent.provider.as_str(), &intent.name, scope],
    )?;
    let mut stale = Vec::new();
    for row in &pending {
        let id = intent_id(row.int(0)?)?;
        let owner = row
            .opt_text(1)?
            .unwrap_or_else(|| format!("process {}", row.int(3).unwrap_or(0)));
        let until = row.opt_int(4)?;
        let exited = ledger
            .owner
            .certainly_dead(row.opt_text(2)?.as_deref(), row.int(3)?);
        match until {
            Some(until) if until > now && !exited => {
                return Ok(Claim::InFlight {
                    intent: id,
                    owner,
                    lease_left: Duration::from_millis(u64::try_from(until - now).unwrap_or(0)),
                });
            }
            _ => stale.push(TakenOver {
                intent: id,
                owner,
                idempotency_key: row.opt_text(5)?,
                same_request: row.text(6)? == intent.request_sha256,
                age: Duration::from_millis(
                    u64::try_from(now.saturating_sub(row.int(7)?)).unwrap_or(0),
                ),
            }),
        }
    }
    if stale.is_empty()
        && let Some(named) = names_cluster(tx, intent)?
    {
        return Ok(Claim::Exists {
            intent: named.intent,
            cluster: named.cluster,
            same_request: named.request_sha256 == intent.request_sha256,
            request: named.request,
            deadline: named.deadline,
        });
    }
    let id = insert_intent(tx, intent, Some((&ledger.owner, lease_until(now, lease))))?;
    for taken in &stale {
        tx.exec(
            "UPDATE create_intents SET taken_over_by = ?2 WHERE id = ?1",
            &vals![row_id(taken.intent)?, row_id(id)?],
        )?;
    }
    Ok(Claim::Owned {
        intent: id,
        // The newest: on a keyed provider, the key most likely to have reached it.
        took_over: stale.pop(),
    })
}

/// The create that made the cluster a name is taken by.
struct Named {
    intent: IntentId,
    cluster: ClusterId,
    request_sha256: String,
    /// Its recorded request; `None` where it was not recorded (or the record does not parse).
    request: Option<serde_json::Value>,
    /// Its deadline, if its request set a ttl.
    deadline: Option<chrono::DateTime<chrono::Utc>>,
}

/// The cluster a completed create of this name made (or adopted) through the same origin, if
/// nothing has shown it gone, deleted or being deleted since. A cluster only found under the
/// name is not ours, and never the name's answer; nor is one made at another endpoint or
/// account (the same id here would be another cluster).
fn names_cluster(tx: &mut dyn Tx, intent: &CreateIntent) -> Result<Option<Named>, LedgerError> {
    let [deleting, deleted, gone] = not_the_names();
    let rows = tx.query(
        "SELECT c.id, c.cluster_id, c.request_sha256, c.request_json, c.deadline_ms
         FROM create_intents c
         WHERE c.provider = ?1 AND c.name = ?2
           AND COALESCE(c.scope, '') = COALESCE(?3, '')
           AND c.state = 'completed' AND c.cluster_id IS NOT NULL
           AND COALESCE(c.provenance, '') != 'found'
           AND (CAST(?7 AS TEXT) IS NULL OR c.origin IS NULL OR c.origin = ?7)
           AND c.gone_at_ms IS NULL
           AND (c.last_state_code IS NULL OR c.last_state_code NOT IN (?4, ?5, ?6))
           AND NOT EXISTS (SELECT 1 FROM delete_intents d
                           WHERE d.provider = c.provider AND d.cluster_id = c.cluster_id
                             AND d.state = 'completed')
         ORDER BY c.id DESC LIMIT 1",
        &vals![
            intent.provider.as_str(),
            &intent.name,
            intent.scope.as_deref(),
            deleting,
            deleted,
            gone,
            intent.origin.as_deref()
        ],
    )?;
    rows.first()
        .map(|row| {
            Ok(Named {
                intent: intent_id(row.int(0)?)?,
                cluster: ClusterId::new(row.text(1)?),
                request_sha256: row.text(2)?,
                request: row
                    .opt_text(3)?
                    .and_then(|json| serde_json::from_str(&json).ok()),
                deadline: row
                    .opt_int(4)?
                    .and_then(chrono::DateTime::from_timestamp_millis),
            })
        })
        .transpose()
}
