//! E2E's two credentials, both required on every call: the API key travels as the `apikey`
//! query parameter and the auth token as `Authorization: Bearer` (MyAccount → API tokens).

use gpucloud_core::credentials::{Authenticate, set_bearer, set_query_secret, validate};
use gpucloud_core::{CredentialError, Secret};

/// The query parameter that carries the API key.
pub const API_KEY_PARAM: &str = "apikey";

/// E2E credentials. `Debug` shows neither secret.
#[derive(Debug, Clone)]
pub struct Credentials {
    api_key: Secret,
    auth_token: Secret,
}

impl Credentials {
    /// Checks both secrets are sendable; errors name the credential, never its value.
    pub fn new(
        api_key: impl Into<Secret>,
        auth_token: impl Into<Secret>,
    ) -> Result<Self, CredentialError> {
        let (api_key, auth_token) = (api_key.into(), auth_token.into());
        validate("API key", &api_key)?;
        validate("auth token", &auth_token)?;
        Ok(Self {
            api_key,
            auth_token,
        })
    }
}

impl Authenticate for Credentials {
    const SECRET_QUERY_PARAMS: &'static [&'static str] = &[API_KEY_PARAM];

    fn authenticate(&self, request: &mut reqwest::Request) -> Result<(), CredentialError> {
        set_query_secret(request, "API key", API_KEY_PARAM, &self.api_key)?;
        set_bearer(request, "auth token", &self.auth_token)
    }

    fn secrets(&self) -> Vec<&Secret> {
        vec![&self.api_key, &self.auth_token]
    }
}
