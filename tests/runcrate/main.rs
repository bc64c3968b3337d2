//! The Runcrate client against a local mock server and Runcrate's documented examples: the exact
//! request of every operation, the typed decoding of every documented response and error
//! envelope, forward compatibility, key hygiene and client-side validation. One module per
//! area; `harness` holds the mock-server wiring they share.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] fns"
)]

mod clusters;
mod documented;
mod errors;
mod forward;
mod harness;
mod key_hygiene;
mod offers;
mod validation;

const PROVIDER: &str = "runcrate";
const KEY: &str = "rc_live_Zx81TestKeyDoNotLeak";
/// The path stem of the production base URL, kept so that joining base URL and path is tested.
const STEM: &str = "/api/v1";
const CLUSTER_ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";
const SSH_KEY_ID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";
const STORAGE_ID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const DOC_TIME: &str = "2023-11-07T05:31:56Z";
