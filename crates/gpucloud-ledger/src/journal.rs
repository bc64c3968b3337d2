//! The facade's [`Journal`] hook, written to the ledger: each call one transaction.
//!
//! Only what the facade hands over is stored: the [`CreateIntent`] (provider, name, scope,
//! Runcrate's idempotency key, the request's SHA-256), cluster ids, and of an error only its
//! kind and HTTP status — never its text, which may quote a provider's answer.

use std::time::Duration;

use gpucloud::journal::{
    Claim, CreateIntent, CreateRecord, DeleteClaim, IntentId, Journal, JournalError, ListedAt,
    ListedName, Settlement, Unsettled,
};
use gpucloud::{Cluster, ClusterId, CreateOutcome, Error, ProviderKind};

use crate::entry::{ErrorSummary, Outcome, Provenance};
use crate::error::LedgerError;
use crate::rows::{returned_id, row_id};
use crate::store::{Tx, vals};
use crate::{Ledger, now_ms};

impl Ledger {
    /// Records a create's intent without claiming its name (no owner, no lease: a claim on
    /// the name treats it as a create whose owner is gone); returns its id. The facade claims
    /// instead ([`Self::claim_create`]).
    pub fn record_create_started(&self, intent: &CreateIntent) -> Result<IntentId, LedgerError> {
        self.write("recording a create", |tx| insert_intent(tx, intent, None))
    }

    /// Completes a create's intent. The facade's own outcome always wins, even over a
    /// look-up that resolved the intent meanwhile: it is what actually happened.
    pub fn record_create_finished(
        &self,
        intent: IntentId,
        record: &CreateRecord<'_>,
    ) -> Result<(), LedgerError> {
        let mut provenance = None;
        let (state, cluster, outcome, error) = match record {
            CreateRecord::Cluster { id, outcome } => {
                let outcome = match outcome {
                    CreateOutcome::Created => Outcome::Created,
                    CreateOutcome::CreatedReconciled => Outcome::CreatedReconciled,
                    CreateOutcome::AlreadyExisted => Outcome::AlreadyExisted,
                    CreateOutcome::Adopted => {
                        provenance = Some(Provenance::Adopted);
                        Outcome::AlreadyExisted
                    }
                };
                ("completed", Some(id.as_str()), Some(outcome), None)
            }
            CreateRecord::Failed { error } => {
                let state = if error.is_ambiguous() {
                    "failed_ambiguous"
                } else {
                    "failed"
                };
                (state, None, None, Some(summary(error)))
            }
        };
        self.write("completing a create", |tx| {
            let changed = tx.exec(
                "UPDATE create_intents
                 SET state = ?2, cluster_id = ?3, outcome = ?4, error_kind = ?5,
                     error_status = ?6, finished_at_ms = ?7, provenance = ?8
                 WHERE id = ?1",
                &vals![
                    row_id(intent)?,
                    state,
                    cluster,
                    outcome.map(Outcome::as_str),
                    error.as_ref().map(|e| e.kind.clone()),
                    error.as_ref().and_then(|e| e.status),
                    now_ms(),
                    provenance.and_then(Provenance::stored),
                ],
            )?;
            one_row(changed, intent)?;
            match cluster {
                Some(cluster) => {
                    crate::observe::settle_earlier(tx, intent, &ClusterId::new(cluster))?;
                }
                // The creates this one took over are unsettled again, for the next claim
                // to take over (and reconcile) in its turn.
                None => {
                    tx.exec(
                        "UPDATE create_intents SET taken_over_by = NULL WHERE taken_over_by = ?1",
                        &vals![row_id(intent)?],
                    )?;
                }
            }
            Ok(())
        })
    }

    /// Records a delete's intent; returns its id.
    pub fn record_delete_started(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
    ) -> Result<IntentId, LedgerError> {
        self.write("recording a delete", |tx| {
            let rows = tx.query(
                "INSERT INTO delete_intents (provider, cluster_id, pid, started_at_ms)
                 VALUES (?1, ?2, ?3, ?4) RETURNING id",
                &vals![
                    provider.as_str(),
                    cluster.as_str(),
                    std::process::id(),
                    now_ms()
                ],
            )?;
            returned_id(&rows)
        })
    }

    /// Completes a delete's intent (`None`: the provider accepted the delete).
    pub fn record_delete_finished(
        &self,
        intent: IntentId,
        error: Option<&Error>,
    ) -> Result<(), LedgerError> {
        let error = error.map(summary);
        let state = if error.is_some() {
            "failed"
        } else {
            "completed"
        };
        self.write("completing a delete", |tx| {
            let changed = tx.exec(
                "UPDATE delete_intents
                 SET state = ?2, error_kind = ?3, error_status = ?4, finished_at_ms = ?5
                 WHERE id = ?1",
                &vals![
                    row_id(intent)?,
                    state,
                    error.as_ref().map(|e| e.kind.clone()),
                    error.as_ref().and_then(|e| e.status),
                    now_ms(),
                ],
            )?;
            one_row(changed, intent)
        })
    }
}

impl Journal for Ledger {
    fn create_started(&self, intent: &CreateIntent) -> Result<IntentId, JournalError> {
        self.record_create_started(intent)
            .map_err(|e| self.journal_error(e))
    }

