//! The credentials this run loaded, scrubbed from everything it prints.
//!
//! `connect` registers each credential it reads from the environment before it builds a client;
//! from then on every line written to stdout or stderr (tables, JSON, plans, progress, errors,
//! log lines) has each registered value replaced by `REDACTED` — in the forms a server may echo
//! it back: as is, URL-encoded (a query string quoted in an error message) and JSON-escaped.
//! Matching ignores ASCII case, so `%2b` and `%2B` are both caught. The facade never puts a
//! credential in its own text; this is the guard against a server that does.

use std::borrow::Cow;
use std::sync::{PoisonError, RwLock};

/// What replaces a credential.
pub const REDACTED: &str = "REDACTED";

/// Every form of every registered credential, ASCII-lowercased, longest first.
static FORMS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Scrubs `secret` (and its encoded forms) from all output from now on.
pub fn register(secret: &str) {
    let mut forms = FORMS.write().unwrap_or_else(PoisonError::into_inner);
    for value in [secret, secret.trim()] {
        if value.is_empty() {
            continue;
        }
        let json = serde_json::to_string(value).unwrap_or_default();
        let candidates = [
            value.to_string(),
            url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
            percent_encoded(value),
            json.trim_matches('"').to_string(),
        ];
        for form in candidates {
            let form = form.to_ascii_lowercase();
            if !form.is_empty() && !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms.sort_by_key(|form| std::cmp::Reverse(form.len()));
}

/// Every byte outside RFC 3986's unreserved set as `%XX`.
fn percent_encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `text` with every registered credential replaced by [`REDACTED`]; borrowed when it holds
/// none. One pass, longest form first at each position, so a replacement is never re-scanned.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let forms = FORMS.read().unwrap_or_else(PoisonError::into_inner);
    if forms.is_empty() {
        return Cow::Borrowed(text);
    }
    // ASCII lowercasing keeps every byte offset (and every UTF-8 boundary) where it was.
    let lowered = text.to_ascii_lowercase();
    let first = forms
        .iter()
        .filter_map(|form| lowered.find(form.as_str()))
        .min();
    let Some(first) = first else {
        return Cow::Borrowed(text);
    };
    let mut scrubbed = String::with_capacity(text.len());
    scrubbed.push_str(&text[..first]);
    let mut at = first;
    while at < text.len() {
        let rest = &lowered[at..];
        if let Some(form) = forms.iter().find(|form| rest.starts_with(form.as_str())) {
            scrubbed.push_str(REDACTED);
            at += form.len();
        } else {
            let c = text[at..].chars().next().unwrap_or_default();
            scrubbed.push(c);
            at += c.len_utf8().max(1);
        }
    }
    Cow::Owned(scrubbed)
}

/// A JSON document with every registered credential replaced inside its strings: each string
/// literal is decoded, scrubbed and encoded again, so the document stays exact, valid JSON.
pub fn scrub_json(json: &str) -> Cow<'_, str> {
    if matches!(scrub(json), Cow::Borrowed(_)) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(start) = rest.find('"') {
        out.push_str(&rest[..start]);
        let literal = &rest[start..start + literal_len(&rest[start..])];
        out.push_str(&scrub_literal(literal));
        rest = &rest[start + literal.len()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The length of the string literal `text` starts with (its quotes included).
fn literal_len(text: &str) -> usize {
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate().skip(1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return i + 1,
            _ => {}
        }
    }
    text.len()
}

fn scrub_literal(literal: &str) -> Cow<'_, str> {
    let Ok(value) = serde_json::from_str::<String>(literal) else {
        // Not a literal serde_json wrote; scrub its text as it stands.
        return scrub(literal);
    };
    match scrub(&value) {
        Cow::Borrowed(_) => Cow::Borrowed(literal),
        Cow::Owned(clean) => Cow::Owned(serde_json::to_string(&clean).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One registry per process: the tests register distinct values and never clear it.
    #[test]
    fn every_form_is_replaced_whatever_its_case() {
        register("tok+en/1=x\"y");
        let echoed = "apikey=tok%2Ben%2F1%3Dx%22y and tok%2bEN%2f1%3dX%22Y, Bearer tok+en/1=x\"y \
                      and \"tok+en/1=x\\\"y\", form tok%2Ben%2F1%3Dx%22y";
        let clean = scrub(echoed);
        assert!(!clean.to_ascii_lowercase().contains("tok"), "{clean}");
        assert_eq!(clean.matches(REDACTED).count(), 5, "{clean}");
        assert_eq!(scrub("nothing here, Grüße"), "nothing here, Grüße");
    }

    #[test]
    fn json_stays_valid_json() {
        register("s3cr\\et-json");
        let value = serde_json::json!({
            "message": "key s3cr\\et-json in \u{1b}[2J text",
            "s3cr\\et-json": [1, "s3cr\\et-json"],
            "n": 1.5,
        });
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let clean = scrub_json(&text);
        assert!(!clean.contains("s3cr"), "{clean}");
        let parsed: serde_json::Value =
            serde_json::from_str(&clean).unwrap_or_else(|e| panic!("{e}: {clean}"));
        assert_eq!(parsed["message"], "key REDACTED in \u{1b}[2J text");
        assert_eq!(parsed["REDACTED"][1], "REDACTED");
        assert_eq!(parsed["n"], 1.5);
    }
}
