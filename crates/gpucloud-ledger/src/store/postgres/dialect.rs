//! The ledger's statements and values in PostgreSQL's terms. The ledger writes its SQL once,
//! with SQLite's `?N` parameters and a handful of value kinds ([`Value`]); here those become
//! `$N`, typed parameters bound as the type PostgreSQL inferred, and typed columns read back.

use std::error::Error as StdError;

use bytes::BytesMut;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use crate::error::LedgerError;
use crate::store::{Row, Value};

/// A row as the ledger reads it: each column by its PostgreSQL type, a type the ledger
/// never writes refused as corruption.
pub(super) fn read_row(row: &tokio_postgres::Row, doing: &str) -> Result<Row, LedgerError> {
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
pub(super) fn numbered(sql: &str) -> String {
    sql.replace('?', "$")
}

/// A [`Value`] bound as the type PostgreSQL inferred for its parameter.
#[derive(Debug)]
pub(super) struct Param<'a>(pub(super) &'a Value);

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
