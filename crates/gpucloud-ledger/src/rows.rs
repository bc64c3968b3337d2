//! Row ids and intent ids: the one conversion between the facade's `IntentId` and the
//! databases' 64-bit signed row ids, checked both ways.

use gpucloud::journal::IntentId;

use crate::error::LedgerError;

/// The id of a `RETURNING id` answer.
pub(crate) fn returned_id(rows: &[crate::store::Row]) -> Result<IntentId, LedgerError> {
    let row = rows
        .first()
        .ok_or_else(|| LedgerError::Corrupt("an insert returned no id".to_string()))?;
    intent_id(row.int(0)?)
}

pub(crate) fn intent_id(rowid: i64) -> Result<IntentId, LedgerError> {
    IntentId::try_from(rowid).map_err(|_| LedgerError::Corrupt(format!("row id {rowid}")))
}

pub(crate) fn row_id(intent: IntentId) -> Result<i64, LedgerError> {
    i64::try_from(intent).map_err(|_| LedgerError::NoSuchIntent(intent))
}
