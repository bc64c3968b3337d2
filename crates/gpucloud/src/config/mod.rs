//! Configuration: credentials from the environment (the variables each provider's own tools
//! use), with `with_*` overrides in the style of async-openai's `Config`.
//!
//! A missing or malformed setting is an [`Error::Configuration`] that names the variable;
//! secrets are [`Secret`]s, so `Debug` never prints them.

use std::sync::Arc;
use std::time::Duration;

use gpucloud_core::Secret;

use crate::clock::{Clock, TokioClock};
use crate::error::Error;
use crate::pacing::Pacing;
use crate::random::{FastRandom, Random};
use crate::retry::{ReconcilePolicy, RetryBudget, RetryPolicy};

/// Settings every provider client shares, so one value configures several providers alike:
/// how to send (timeouts, user agent, answer cap), how to pace repeats (retry policy and
/// budget, clock, randomness), how creates settle and claim names (reconcile and claim
/// policies, the journal) and how long a catalog is kept. Where a client sends (its base URL)
/// and as whom (its credentials) are its provider config's own.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientSettings {
    /// Timeout of one request, body included.
    pub timeout: Duration,
    /// Timeout of establishing a connection.
    pub connect_timeout: Duration,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Retries of reads, deletes and keyed creates.
    pub retry: RetryPolicy,
    /// The clock for backoff sleeps and waiters.
    pub clock: Arc<dyn Clock>,
    /// The randomness of backoff and poll jitter.
    pub random: Arc<dyn Random>,
    /// The tokens retries spend, shared by every clone of the client.
    pub budget: RetryBudget,
    /// How creates without an idempotency key settle after an ambiguous failure.
    pub reconcile: ReconcilePolicy,
    /// The longest answer body read, in bytes ([`Error::ResponseTooLarge`] beyond it).
    pub max_response_bytes: usize,
    /// Where creates and deletes are recorded before and after they are sent, if anywhere.
    pub journal: Option<Arc<dyn crate::journal::Journal>>,
    /// How long a fetched catalog is kept before it is fetched again.
    pub catalog_ttl: Duration,
    /// How creates hold and wait for claims on a name in a shared journal.
    pub claim: crate::journal::ClaimPolicy,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            user_agent: gpucloud_core::USER_AGENT.to_string(),
            retry: RetryPolicy::default(),
            clock: Arc::new(TokioClock::default()),
            random: Arc::new(FastRandom),
            budget: RetryBudget::default(),
            reconcile: ReconcilePolicy::default(),
            max_response_bytes: gpucloud_core::DEFAULT_MAX_RESPONSE_BYTES,
            journal: None,
            catalog_ttl: crate::catalog::DEFAULT_TTL,
            claim: crate::journal::ClaimPolicy::default(),
        }
    }
}

impl ClientSettings {
    /// The journal, if any, called off the runtime's workers (see the journal module).
    pub(crate) fn journal(&self) -> Option<crate::journal::OffWorker<'_>> {
        self.journal.as_deref().map(crate::journal::OffWorker)
    }

    /// The clock, randomness and retry budget, borrowed together.
    pub fn pacing(&self) -> Pacing<'_> {
        Pacing {
            clock: self.clock.as_ref(),
            random: self.random.as_ref(),
            budget: &self.budget,
        }
    }

    /// A generated client for these settings at `base_url`, built with its crate's
    /// `from_context` (the response cap set), and its origin ([`origin`]); a bad credential or
    /// base URL is a configuration error naming `credential_setting` or `url_setting`.
    pub(crate) fn generated_client<C, K: gpucloud_core::Authenticate>(
        &self,
        base_url: &str,
        credentials: Result<K, gpucloud_core::CredentialError>,
        credential_setting: &str,
        url_setting: &str,
        from_context: impl FnOnce(
            &str,
            reqwest::Client,
            gpucloud_core::ClientContext<K>,
        ) -> Result<C, gpucloud_core::BuildError>,
    ) -> Result<(C, String), Error> {
        let credentials = credentials.map_err(|e| Error::Configuration {
            setting: credential_setting.into(),
            problem: e.to_string(),
        })?;
        let origin = origin(base_url, &credentials);
        let context = gpucloud_core::ClientContext::new(credentials)
            .with_max_response_bytes(self.max_response_bytes);
        let client = from_context(base_url, self.http_client()?, context).map_err(|e| {
            Error::Configuration {
                setting: url_setting.into(),
                problem: e.to_string(),
            }
        })?;
        Ok((client, origin))
    }

    /// The reqwest client these settings describe (rustls with ring, configured per client).
    fn http_client(&self) -> Result<reqwest::Client, Error> {
        let builder = gpucloud_core::tls::client_builder().map_err(|e| Error::Configuration {
            setting: "HTTP client".into(),
            problem: e.to_string(),
        })?;
        builder
            .redirect(gpucloud_core::same_origin_redirects())
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .user_agent(&self.user_agent)
            .build()
            .map_err(|e| Error::Configuration {
                setting: "HTTP client".into(),
                problem: e.without_url().to_string(),
            })
    }
}