    fn claim_create(&self, intent: &CreateIntent, lease: Duration) -> Result<Claim, JournalError> {
        Ledger::claim_create(self, intent, lease).map_err(|e| self.journal_error(e))
    }

    fn renew_claim(&self, intent: IntentId, lease: Duration) -> Result<(), JournalError> {
        Ledger::renew_claim(self, intent, lease).map_err(|e| self.journal_error(e))
    }

    fn create_finished(
        &self,
        intent: IntentId,
        record: &CreateRecord<'_>,
    ) -> Result<(), JournalError> {
        self.record_create_finished(intent, record)
            .map_err(|e| self.journal_error(e))
    }

    fn delete_started(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
    ) -> Result<IntentId, JournalError> {
        self.record_delete_started(provider, cluster)
            .map_err(|e| self.journal_error(e))
    }

    fn delete_finished(&self, intent: IntentId, error: Option<&Error>) -> Result<(), JournalError> {
        self.record_delete_finished(intent, error)
            .map_err(|e| self.journal_error(e))
    }

    fn claim_delete(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
        lease: Duration,
    ) -> Result<DeleteClaim, JournalError> {
        Ledger::claim_delete(self, provider, cluster, lease).map_err(|e| self.journal_error(e))
    }

    fn earlier_key(&self, intent: &CreateIntent) -> Result<Option<String>, JournalError> {
        Ledger::earlier_key(self, intent).map_err(|e| self.journal_error(e))
    }

    fn cluster_seen(&self, cluster: &Cluster, origin: &str) -> Result<(), JournalError> {
        self.record_seen(cluster, Some(origin))
            .map_err(|e| self.journal_error(e))
    }

    fn cluster_gone(
        &self,
        provider: ProviderKind,
        id: &ClusterId,
        origin: &str,
    ) -> Result<(), JournalError> {
        self.record_gone(provider, id, Some(origin))
            .map_err(|e| self.journal_error(e))
    }

    fn names_listed(
        &self,
        at: ListedAt<'_>,
        max_age: Duration,
    ) -> Result<Option<Vec<ListedName>>, JournalError> {
        Ledger::names_listed(self, at, max_age).map_err(|e| self.journal_error(e))
    }

    fn record_names(&self, at: ListedAt<'_>, names: &[ListedName]) -> Result<(), JournalError> {
        Ledger::record_names(self, at, names).map_err(|e| self.journal_error(e))
    }

    fn unsettled(&self, provider: ProviderKind) -> Result<Vec<Unsettled>, JournalError> {
        let now = now_ms();
        // A create whose owner still holds its claim is the owner's to settle.
        let entries = self
            .unsettled_creates_unowned(Some(provider))
            .map_err(|e| self.journal_error(e))?;
        Ok(entries
            .into_iter()
            .map(|entry| {
                let age_ms = now.saturating_sub(entry.created_at.timestamp_millis());
                Unsettled {
                    intent: entry.intent,
                    name: entry.name,
                    scope: entry.scope,
                    idempotency_key: entry.idempotency_key,
                    // A row stamped after now (a clock stepped back) is new, not negative.
                    age: Duration::from_millis(u64::try_from(age_ms).unwrap_or(0)),
                    origin: entry.origin,
                }
            })
            .collect())
    }

    fn settle(&self, intent: IntentId, settlement: &Settlement) -> Result<bool, JournalError> {
        self.settle_intent(intent, settlement)
            .map_err(|e| self.journal_error(e))
    }
}

impl Ledger {
    fn journal_error(&self, error: LedgerError) -> JournalError {
        JournalError::caused_by(format!("ledger {}: {error}", self.location()), error)
    }
}

/// The kind and status of an error: what the ledger keeps of it.
pub(crate) fn summary(error: &Error) -> ErrorSummary {
    ErrorSummary {
        kind: error.kind().as_str().to_string(),
        status: error.status(),
    }
}

/// Inserts a create's intent (claimed by `owner` until `lease_until_ms`, if given); returns
/// its id.
pub(crate) fn insert_intent(
    tx: &mut dyn Tx,
    intent: &CreateIntent,
    claim: Option<(&crate::owner::Owner, i64)>,
) -> Result<IntentId, LedgerError> {
    let rows = tx.query(
        "INSERT INTO create_intents
             (provider, name, scope, idempotency_key, request_sha256, pid, started_at_ms,
              owner, owner_node, lease_until_ms, request_json, deadline_ms, origin,
              provider_ends_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) RETURNING id",
        &vals![
            intent.provider.as_str(),
            &intent.name,
            intent.scope.as_deref(),
            intent.idempotency_key.as_deref(),
            &intent.request_sha256,
            std::process::id(),
            now_ms(),
            claim.map(|(owner, _)| owner.display.as_str()),
            claim.and_then(|(owner, _)| owner.node.as_deref()),
            claim.map(|(_, until)| until),
            intent.request.as_ref().map(serde_json::Value::to_string),
            intent.deadline.map(|d| d.timestamp_millis()),
            intent.origin.as_deref(),
            intent.provider_ends_at.map(|d| d.timestamp_millis()),
        ],
    )?;
    returned_id(&rows)
}

fn one_row(changed: u64, intent: IntentId) -> Result<(), LedgerError> {
    if changed == 0 {
        Err(LedgerError::NoSuchIntent(intent))
    } else {
        Ok(())
    }
}
