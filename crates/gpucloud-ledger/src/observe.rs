//! What clients see after the create: the state and price of each cluster, the moment it is
//! gone; and the links between creates of the same request, so that a later create settles an
//! earlier one whose outcome was unknown.

use crate::error::LedgerError;
use crate::rows::row_id;
use crate::store::{Tx, Value, vals};
use crate::{Ledger, now_ms};
use gpucloud::journal::{CreateIntent, IntentId};
use gpucloud::{Cluster, ClusterId, ClusterState, FailedStart, ProviderKind};

/// The most characters of a provider's state or phase text kept (the text is the provider's,
/// and has no business being long).
pub const MAX_TEXT: usize = 200;

/// The stored state code of a cluster the provider answered 404 for: not a state of the
/// cluster's ([`ClusterState::code`] names those), the ledger's own record that it is gone.
pub(crate) const GONE: &str = "gone";

impl Ledger {
    /// Records what a client saw of `cluster`: its state and phase, its price where stated, and
    /// that it is gone when its state says deleted — or failed before it was ever seen running,
    /// on a provider that releases the machines of a failed start itself
    /// ([`FailedStart::Released`]: nothing is left to bill or to delete). Any other state is a
    /// sighting: a cluster recorded gone (after a 404, say) that answers again may be billing,
    /// and is no longer gone. Clusters the ledger did not create are left alone, and so are
    /// creates sent to another origin than `origin` ([`gpucloud::ClusterClient::origin`];
    /// `None`: any): the same id at another endpoint or account is another cluster.
    pub fn record_seen(&self, cluster: &Cluster, origin: Option<&str>) -> Result<(), LedgerError> {
        let deleted = cluster.state == ClusterState::Deleted;
        let price = cluster
            .price
            .as_ref()
            .filter(|p| p.per_hour.is_finite() && p.per_hour >= 0.0);
        self.write("recording a cluster's state", |tx| {
            tx.exec(
                "UPDATE create_intents
                 SET last_state = ?3, last_phase = ?4, last_seen_at_ms = ?5,
                     price_per_hour = COALESCE(?6, price_per_hour),
                     currency = COALESCE(?7, currency),
                     gone_at_ms = CASE
                         WHEN ?8 OR (?10 AND COALESCE(last_state_code, '') NOT IN (?11, ?12, ?13))
                         THEN COALESCE(gone_at_ms, ?5)
                         ELSE NULL END,
                     last_state_code = ?9
                 WHERE provider = ?1 AND cluster_id = ?2
                   AND (CAST(?14 AS TEXT) IS NULL OR origin IS NULL OR origin = ?14)",
                &vals![
                    cluster.provider.as_str(),
                    cluster.id.as_str(),
                    bounded(&cluster.state.to_string()),
                    cluster.phase.as_deref().map(bounded),
                    now_ms(),
                    price.map(|p| p.per_hour),
                    price.map(|p| bounded(&p.currency)),
                    deleted,
                    cluster.state.code(),
                    released(cluster),
                    ClusterState::Ready.code(),
                    ClusterState::Degraded.code(),
                    ClusterState::Paused.code(),
                    origin,
                ],
            )?;
            Ok(())
        })
    }

    /// Records that the provider at `origin` ([`gpucloud::ClusterClient::origin`]; `None`:
    /// any) has no cluster `id` (the first such answer's time is kept). Only a create sent to
    /// the same origin (or one whose origin was not recorded) is marked gone: another
    /// endpoint or account would answer 404 for a cluster that is alive and billing. A later
    /// sighting overturns it ([`Self::record_seen`]).
    pub fn record_gone(
        &self,
        provider: ProviderKind,
        id: &ClusterId,
        origin: Option<&str>,
    ) -> Result<(), LedgerError> {
        self.write("recording a cluster gone", |tx| {
            tx.exec(
                "UPDATE create_intents
                 SET last_state = ?4, last_state_code = ?4, last_phase = NULL,
                     last_seen_at_ms = ?3, gone_at_ms = COALESCE(gone_at_ms, ?3)
                 WHERE provider = ?1 AND cluster_id = ?2
                   AND (CAST(?5 AS TEXT) IS NULL OR origin IS NULL OR origin = ?5)",
                &vals![provider.as_str(), id.as_str(), now_ms(), GONE, origin],
            )?;
            Ok(())
        })
    }

