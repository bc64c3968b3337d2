//! Shared support for the integration tests: a local mock server whose catch-all names any
//! request no mock matched, the documented fixtures, helpers that assert the exact request a
//! client sent, and the checks every provider's tests make on the generated clients' errors.

mod errors;
mod fixtures;
mod mock;
mod request;

use chrono::{DateTime, Utc};

pub use errors::{assert_hides, assert_text_hides, error_response, invalid_request};
pub use fixtures::{FixtureEntry, fixture, fixture_index, fixture_path, fixture_text};
pub use mock::{
    UNMATCHED_STATUS, assert_nothing_sent, mock_server, mount, mount_json, received, single_request,
};
pub use request::{
    all_headers, assert_body, assert_call, assert_user_agent, header, json_body, owned_pairs,
    query_map, query_pairs,
};

/// An RFC 3339 timestamp (panics, naming the text, if it is not one).
pub fn ts(s: &str) -> DateTime<Utc> {
    s.parse()
        .unwrap_or_else(|e| panic!("{s:?} is not an RFC 3339 timestamp: {e}"))
}
