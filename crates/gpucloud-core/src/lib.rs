//! Hand-written plumbing shared by the generated gpucloud provider clients.
//!
//! progenitor ignores security schemes and knows nothing about secrets (CODEGEN.md §1, §7), so
//! each provider crate implements `progenitor_client::ClientHooks` for its generated `Client` and
//! delegates here:
//!
//! - [`credentials`]: secrets as [`secrecy::SecretString`], turned into *sensitive* headers and
//!   query pairs only at the moment a request is built;
//! - [`transport`]: sending a request inside a tracing span, and scrubbing secret query
//!   parameters (E2E's `apikey`) from every URL that an error or a response could print.
//!
//! Provider crates depend on this one; users normally never name it.

pub mod credentials;
pub mod transport;

pub use credentials::{CredentialError, Secret};
pub use transport::{REDACTED, execute, http_client_builder, redact_url};
