//! The names of the last list of each account and scope (schema version 9), for the look-up
//! by name before a create: separate processes sharing the ledger read one list for as long
//! as the client's `ReconcilePolicy::name_lookup_max_age`, instead of each listing the whole
//! account first. Only names and ids are kept: a create that finds its name reads that
//! cluster by id before it acts on it.

use gpucloud::ClusterId;
use gpucloud::journal::{ListedAt, ListedName};

use crate::error::LedgerError;
use crate::store::{Tx, vals};
use crate::{Ledger, now_ms};

impl Ledger {
    /// The names listed at `at` at most `max_age` ago (by this machine's clock), if any. A
    /// list stamped after now (a clock stepped back) is too new to trust and counts as none.
    pub fn names_listed(
        &self,
        at: ListedAt<'_>,
        max_age: std::time::Duration,
    ) -> Result<Option<Vec<ListedName>>, LedgerError> {
        let now = now_ms();
        let oldest = now.saturating_sub(i64::try_from(max_age.as_millis()).unwrap_or(i64::MAX));
        self.read("reading the last list of names", |tx| {
            let rows = tx.query(
                "SELECT names_json FROM name_lists
                 WHERE provider = ?1 AND origin = ?2 AND scope = ?3
                   AND listed_at_ms > ?4 AND listed_at_ms <= ?5",
                &vals![at.provider.as_str(), at.origin, at.scope, oldest, now],
            )?;
            let Some(row) = rows.first() else {
                return Ok(None);
            };
            decode(&row.text(0)?).map(Some)
        })
    }

    /// Keeps `names`, just listed at `at`, in place of the last list there.
    pub fn record_names(&self, at: ListedAt<'_>, names: &[ListedName]) -> Result<(), LedgerError> {
        let pairs: Vec<[&str; 2]> = names
            .iter()
            .map(|n| [n.name.as_str(), n.id.as_str()])
            .collect();
        let json = serde_json::to_string(&pairs)
            .map_err(|e| LedgerError::Corrupt(format!("a list of names: {e}")))?;
        self.write("keeping a list of names", |tx| record(tx, at, &json))
    }
}

fn record(tx: &mut dyn Tx, at: ListedAt<'_>, json: &str) -> Result<(), LedgerError> {
    tx.exec(
        "INSERT INTO name_lists (provider, origin, scope, listed_at_ms, names_json)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (provider, origin, scope)
         DO UPDATE SET listed_at_ms = excluded.listed_at_ms, names_json = excluded.names_json",
        &vals![at.provider.as_str(), at.origin, at.scope, now_ms(), json],
    )?;
    Ok(())
}

/// The names of a stored list; an id that is no provider's id (the file was written by
/// something else) makes the whole list unusable rather than half read.
fn decode(json: &str) -> Result<Vec<ListedName>, LedgerError> {
    let pairs: Vec<(String, String)> = serde_json::from_str(json)
        .map_err(|e| LedgerError::Corrupt(format!("a stored list of names: {e}")))?;
    pairs
        .into_iter()
        .map(|(name, id)| {
            let id = ClusterId::new(id);
            match id.problem() {
                None => Ok(ListedName { name, id }),
                Some(problem) => Err(LedgerError::Corrupt(format!(
                    "a stored list of names holds an id that {problem}"
                ))),
            }
        })
        .collect()
}
