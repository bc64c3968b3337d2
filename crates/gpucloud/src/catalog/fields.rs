//! Reading fields from the undocumented parts of a provider's answer: by any of the names the
//! field is seen under, of the expected type, or not at all (never an error).

use serde_json::{Map, Value};

/// The first of `keys` holding a non-empty string.
pub(crate) fn text(object: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .filter_map(|k| object.get(*k)?.as_str())
        .map(str::trim)
        .find(|s| !s.is_empty())
        .map(str::to_string)
}

/// The first of `keys` holding a whole number that fits a `u32`.
pub(crate) fn count(object: &Map<String, Value>, keys: &[&str]) -> Option<u32> {
    keys.iter()
        .filter_map(|k| object.get(*k)?.as_u64())
        .find_map(|n| u32::try_from(n).ok())
}

/// The first of `keys` holding a number (or a numeric string).
pub(crate) fn number(object: &Map<String, Value>, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| match object.get(*k)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}
