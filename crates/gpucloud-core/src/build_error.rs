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
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(BuildError::BaseUrl(
            "must not carry a user name or password (credentials are added per request)".into(),
        ));
    }
    if parsed.scheme() == "http" && !is_loopback(&parsed) {
        return Err(BuildError::BaseUrl(
            "plain http:// is allowed only to a loopback address (localhost, 127.0.0.1, ::1): \
             the credential sent with every request could be read on the way; use https://"
                .into(),
        ));
    }
    Ok(base_url.trim_end_matches('/').to_string())
}

/// Whether `url`'s host is this machine: `localhost` (or a name under it), an IPv4 address in
/// 127.0.0.0/8, or `::1`.
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
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
        let userinfo = normalize_base_url("https://me:s3cret@h/v1").unwrap_err();
        assert!(
            userinfo.to_string().contains("user name or password"),
            "{userinfo}"
        );
        assert!(!format!("{userinfo} {userinfo:?}").contains("s3cret"));
    }

    #[test]
    fn plain_http_only_to_loopback() {
        for ok in [
            "http://127.0.0.1:8480/v1",
            "http://127.9.9.9/",
            "http://localhost:1/x",
            "http://LOCALHOST./",
            "http://sim.localhost/",
            "http://[::1]:9/",
            "https://api.together.xyz/v1",
        ] {
            assert!(normalize_base_url(ok).is_ok(), "{ok}");
        }
        for refused in [
            "http://api.together.xyz/v1",
            "http://10.0.0.5/",
            "http://[::2]/",
            "http://localhost.evil.example/",
            "http://127.0.0.1.nip.io/",
        ] {
            let error = normalize_base_url(refused).unwrap_err();
            assert!(error.to_string().contains("loopback"), "{refused}: {error}");
        }
    }
}
