//! Hand-written plumbing shared by the generated gpucloud provider clients.
//!
//! progenitor ignores security schemes and knows nothing about secrets, so each provider crate
//! implements `progenitor_client::ClientHooks` for its generated `Client` with
//! [`impl_client_glue!`], which delegates here:
//!
//! - [`credentials`]: secrets as [`secrecy::SecretString`], turned into *sensitive* headers and
//!   query pairs only at the moment a request is built;
//! - [`transport`]: sending a request inside a tracing span, and scrubbing secret query
//!   parameters (E2E's `apikey`) from every URL that an error or a response could print;
//! - [`ClientContext`]: the generated client's inner value — credentials, the answer-body
//!   cap, and for a planning client the [`RequestCapture`] a request is recorded in instead of
//!   being sent;
//! - [`with_answer`]: what one call received (operation, status, `Retry-After`, an error
//!   answer's raw body), for that call only;
//! - [`tls`]: rustls with the ring provider, configured per client.
//!
//! Provider crates depend on this one; users normally never name it.

mod answer;
mod build_error;
mod context;
pub mod credentials;
mod hooks;
pub mod scrub;
pub mod tls;
pub mod transport;

pub use answer::{Answer, ERROR_BODY_LIMIT, with_answer};
pub use build_error::{BuildError, normalize_base_url};
pub use context::{CapturedRequest, ClientContext, DEFAULT_MAX_RESPONSE_BYTES, RequestCapture};
pub use credentials::{Authenticate, BearerToken, CredentialError, Secret};
pub use scrub::{REDACTED, Scrubber, redact_url};
pub use transport::{
    MAX_REDIRECTS, execute, http_client_builder, is_body_too_large, same_origin_redirects,
};

/// The user agent the provider clients send.
pub const USER_AGENT: &str = concat!("gpucloud/", env!("CARGO_PKG_VERSION"));

/// Re-exports for [`impl_client_glue!`]; not public API.
#[doc(hidden)]
pub mod __private {
    pub use progenitor_client::{ClientHooks, ClientInfo, Error, OperationInfo};
    pub use reqwest;
}

/// The README's examples, compiled (and the runnable ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