/// Where a client's requests go and as whom: `base_url as <fingerprint>`, the fingerprint
/// being the first 16 hex digits of a SHA-256 over the credentials' secrets (never the
/// credentials). A journal keeps it with each create, so that a 404 from another endpoint or
/// account is not taken as proof that the cluster is gone. Sixty-four bits tell accounts
/// apart; the digest of a high-entropy key gives nothing of the key away.
pub(crate) fn origin<K: gpucloud_core::Authenticate>(base_url: &str, credentials: &K) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    hasher.update(b"gpucloud origin v1");
    for secret in credentials.secrets() {
        hasher.update([0]);
        hasher.update(secret.expose().as_bytes());
    }
    let digest = hasher.finalize();
    let fingerprint: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{} as {fingerprint}", base_url.trim_end_matches('/'))
}

/// Reads environment variables; tests pass a map instead of the process environment.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

pub(crate) fn required(lookup: Lookup<'_>, name: &str) -> Result<String, Error> {
    match lookup(name) {
        // A variable of bytes that are not UTF-8 reads as unset; saying "is not set" of a
        // variable the user did set would send them looking in the wrong place.
        None if matches!(std::env::var(name), Err(std::env::VarError::NotUnicode(_))) => {
            Err(Error::Configuration {
                setting: name.into(),
                problem: "is set, but not to valid UTF-8 text".into(),
            })
        }
        None => Err(Error::Configuration {
            setting: name.into(),
            problem: "is not set".into(),
        }),
        Some(value) if value.trim().is_empty() => Err(Error::Configuration {
            setting: name.into(),
            problem: "is empty".into(),
        }),
        Some(value) => Ok(value),
    }
}

pub(crate) fn secret(lookup: Lookup<'_>, name: &str) -> Result<Secret, Error> {
    let value = Secret::new(required(lookup, name)?);
    gpucloud_core::credentials::validate("credential", &value).map_err(|e| {
        Error::Configuration {
            setting: name.into(),
            problem: e.rule.into(),
        }
    })?;
    Ok(value)
}

/// The base URL from `variable` (a provider profile's `base_url_variable`), else `default`
/// (its production one).
pub(crate) fn base_url(
    lookup: Lookup<'_>,
    variable: &'static str,
    default: &str,
) -> Result<String, Error> {
    let url = lookup(variable)
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_string());
    gpucloud_core::normalize_base_url(&url).map_err(|e| Error::Configuration {
        setting: variable.into(),
        problem: e.to_string(),
    })
}

