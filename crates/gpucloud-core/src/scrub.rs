//! Scrubbing secrets from text that came from outside.
//!
//! A provider may echo our own request back — a validation layer quoting
//! `...&apikey=<key> with header Authorization: Bearer <token>` — so every text it sends (error
//! messages, bodies kept in errors) passes through a [`Scrubber`] that knows the client's
//! secrets and replaces each, in plain, percent-encoded and form-encoded spelling, with
//! [`crate::REDACTED`].

use std::borrow::Cow;

use crate::credentials::Secret;
use url::Url;

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
/// and hide nothing (real keys are far longer).
const MIN_SCRUBBED_LEN: usize = 6;

/// Replaces a fixed set of secrets, in every spelling a URL or a form gives them.
#[derive(Clone, Default)]
pub struct Scrubber {
    needles: Vec<String>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scrubber")
            .field("secrets", &self.needles.len())
            .finish()
    }
}

impl Scrubber {
    /// A scrubber for `secrets`.
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a Secret>) -> Self {
        let mut needles: Vec<String> = Vec::new();
        for secret in secrets {
            let plain = secret.expose();
            if plain.len() < MIN_SCRUBBED_LEN {
                continue;
            }
            let percent =
                percent_encoding::utf8_percent_encode(plain, percent_encoding::NON_ALPHANUMERIC)
                    .to_string();
            let form: String = url::form_urlencoded::byte_serialize(plain.as_bytes()).collect();
            for needle in [plain.to_string(), percent, form] {
                if !needles.contains(&needle) {
                    needles.push(needle);
                }
            }
        }
        // Longest first, so a secret that contains another is replaced whole.
        needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
        Self { needles }
    }

    /// `text` with every secret replaced by `REDACTED`.
    pub fn scrub<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = Cow::Owned(out.replace(needle.as_str(), REDACTED));
            }
        }
        out
    }

    /// [`Self::scrub`] in place.
    pub fn scrub_in_place(&self, text: &mut String) {
        if let Cow::Owned(clean) = self.scrub(text) {
            *text = clean;
        }
    }
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
    fn tiny_secrets_are_not_scrubbed() {
        let short = Secret::new("k");
        assert_eq!(Scrubber::new([&short]).scrub("kk"), "kk");
    }
}
