//! Why a client could not be built.

use std::fmt;

use crate::credentials::CredentialError;

/// A client constructor failed. Never contains a credential's value.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A credential is empty or cannot be sent.
    Credential(CredentialError),
    /// The base URL is not an absolute http(s) URL.
    BaseUrl(String),
    /// reqwest could not build its client.
    Http(reqwest::Error),
    /// The TLS configuration could not be built (no usable root certificates).
    Tls(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Credential(e) => e.fmt(f),
            Self::BaseUrl(rule) => write!(f, "invalid base URL: {rule}"),
            Self::Http(_) => f.write_str("cannot build the HTTP client"),
            Self::Tls(problem) => write!(f, "cannot configure TLS: {problem}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Credential(e) => Some(e),
            Self::Http(e) => Some(e),
            Self::BaseUrl(_) | Self::Tls(_) => None,
        }
    }
}

impl From<CredentialError> for BuildError {
    fn from(value: CredentialError) -> Self {
        Self::Credential(value)
    }
}

impl From<reqwest::Error> for BuildError {
    fn from(value: reqwest::Error) -> Self {
        Self::Http(value)
    }
}

/// Checks `base_url` and returns it without a trailing slash (generated paths start with `/`).
///
/// Errors never repeat the URL: users paste provider examples whose query carries a key
/// (E2E's `?apikey=…`).
pub fn normalize_base_url(base_url: &str) -> Result<String, BuildError> {
    let parsed = url::Url::parse(base_url)
        .map_err(|e| BuildError::BaseUrl(format!("not an absolute URL ({e})")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(BuildError::BaseUrl(format!(
            "scheme {:?} is not http or https",
            parsed.scheme()
        )));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(BuildError::BaseUrl(
            "must not have a query or fragment (credentials are added per request)".into(),
        ));
    }
    Ok(base_url.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(
            normalize_base_url("https://api.together.ai/v1/").unwrap(),
            "https://api.together.ai/v1"
        );
        assert_eq!(
            normalize_base_url("ftp://x").unwrap_err().to_string(),
            "invalid base URL: scheme \"ftp\" is not http or https"
        );
        assert!(normalize_base_url("not a url").is_err());
        let leaky = normalize_base_url("http://h/?apikey=s3cret").unwrap_err();
        assert!(!format!("{leaky} {leaky:?}").contains("s3cret"));
    }
}