/// The `with_*` setters and accessors shared by every provider's config, written once (inside
/// an `impl` block of a config with `base_url` and `settings` fields).
macro_rules! settings_setter_fns {
    () => {
        /// Overrides the base URL (a proxy, a simulator, a staging endpoint): this
        /// provider's own, never shared with another's.
        pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
            self.base_url = url.into();
            self
        }
        /// The base URL requests go to.
        pub fn base_url(&self) -> &str {
            &self.base_url
        }
        /// Overrides the per-request timeout.
        pub fn with_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.settings.timeout = timeout;
            self
        }
        /// Overrides the connect timeout.
        pub fn with_connect_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.settings.connect_timeout = timeout;
            self
        }
        /// Overrides the `User-Agent`.
        pub fn with_user_agent(mut self, user_agent: impl Into<String>) -> Self {
            self.settings.user_agent = user_agent.into();
            self
        }
        /// Overrides the retry policy of reads, deletes and keyed creates.
        pub fn with_retry_policy(mut self, retry: $crate::retry::RetryPolicy) -> Self {
            self.settings.retry = retry;
            self
        }
        /// Overrides the clock (tests use [`crate::clock::ManualClock`]).
        pub fn with_clock(mut self, clock: ::std::sync::Arc<dyn $crate::clock::Clock>) -> Self {
            self.settings.clock = clock;
            self
        }
        /// Overrides the randomness of backoff and poll jitter (tests use
        /// [`crate::random::FixedRandom`]).
        pub fn with_random(mut self, random: ::std::sync::Arc<dyn $crate::random::Random>) -> Self {
            self.settings.random = random;
            self
        }
        /// Overrides the retry budget (a fresh bucket of another size, or one shared with
        /// other clients).
        pub fn with_retry_budget(mut self, budget: $crate::retry::RetryBudget) -> Self {
            self.settings.budget = budget;
            self
        }
        /// Overrides how creates without an idempotency key settle after an ambiguous
        /// failure (Together, E2E).
        pub fn with_reconcile_policy(mut self, reconcile: $crate::retry::ReconcilePolicy) -> Self {
            self.settings.reconcile = reconcile;
            self
        }
        /// Overrides the cap on answer bodies (32 MiB by default).
        pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
            self.settings.max_response_bytes = limit;
            self
        }
        /// Records every create and delete in `journal` before it is sent and after its
        /// outcome is known (see [`$crate::journal`]).
        pub fn with_journal(
            mut self,
            journal: ::std::sync::Arc<dyn $crate::journal::Journal>,
        ) -> Self {
            self.settings.journal = Some(journal);
            self
        }
        /// Overrides how creates hold and wait for claims on a name in a shared journal
        /// (see [`$crate::journal::ClaimPolicy`]).
        pub fn with_claim_policy(mut self, claim: $crate::journal::ClaimPolicy) -> Self {
            self.settings.claim = claim;
            self
        }
        /// Keeps a fetched catalog this long before fetching it again (default 5 min).
        pub fn with_catalog_ttl(mut self, ttl: ::std::time::Duration) -> Self {
            self.settings.catalog_ttl = ttl;
            self
        }
        /// Replaces every shared setting at once (timeouts, policies, journal): the way a
        /// caller that configures several providers alike passes one [`ClientSettings`] to
        /// each. The base URL and the credentials stay the config's own.
        pub fn with_settings(mut self, settings: $crate::config::ClientSettings) -> Self {
            self.settings = settings;
            self
        }
        /// The shared client settings.
        pub fn settings(&self) -> &$crate::config::ClientSettings {
            &self.settings
        }
        /// The shared client settings, to change in place.
        pub fn settings_mut(&mut self) -> &mut $crate::config::ClientSettings {
            &mut self.settings
        }
    };
}
pub(crate) use settings_setter_fns;

/// [`settings_setter_fns`] in an `impl` block of `$config` (each provider's `config.rs`).
macro_rules! settings_setters {
    ($config:ty) => {
        impl $config {
            $crate::config::settings_setter_fns!();
        }
    };
}
pub(crate) use settings_setters;

/// What a provider whose API takes one key names: the key's variable, and its endpoint's
/// variable and production default. Each such provider's `config.rs` implements it on a
/// marker type (see [`ApiKeyConfig`]).
pub trait KeyedProvider: std::fmt::Debug + Clone + Send + Sync + 'static {
    /// The variable holding the API key.
    const API_KEY_VARIABLE: &'static str;
    /// The variable that overrides the base URL.
    const BASE_URL_VARIABLE: &'static str;
    /// The production base URL.
    const DEFAULT_BASE_URL: &'static str;
}

/// The config of a provider whose API takes one key (Together, Runcrate): the key, the base
/// URL and the shared settings. One type for every such provider, named per provider by an
/// alias (`TogetherConfig`, `RuncrateConfig`).
#[derive(Debug, Clone)]
pub struct ApiKeyConfig<P: KeyedProvider> {
    pub(crate) api_key: Secret,
    pub(crate) base_url: String,
    pub(crate) settings: ClientSettings,
    provider: std::marker::PhantomData<P>,
}

impl<P: KeyedProvider> ApiKeyConfig<P> {
    /// With an explicit key and the production endpoint.
    pub fn new(api_key: impl Into<Secret>) -> Self {
        Self {
            api_key: api_key.into(),
            base_url: P::DEFAULT_BASE_URL.to_string(),
            settings: ClientSettings::default(),
            provider: std::marker::PhantomData,
        }
    }

    /// From the key's variable (required) and the base URL's (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let mut config = Self::new(secret(lookup, P::API_KEY_VARIABLE)?);
        config.base_url = base_url(lookup, P::BASE_URL_VARIABLE, P::DEFAULT_BASE_URL)?;
        Ok(config)
    }

    /// Overrides the API key.
    pub fn with_api_key(mut self, api_key: impl Into<Secret>) -> Self {
        self.api_key = api_key.into();
        self
    }

    settings_setter_fns!();
}

#[cfg(test)]
mod tests;
