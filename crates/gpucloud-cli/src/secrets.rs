//! The credentials this run loaded, scrubbed from everything it prints.
//!
//! `connect` registers each credential it reads from the environment before it builds a client;
//! from then on every line written to stdout or stderr (tables, JSON, plans, progress, errors,
//! log lines) has each registered value replaced by `REDACTED`, by the same
//! [`gpucloud_core::Scrubber`] every client uses on what its provider sends: in the forms a
//! server may echo a value back (as is, URL-encoded, JSON-escaped), whatever its ASCII case.
//! The facade never puts a credential in its own text; this is the guard against a server
//! that does. The registry is the binary's, for the one process it runs; the library crates
//! keep none.

use std::borrow::Cow;
use std::sync::{LazyLock, PoisonError, RwLock};

use gpucloud_core::Scrubber;

/// The credentials registered so far, in every form.
static SCRUBBER: LazyLock<RwLock<Scrubber>> = LazyLock::new(|| RwLock::new(Scrubber::default()));

/// Scrubs `secret` (and its encoded forms) from all output from now on.
pub fn register(secret: &str) {
    SCRUBBER
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .add(secret);
}

/// `text` with every registered credential replaced by `REDACTED`; borrowed when it holds
/// none.
pub fn scrub(text: &str) -> Cow<'_, str> {
    SCRUBBER
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .scrub(text)
}

/// A JSON document with every registered credential replaced inside its strings, still exact,
/// valid JSON.
pub fn scrub_json(json: &str) -> Cow<'_, str> {
    SCRUBBER
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .scrub_json(json)
}

#[cfg(test)]
mod tests {
    use gpucloud_core::REDACTED;

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
