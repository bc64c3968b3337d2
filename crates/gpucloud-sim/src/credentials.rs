//! The only credentials the simulator accepts. They are fixed and public on purpose: the point
//! is to exercise each provider's way of presenting credentials (and its answer to wrong
//! ones), not to keep anything secret. Each value passes the facade's own credential checks
//! (no whitespace; Runcrate's `rc_live_` prefix).

/// Together: `Authorization: Bearer <TOGETHER_API_KEY>`.
pub const TOGETHER_API_KEY: &str = "sim-together-key-0000";

/// Runcrate: `Authorization: Bearer <RUNCRATE_API_KEY>`; real keys start with `rc_live_`.
pub const RUNCRATE_API_KEY: &str = "rc_live_sim0000000000000000";

/// E2E: the `apikey` query parameter.
pub const E2E_API_KEY: &str = "sim-e2e-api-key-0000";

/// E2E: `Authorization: Bearer <E2E_AUTH_TOKEN>`, sent together with the `apikey`.
pub const E2E_AUTH_TOKEN: &str = "sim-e2e-auth-token-0000";

/// E2E: the one project (`project_id` query parameter) the simulated account owns.
pub const E2E_PROJECT_ID: i64 = 4242;

/// The E2E location the simulated account's clients name (any location is accepted; this is
/// the one the environment sets).
pub const E2E_LOCATION: &str = "Delhi";

/// The token of an `Authorization: Bearer <token>` header, if that is what was sent.
pub(crate) fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_reads_the_token_case_insensitively() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(
            http::header::AUTHORIZATION,
            http::HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(
            http::header::AUTHORIZATION,
            http::HeaderValue::from_static("Basic abc"),
        );
        assert_eq!(bearer(&headers), None);
    }
}
