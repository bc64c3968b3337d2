//! Credentials: held as secrets, rendered only into outgoing requests.

use std::fmt;

use reqwest::header::{AUTHORIZATION, HeaderValue};
use secrecy::{ExposeSecret, SecretString};

/// A credential: an API key or token. `Debug` prints `Secret([REDACTED])`; there is no `Display`.
#[derive(Clone)]
pub struct Secret(SecretString);

impl Secret {
    /// Wraps a credential value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(SecretString::from(value.into()))
    }

    /// The wrapped value, for code that must send it somewhere.
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

impl From<SecretString> for Secret {
    fn from(value: SecretString) -> Self {
        Self(value)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

/// A credential that cannot be sent. Names the credential, never its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialError {
    /// Which credential (`"API key"`, `"auth token"`, …).
    pub credential: &'static str,
    /// The rule it breaks.
    pub rule: &'static str,
}

impl fmt::Display for CredentialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} {}", self.credential, self.rule)
    }
}

impl std::error::Error for CredentialError {}

impl CredentialError {
    /// As the generated client's error, so a hook can return it.
    pub fn into_client_error<E>(self) -> progenitor_client::Error<E> {
        progenitor_client::Error::InvalidRequest(self.to_string())
    }
}

/// Checks that a credential is non-empty and could travel in an HTTP header or query string.
pub fn validate(credential: &'static str, secret: &Secret) -> Result<(), CredentialError> {
    let value = secret.expose();
    if value.trim().is_empty() {
        return Err(CredentialError {
            credential,
            rule: "is empty",
        });
    }
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(CredentialError {
            credential,
            rule: "contains whitespace, control or non-ASCII characters",
        });
    }
    if value.len() < MIN_CREDENTIAL_LEN {
        return Err(CredentialError {
            credential,
            rule: "is shorter than 8 characters, which no provider's key is (a placeholder?); \
                   refused, since a value that short could not be told apart from ordinary \
                   words to keep it out of what is printed",
        });
    }
    Ok(())
}

/// The shortest credential accepted, and the shortest value [`crate::Scrubber`] replaces: a
/// shorter one could not be told from ordinary words (scrubbing `key` would eat "keys").
pub const MIN_CREDENTIAL_LEN: usize = 8;

/// Sets `Authorization: Bearer <token>` on `request`, marked sensitive so that reqwest and
/// hyper never print it.
pub fn set_bearer(
    request: &mut reqwest::Request,
    credential: &'static str,
    token: &Secret,
) -> Result<(), CredentialError> {
    validate(credential, token)?;
    let mut value = HeaderValue::try_from(format!("Bearer {}", token.expose())).map_err(|_| {
        CredentialError {
            credential,
            rule: "is not a valid HTTP header value",
        }
    })?;
    value.set_sensitive(true);
    request.headers_mut().insert(AUTHORIZATION, value);
    Ok(())
}

/// Appends `name=<secret>` to the query string of `request`, replacing any pair of that name.
pub fn set_query_secret(
    request: &mut reqwest::Request,
    credential: &'static str,
    name: &str,
    secret: &Secret,
) -> Result<(), CredentialError> {
    validate(credential, secret)?;
    let url = request.url_mut();
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != name)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair(name, secret.expose());
    Ok(())
}

/// How a provider's credentials are put on a request. Implemented by each provider crate's
/// `auth::Credentials`; [`crate::impl_client_glue!`] calls it before every request.
pub trait Authenticate {
    /// Query parameters that carry secrets, to be scrubbed from every URL that could be printed.
    const SECRET_QUERY_PARAMS: &'static [&'static str] = &[];

    /// Adds the credentials to `request`.
    fn authenticate(&self, request: &mut reqwest::Request) -> Result<(), CredentialError>;

    /// Every secret these credentials hold, to be scrubbed from whatever a provider sends back
    /// (a validation message that quotes our request, an echoed header).
    fn secrets(&self) -> Vec<&Secret> {
        Vec::new()
    }
}

/// One bearer token (`Authorization: Bearer …`): Together's and Runcrate's API keys.
#[derive(Debug, Clone)]
pub struct BearerToken {
    api_key: Secret,
}

impl BearerToken {
    /// Checks the key is sendable; the error names the credential, never its value.
    pub fn new(api_key: impl Into<Secret>) -> Result<Self, CredentialError> {
        let api_key = api_key.into();
        validate("API key", &api_key)?;
        Ok(Self { api_key })
    }
}

impl Authenticate for BearerToken {
    fn authenticate(&self, request: &mut reqwest::Request) -> Result<(), CredentialError> {
        set_bearer(request, "API key", &self.api_key)
    }

    fn secrets(&self) -> Vec<&Secret> {
        vec![&self.api_key]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str) -> reqwest::Request {
        reqwest::Request::new(reqwest::Method::GET, url.parse().unwrap())
    }

    #[test]
    fn debug_never_shows_the_value() {
        let secret = Secret::new("rc_live_supersecret");
        assert_eq!(format!("{secret:?}"), "Secret([REDACTED])");
    }

    #[test]
    fn bearer_header_is_sensitive() {
        let mut req = request("https://h/x");
        set_bearer(&mut req, "API key", &Secret::new("tok-1234")).unwrap();
        let value = &req.headers()[AUTHORIZATION];
        assert_eq!(value.to_str().unwrap(), "Bearer tok-1234");
        assert!(value.is_sensitive());
        assert!(!format!("{req:?}").contains("tok-1234"));
    }

    #[test]
    fn query_secret_replaces_existing_pair_and_keeps_others() {
        let mut req = request("https://h/x/?project_id=7&apikey=old&location=Delhi");
        set_query_secret(&mut req, "API key", "apikey", &Secret::new("key-0001")).unwrap();
        assert_eq!(
            req.url().query(),
            Some("project_id=7&location=Delhi&apikey=key-0001")
        );
    }

    #[test]
    fn bad_credentials_are_named_not_shown() {
        let mut req = request("https://h/x");
        let err = set_bearer(&mut req, "auth token", &Secret::new("a b\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the auth token contains whitespace, control or non-ASCII characters"
        );
        let err = set_bearer(&mut req, "API key", &Secret::new(" ")).unwrap_err();
        assert_eq!(err.to_string(), "the API key is empty");
    }
}
