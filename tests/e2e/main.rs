//! The E2E Networks client against a local mock server and E2E's documented examples: the exact
//! request of every operation (both credentials, scoping query, trailing slashes), the typed
//! decoding of documented responses and error shapes, forward compatibility, secret hygiene and
//! client-side validation. One module per area; `harness` holds the mock-server wiring they
//! share.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] fns"
)]

mod actions;
mod catalog;
mod clusters;
mod documented;
mod errors;
mod forward;
mod harness;
mod secrets;
mod validation;

const PROVIDER: &str = "e2e";
const API_KEY: &str = "e2eKEY-Qv7Lm2Pz9x";
const TOKEN: &str = "e2eTOKEN.Hb4Ns8Wd3k";
/// Distinctive fragments: neither may appear anywhere, even truncated.
const SECRET_FRAGMENTS: &[&str] = &[API_KEY, TOKEN, "Qv7Lm2Pz9x", "Hb4Ns8Wd3k"];
/// The path stem of the production base URL.
const STEM: &str = "/myaccount/api/v1/gpu";
const PROJECT: i64 = 10001;
const CLUSTER: i64 = 101;
