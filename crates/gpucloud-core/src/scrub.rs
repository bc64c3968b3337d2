//! Scrubbing secrets from text that came from outside.
//!
//! A provider may echo our own request back — a validation layer quoting
//! `...&apikey=<key> with header Authorization: Bearer <token>` — so every text it sends (error
//! messages, bodies kept in errors) passes through a [`Scrubber`] that knows the client's
//! secrets and replaces each, in every spelling an echo gives it (plain, percent-encoded,
//! form-encoded, JSON-escaped; any ASCII case), with [`crate::REDACTED`]. The command line
//! scrubs everything it prints with the same type, so there is one set of rules.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, MatchKind};
use url::Url;

use crate::credentials::Secret;

/// What replaces a secret in a URL.
pub const REDACTED: &str = "REDACTED";

/// `url` with the value of every query parameter named in `secret_params` replaced.
pub fn redact_url(url: &Url, secret_params: &[&str]) -> Url {
    if !url
        .query_pairs()
        .any(|(k, _)| secret_params.contains(&k.as_ref()))
    {
        return url.clone();
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if secret_params.contains(&k.as_ref()) {
                REDACTED.to_string()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    let mut redacted = url.clone();
    redacted.query_pairs_mut().clear().extend_pairs(pairs);
    redacted
}

/// Secrets shorter than this are not scrubbed: replacing every `a` in a text would destroy it
/// and hide nothing. No credential that short is accepted
/// ([`crate::credentials::MIN_CREDENTIAL_LEN`]), so none is ever sent.
const MIN_SCRUBBED_LEN: usize = crate::credentials::MIN_CREDENTIAL_LEN;

/// Replaces a set of secrets in every spelling a server may echo them back in — as they are,
/// percent-encoded (strictly or RFC 3986's unreserved set left alone), form-encoded and
/// JSON-escaped — whatever their ASCII case (`%2b` and `%2B` alike), in one pass that takes
/// the longest spelling at each position, so a replacement is never scanned again.
#[derive(Clone, Default)]
pub struct Scrubber {
    forms: Vec<String>,
    matcher: Option<AhoCorasick>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scrubber")
            .field("forms", &self.forms.len())
            .finish()
    }
}

/// Every byte outside RFC 3986's unreserved set (what a URL builder leaves alone).
const NOT_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

impl Scrubber {
    /// A scrubber for `secrets`.
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a Secret>) -> Self {
        let mut scrubber = Self::default();
        for secret in secrets {
            scrubber.add(secret.expose());
        }
        scrubber
    }

    /// Scrubs `secret` too (its value without surrounding whitespace, which no credential
    /// holds), from now on.
    pub fn add(&mut self, secret: &str) {
        let value = secret.trim();
        if value.len() < MIN_SCRUBBED_LEN {
            return;
        }
        let json = serde_json::to_string(value).unwrap_or_default();
        let forms = [
            value.to_string(),
            percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
            percent_encoding::utf8_percent_encode(value, NOT_UNRESERVED).to_string(),
            url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
            json.trim_matches('"').to_string(),
        ];
        for form in forms {
            if !form.is_empty() && !self.forms.iter().any(|f| f.eq_ignore_ascii_case(&form)) {
                self.forms.push(form);
            }
        }
        self.matcher = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&self.forms)
            .ok();
    }

    /// Whether no secret is known (nothing is ever replaced).
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with every secret replaced by `REDACTED`; borrowed when it holds none.
    pub fn scrub<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.forms.is_empty() {
            return Cow::Borrowed(text);
        }
        let Some(matcher) = &self.matcher else {
            // The automaton could not be built (far more secrets than any client holds):
            // nothing can be shown safely.
            return Cow::Borrowed(REDACTED);
        };
        if !matcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        // Whole values only: a match that runs on into a letter or digit is part of another
        // word ("keys", "api-keys"), not the secret, and is left as it is.
        let bytes = text.as_bytes();
        let word = |i: Option<&u8>| i.is_some_and(u8::is_ascii_alphanumeric);
        let mut out = String::with_capacity(text.len());
        matcher.replace_all_with(text, &mut out, |found, matched, dst| {
            let before = found.start().checked_sub(1).and_then(|i| bytes.get(i));
            let after = bytes.get(found.end());
            if word(before) || word(after) {
                dst.push_str(matched);
            } else {
                dst.push_str(REDACTED);
            }
            true
        });
        if out == text {
            return Cow::Borrowed(text);
        }
        Cow::Owned(out)
    }

    /// [`Self::scrub`] in place.
    pub fn scrub_in_place(&self, text: &mut String) {
        if let Cow::Owned(clean) = self.scrub(text) {
            *text = clean;
        }
    }

    /// A JSON document with every secret replaced inside its strings: each string literal is
    /// decoded, scrubbed and encoded again, so the document stays exact, valid JSON.
    pub fn scrub_json<'t>(&self, json: &'t str) -> Cow<'t, str> {
        if matches!(self.scrub(json), Cow::Borrowed(_)) {
            return Cow::Borrowed(json);
        }
        let mut out = String::with_capacity(json.len());
        let mut rest = json;
        while let Some(start) = rest.find('"') {
            out.push_str(&rest[..start]);
            let literal = &rest[start..start + literal_len(&rest[start..])];
            out.push_str(&self.scrub_literal(literal));
            rest = &rest[start + literal.len()..];
        }
        out.push_str(&self.scrub(rest));
        Cow::Owned(out)
    }

    fn scrub_literal<'t>(&self, literal: &'t str) -> Cow<'t, str> {
        let Ok(value) = serde_json::from_str::<String>(literal) else {
            // Not a literal serde_json wrote; scrub its text as it stands.
            return self.scrub(literal);
        };
        match self.scrub(&value) {
            Cow::Borrowed(_) => Cow::Borrowed(literal),
            Cow::Owned(clean) => Cow::Owned(serde_json::to_string(&clean).unwrap_or_default()),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_every_secret_is_replaced() {
        let key = Secret::new("e2e-SECRET+key/91");
        let token = Secret::new("tok_SECRET_3f08");
        let scrubber = Scrubber::new([&key, &token]);
        let echoed = "bad request GET /x?apikey=e2e-SECRET%2Bkey%2F91&b=1 \
                      (form: apikey=e2e-SECRET%2Bkey%2F91, raw e2e-SECRET+key/91) \
                      with header Authorization: Bearer tok_SECRET_3f08";
        let clean = scrubber.scrub(echoed);
        assert!(!clean.contains("SECRET"), "{clean}");
        assert_eq!(clean.matches("REDACTED").count(), 4, "{clean}");
        assert!(matches!(scrubber.scrub("nothing here"), Cow::Borrowed(_)));
        assert!(!format!("{scrubber:?}").contains("SECRET"));
    }

    #[test]
    fn case_json_escapes_and_added_secrets_are_caught_in_one_pass() {
        let mut scrubber = Scrubber::default();
        assert!(scrubber.is_empty());
        scrubber.add(" tok+en/1=x\"y ");
        let echoed = "apikey=tok%2Ben%2F1%3Dx%22y and tok%2bEN%2f1%3dX%22Y, Bearer tok+en/1=x\"y \
                      and \"tok+en/1=x\\\"y\", form tok%2Ben%2F1%3Dx%22y";
        let clean = scrubber.scrub(echoed);
        assert!(!clean.to_ascii_lowercase().contains("tok"), "{clean}");
        assert_eq!(clean.matches(REDACTED).count(), 5, "{clean}");
        // A replacement is never scanned again: a secret that is REDACTED's prefix stays one.
        let mut nested = Scrubber::default();
        nested.add("REDACTEDREDACTED");
        assert_eq!(nested.scrub("x REDACTEDREDACTED x"), "x REDACTED x");
    }

    #[test]
    fn only_whole_values_are_replaced() {
        // A placeholder a newcomer tries first: the 401 that says it is wrong stays readable.
        let scrubber = Scrubber::new([&Secret::new("the-key1")]);
        let answer = "Invalid API key the-key1 provided; the-key1s and xthe-key1 are other \
                      words; see …/api-keys (\"the-key1\", apikey=the-key1&x=1)";
        assert_eq!(
            scrubber.scrub(answer),
            "Invalid API key REDACTED provided; the-key1s and xthe-key1 are other words; see \
             …/api-keys (\"REDACTED\", apikey=REDACTED&x=1)"
        );
        assert!(matches!(scrubber.scrub("the-key1s"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_shape() {
        let scrubber = Scrubber::new([&Secret::new("s3cr\\et-json")]);
        let text =
            r#"{"message":"key s3cr\\et-json here","s3cr\\et-json":[1,"s3cr\\et-json"],"n":1.5}"#;
        let clean = scrubber.scrub_json(text);
        assert_eq!(
            clean,
            r#"{"message":"key REDACTED here","REDACTED":[1,"REDACTED"],"n":1.5}"#
        );
        assert!(matches!(
            scrubber.scrub_json(r#"{"a":"b"}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn tiny_secrets_are_not_scrubbed() {
        let short = Secret::new("k");
        assert_eq!(Scrubber::new([&short]).scrub("kk"), "kk");
    }
}