    /// The idempotency key of the newest create of the same request as `intent` (provider,
    /// name, scope and request hash) whose cluster may exist: its outcome unknown, or its
    /// cluster made and neither seen gone nor seen failed since. A process killed while it
    /// waited for a cluster would otherwise start a second one on its next run; a cluster seen
    /// failed is not handed out again (its key would only bring the failed cluster back).
    pub fn earlier_key(&self, intent: &CreateIntent) -> Result<Option<String>, LedgerError> {
        self.read("looking for an earlier create", |tx| {
            let rows = tx.query(
                "SELECT idempotency_key FROM create_intents
                 WHERE provider = ?1 AND name = ?2 AND COALESCE(scope, '') = COALESCE(?3, '')
                   AND request_sha256 = ?4
                   AND (CAST(?6 AS TEXT) IS NULL OR origin IS NULL OR origin = ?6)
                   AND (state IN ('pending', 'failed_ambiguous')
                        OR (state = 'completed' AND gone_at_ms IS NULL))
                   -- A cluster seen failed is not taken again: the key would only bring it back.
                   AND (last_state_code IS NULL OR last_state_code != ?5)
                   AND idempotency_key IS NOT NULL
                 ORDER BY id DESC LIMIT 1",
                &vals![
                    intent.provider.as_str(),
                    &intent.name,
                    intent.scope.as_deref(),
                    &intent.request_sha256,
                    ClusterState::Failed(String::new()).code(),
                    intent.origin.as_deref(),
                ],
            )?;
            rows.first().map(|r| r.text(0)).transpose()
        })
    }
}

/// Settles, inside `tx`, the unsettled creates that `intent`'s cluster answers for: those
/// sent under the same idempotency key and, on providers whose profile says a name is unique
/// in its scope, those of the same name and scope. Returns how many it settled.
pub(crate) fn settle_earlier(
    tx: &mut dyn Tx,
    intent: IntentId,
    cluster: &ClusterId,
) -> Result<u64, LedgerError> {
    let unique: Vec<&str> = ProviderKind::ALL
        .into_iter()
        .filter(|p| p.profile().unique_names)
        .map(ProviderKind::as_str)
        .collect();
    // `?4`, `?5`, … : one parameter per provider whose names are unique (none: no match).
    let placeholders = if unique.is_empty() {
        "NULL".to_string()
    } else {
        (4..4 + unique.len())
            .map(|n| format!("?{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sql = format!(
        "UPDATE create_intents AS c
         SET state = 'completed', cluster_id = ?2, outcome = 'found_by_lookup',
             error_kind = NULL, error_status = NULL, resolved_at_ms = ?3,
             resolution = CASE WHEN c.idempotency_key IS NOT NULL
                                    AND c.idempotency_key = n.idempotency_key
                               THEN 'a later create under the same idempotency key got this cluster'
                               ELSE 'a later create of the same name found this cluster' END
         FROM (SELECT provider, name, scope, idempotency_key FROM create_intents WHERE id = ?1) AS n
         WHERE c.id != ?1 AND c.provider = n.provider
           AND c.state IN ('pending', 'failed_ambiguous')
           AND ((c.idempotency_key IS NOT NULL AND c.idempotency_key = n.idempotency_key)
                OR (c.provider IN ({placeholders}) AND c.name = n.name
                    AND COALESCE(c.scope, '') = COALESCE(n.scope, '')))"
    );
    let mut values = Vec::from(vals![row_id(intent)?, cluster.as_str(), now_ms()]);
    values.extend(unique.into_iter().map(Value::from));
    tx.exec(&sql, &values)
}

/// Whether `cluster` failed on a provider that releases every machine of a failed start.
fn released(cluster: &Cluster) -> bool {
    matches!(cluster.state, ClusterState::Failed(_))
        && cluster.provider.profile().failed_start == FailedStart::Released
}

/// `text`, cut to [`MAX_TEXT`] characters.
fn bounded(text: &str) -> String {
    text.chars().take(MAX_TEXT).collect()
}
