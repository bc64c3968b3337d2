//! The glue every provider crate needs around its generated `Client`, written once: the
//! `ClientHooks` implementation and a validating constructor.
//!
//! Only the crate that defines a generated `Client` may implement `ClientHooks` for it (orphan
//! rule), so this is a macro that the provider crate invokes.

/// Implements `progenitor_client::ClientHooks<ClientContext<$credentials>>` for `$client`: join
/// the comma-separated query arrays listed in `$comma_joined` (generated per spec),
/// authenticate with [`crate::credentials::Authenticate`] before each request, and send
/// through [`crate::transport::execute`] (tracing span, secrets scrubbed from URLs, or the
/// request recorded by a planning client). Also adds
/// `$client::from_parts(base_url, reqwest::Client, $credentials)`, which checks the base URL,
/// and `$client::planning()`, a copy whose requests are recorded instead of sent.
#[macro_export]
macro_rules! impl_client_glue {
    ($client:ty, $credentials:ty, $comma_joined:expr) => {
        impl $client {
            /// A client with your own `reqwest::Client` (proxies, timeouts, TLS settings).
            /// Authentication is still added per request. Fails, without repeating the URL, if
            /// `base_url` is not an absolute http(s) URL without query or fragment.
            pub fn from_parts(
                base_url: &str,
                http: $crate::__private::reqwest::Client,
                credentials: $credentials,
            ) -> ::std::result::Result<Self, $crate::BuildError> {
                let base_url = $crate::normalize_base_url(base_url)?;
                Ok(Self::new_with_client(
                    &base_url,
                    http,
                    $crate::ClientContext::new(credentials),
                ))
            }

            /// A client with your own `reqwest::Client` and a context you configured (e.g.
            /// [`ClientContext::with_max_response_bytes`]($crate::ClientContext::with_max_response_bytes)).
            pub fn from_context(
                base_url: &str,
                http: $crate::__private::reqwest::Client,
                context: $crate::ClientContext<$credentials>,
            ) -> ::std::result::Result<Self, $crate::BuildError> {
                let base_url = $crate::normalize_base_url(base_url)?;
                Ok(Self::new_with_client(&base_url, http, context))
            }

            /// A copy of this client (same base URL, HTTP client and credentials) that records
            /// each request it builds in the returned capture instead of sending it: a dry run
            /// that cannot drift from what a real call sends.
            pub fn planning(&self) -> (Self, $crate::RequestCapture) {
                use $crate::__private::ClientInfo as _;
                let (context, capture) = self.inner().planning();
                let client = Self::new_with_client(self.baseurl(), self.client().clone(), context);
                (client, capture)
            }
        }

        impl $crate::__private::ClientHooks<$crate::ClientContext<$credentials>> for $client {
            async fn pre<E>(
                &self,
                request: &mut $crate::__private::reqwest::Request,
                info: &$crate::__private::OperationInfo,
            ) -> ::std::result::Result<(), $crate::__private::Error<E>> {
                $crate::transport::join_query_params(request, info.operation_id, $comma_joined);
                let context = $crate::__private::ClientInfo::inner(self);
                $crate::credentials::Authenticate::authenticate(context.credentials(), request)
                    .map_err($crate::CredentialError::into_client_error)
            }

            async fn exec(
                &self,
                request: $crate::__private::reqwest::Request,
                info: &$crate::__private::OperationInfo,
            ) -> $crate::__private::reqwest::Result<$crate::__private::reqwest::Response> {
                $crate::execute(
                    $crate::__private::ClientInfo::client(self),
                    request,
                    info,
                    $crate::__private::ClientInfo::inner(self),
                )
                .await
            }
        }
    };
}
