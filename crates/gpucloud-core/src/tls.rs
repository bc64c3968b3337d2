//! TLS for every provider client: rustls with the `ring` crypto provider and the platform's
//! certificate verifier.
//!
//! reqwest's `rustls` feature brings the `aws-lc-rs` provider, whose C build (`aws-lc-sys`,
//! with cmake) is about half of a cold build of the facade. `ring` builds quickly and needs no
//! cmake. The provider is handed to each client's own configuration instead of being installed
//! as rustls's process-wide default, so no global state is touched.

use std::sync::Arc;

use crate::build_error::BuildError;

/// The rustls configuration every provider client uses: ring, TLS 1.2 and 1.3, the platform's
/// roots (`rustls-platform-verifier`), HTTP/1.1 over ALPN.
pub fn rustls_config() -> Result<rustls::ClientConfig, BuildError> {
    // rustls 0.23.48 deprecates ring's provider to steer applications to aws-lc-rs, whose
    // hybrid key exchange (X25519MLKEM768) resists a future quantum computer recording traffic
    // today. The trade-off is kept on purpose and said here: ring builds without cmake, in
    // about half the time of a cold build (see the module's documentation). The allowance keeps a build with the newest compatible rustls warning-free (CI checks
    // the libraries after `cargo update`).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|e| BuildError::Tls(e.to_string()))?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| BuildError::Tls(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// A `reqwest::ClientBuilder` that uses [`rustls_config`].
pub fn client_builder() -> Result<reqwest::ClientBuilder, BuildError> {
    Ok(reqwest::Client::builder().tls_backend_preconfigured(rustls_config()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_client_without_a_process_wide_provider() {
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
        let client = client_builder().unwrap().build();
        assert!(client.is_ok(), "{client:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
    }
}
