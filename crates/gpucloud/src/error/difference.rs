//! [`FieldDifference`]: how two create requests under one name differ, field by field, so an
//! error that refuses the second ([`super::Error::NameInUse`]) can show both.

/// One field on which two create requests differ: its JSON pointer in the request body, and
/// its value in each (compact JSON; `None` where the request has no such field).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldDifference {
    /// Where, as a JSON pointer into the body (`/num_gpus`).
    pub field: String,
    /// In the request that made the cluster.
    pub earlier: Option<String>,
    /// In this request.
    pub requested: Option<String>,
}

impl FieldDifference {
    /// Every field on which the JSON bodies `earlier` and `requested` differ, in pointer order.
    pub fn between(earlier: &serde_json::Value, requested: &serde_json::Value) -> Vec<Self> {
        let mut out = Vec::new();
        diff_values(String::new(), Some(earlier), Some(requested), &mut out);
        out
    }
}

fn diff_values(
    at: String,
    earlier: Option<&serde_json::Value>,
    requested: Option<&serde_json::Value>,
    out: &mut Vec<FieldDifference>,
) {
    use serde_json::Value;
    if let (Some(Value::Object(a)), Some(Value::Object(b))) = (earlier, requested) {
        let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys {
            let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            diff_values(pointer, a.get(key), b.get(key), out);
        }
        return;
    }
    if earlier != requested {
        out.push(FieldDifference {
            field: if at.is_empty() { "/".into() } else { at },
            earlier: earlier.map(Value::to_string),
            requested: requested.map(Value::to_string),
        });
    }
}

/// ` (/num_gpus: 16 then, 32 now; …)`, or nothing without differences on record.
pub(super) fn differences_in_words(differences: &[FieldDifference]) -> String {
    if differences.is_empty() {
        return String::new();
    }
    let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "absent".into());
    let words: Vec<String> = differences
        .iter()
        .map(|d| {
            format!(
                "{}: {} then, {} now",
                d.field,
                shown(&d.earlier),
                shown(&d.requested)
            )
        })
        .collect();
    format!(" ({})", words.join("; "))
}
