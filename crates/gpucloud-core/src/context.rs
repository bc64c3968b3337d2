//! What a generated client carries besides its `reqwest::Client`: its credentials (and the
//! scrubber made from them), the cap on answer bodies, and, for a planning client, the place
//! where a request is recorded instead of being sent.
//!
//! All of it is per client (shared by clones of one client, never by two clients), so two
//! clients in one process cannot see each other's answers.

use std::sync::{Arc, Mutex};

use crate::credentials::Authenticate;
use crate::scrub::{REDACTED, Scrubber, redact_url};

/// The default cap on a response body: far above any cluster list a provider sends, far below
/// what would exhaust memory.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// The inner value of every generated gpucloud client (progenitor's `inner_type`).
#[derive(Debug, Clone)]
pub struct ClientContext<C> {
    credentials: C,
    scrubber: Arc<Scrubber>,
    max_response_bytes: usize,
    capture: Option<RequestCapture>,
}

impl<C: Authenticate> ClientContext<C> {
    /// A context that sends requests, with [`DEFAULT_MAX_RESPONSE_BYTES`].
    pub fn new(credentials: C) -> Self {
        let scrubber = Arc::new(Scrubber::new(credentials.secrets()));
        Self {
            credentials,
            scrubber,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            capture: None,
        }
    }

    /// The same context with another cap on response bodies: a longer body fails to read with
    /// an error that [`crate::is_body_too_large`] recognises.
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }
}

impl<C> ClientContext<C> {
    /// Replaces this client's secrets in text that came from the provider.
    pub fn scrubber(&self) -> &Scrubber {
        &self.scrubber
    }

    /// The cap on a response body, in bytes.
    pub fn max_response_bytes(&self) -> usize {
        self.max_response_bytes
    }

    /// The credentials added to every request.
    pub fn credentials(&self) -> &C {
        &self.credentials
    }

    /// Where requests are recorded instead of sent, for a planning client.
    pub fn capture(&self) -> Option<&RequestCapture> {
        self.capture.as_ref()
    }
}

impl<C: Clone> ClientContext<C> {
    /// A copy of this context whose requests are recorded in the returned capture and never
    /// sent: the same credentials and settings build the same request.
    pub fn planning(&self) -> (Self, RequestCapture) {
        let capture = RequestCapture::default();
        let context = Self {
            credentials: self.credentials.clone(),
            scrubber: self.scrubber.clone(),
            max_response_bytes: self.max_response_bytes,
            capture: Some(capture.clone()),
        };
        (context, capture)
    }
}

/// A request exactly as a generated client built it (after its hooks added authentication
/// and joined query arrays), with every credential replaced by [`REDACTED`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedRequest {
    /// The operation id.
    pub operation: &'static str,
    /// HTTP method.
    pub method: String,
    /// The full URL, query included, secret query parameters redacted.
    pub url: String,
    /// Every header the request carries, in order, names in lower case; sensitive values
    /// (credentials) redacted, keeping an `Authorization` header's scheme.
    pub headers: Vec<(String, String)>,
    /// The body bytes, if any.
    pub body: Option<Vec<u8>>,
}

/// The slot a planning client records its requests in (the last one wins).
#[derive(Debug, Clone, Default)]
pub struct RequestCapture {
    last: Arc<Mutex<Option<CapturedRequest>>>,
}

impl RequestCapture {
    /// The request recorded last, if any.
    pub fn take(&self) -> Option<CapturedRequest> {
        self.last.lock().ok().and_then(|mut last| last.take())
    }

    pub(crate) fn record<C: Authenticate>(
        &self,
        operation: &'static str,
        request: &reqwest::Request,
    ) {
        let url = redact_url(request.url(), C::SECRET_QUERY_PARAMS);
        let headers = request
            .headers()
            .iter()
            .map(|(name, value)| {
                let shown = if value.is_sensitive() {
                    redacted_value(value)
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name.as_str().to_string(), shown)
            })
            .collect();
        let captured = CapturedRequest {
            operation,
            method: request.method().as_str().to_string(),
            url: url.to_string(),
            headers,
            body: request
                .body()
                .and_then(reqwest::Body::as_bytes)
                .map(<[u8]>::to_vec),
        };
        if let Ok(mut last) = self.last.lock() {
            *last = Some(captured);
        }
    }
}

/// `Bearer REDACTED` for `Bearer <token>`; `REDACTED` for a value without a scheme.
fn redacted_value(value: &reqwest::header::HeaderValue) -> String {
    let text = String::from_utf8_lossy(value.as_bytes());
    match text.split_once(' ') {
        Some((scheme, _)) if !scheme.is_empty() => format!("{scheme} {REDACTED}"),
        _ => REDACTED.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::BearerToken;
    use crate::credentials::{Authenticate, CredentialError};

    /// Credentials that travel in the `apikey` query parameter, as E2E's do.
    #[derive(Clone)]
    struct QueryKey;

    impl Authenticate for QueryKey {
        const SECRET_QUERY_PARAMS: &'static [&'static str] = &["apikey"];
        fn authenticate(&self, _: &mut reqwest::Request) -> Result<(), CredentialError> {
            Ok(())
        }
    }

    #[test]
    fn captured_requests_hide_credentials_and_keep_the_rest() {
        let token = BearerToken::new("s3cret-token").unwrap();
        let (context, capture) = ClientContext::new(token.clone()).planning();
        assert!(context.capture().is_some());
        let mut request = crate::tls::client_builder()
            .unwrap()
            .build()
            .unwrap()
            .post("https://h/v1/x?apikey=s3cret&page=2")
            .header("Idempotency-Key", "k-1")
            .body("{\"a\":1}")
            .build()
            .unwrap();
        token.authenticate(&mut request).unwrap();
        capture.record::<QueryKey>("create", &request);
        let captured = capture.take().unwrap();
        assert_eq!(captured.method, "POST");
        assert_eq!(captured.url, "https://h/v1/x?apikey=REDACTED&page=2");
        assert_eq!(
            captured.headers,
            [
                ("idempotency-key".to_string(), "k-1".to_string()),
                ("authorization".to_string(), "Bearer REDACTED".to_string())
            ]
        );
        assert_eq!(captured.body.as_deref(), Some(&b"{\"a\":1}"[..]));
        assert!(!format!("{captured:?}").contains("s3cret"));
        assert_eq!(capture.take(), None, "taken once");
    }
}
