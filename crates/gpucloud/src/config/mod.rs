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

/// Settings every provider client shares: where and how to send (base URL, timeouts, user
/// agent) and how to pace repeats (retry policy, clock, randomness).
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// The API's base URL.
    pub base_url: String,
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

impl ClientSettings {
    fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.to_string(),
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

    /// The clock, randomness and retry budget, borrowed together.
    pub fn pacing(&self) -> Pacing<'_> {
        Pacing {
            clock: self.clock.as_ref(),
            random: self.random.as_ref(),
            budget: &self.budget,
        }
    }

    /// A generated client for these settings, built with its crate's `from_context` (the
    /// response cap set); a bad credential or base URL is a configuration error naming
    /// `credential_setting` or `url_setting`.
    pub(crate) fn generated_client<C, K: gpucloud_core::Authenticate>(
        &self,
        credentials: Result<K, gpucloud_core::CredentialError>,
        credential_setting: &str,
        url_setting: &str,
        from_context: impl FnOnce(
            &str,
            reqwest::Client,
            gpucloud_core::ClientContext<K>,
        ) -> Result<C, gpucloud_core::BuildError>,
    ) -> Result<C, Error> {
        let credentials = credentials.map_err(|e| Error::Configuration {
            setting: credential_setting.into(),
            problem: e.to_string(),
        })?;
        let context = gpucloud_core::ClientContext::new(credentials)
            .with_max_response_bytes(self.max_response_bytes);
        from_context(&self.base_url, self.http_client()?, context).map_err(|e| {
            Error::Configuration {
                setting: url_setting.into(),
                problem: e.to_string(),
            }
        })
    }

    /// The reqwest client these settings describe (rustls with ring, configured per client).
    fn http_client(&self) -> Result<reqwest::Client, Error> {
        let builder = gpucloud_core::tls::client_builder().map_err(|e| Error::Configuration {
            setting: "HTTP client".into(),
            problem: e.to_string(),
        })?;
        builder
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

/// Reads environment variables; tests pass a map instead of the process environment.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn required(lookup: Lookup<'_>, name: &str) -> Result<String, Error> {
    match lookup(name) {
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

fn secret(lookup: Lookup<'_>, name: &str) -> Result<Secret, Error> {
    let value = Secret::new(required(lookup, name)?);
    gpucloud_core::credentials::validate("credential", &value).map_err(|e| {
        Error::Configuration {
            setting: name.into(),
            problem: e.rule.into(),
        }
    })?;
    Ok(value)
}

fn base_url(lookup: Lookup<'_>, name: &str, default: &str) -> Result<String, Error> {
    let url = lookup(name)
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_string());
    gpucloud_core::normalize_base_url(&url).map_err(|e| Error::Configuration {
        setting: name.into(),
        problem: e.to_string(),
    })
}

/// `with_*` setters shared by the three configs.
macro_rules! settings_setters {
    ($config:ty) => {
        impl $config {
            /// Overrides the base URL (a proxy, a simulator, a staging endpoint).
            pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
                self.settings.base_url = url.into();
                self
            }
            /// Overrides the per-request timeout.
            pub fn with_timeout(mut self, timeout: Duration) -> Self {
                self.settings.timeout = timeout;
                self
            }
            /// Overrides the connect timeout.
            pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
                self.settings.connect_timeout = timeout;
                self
            }
            /// Overrides the `User-Agent`.
            pub fn with_user_agent(mut self, user_agent: impl Into<String>) -> Self {
                self.settings.user_agent = user_agent.into();
                self
            }
            /// Overrides the retry policy of reads, deletes and keyed creates.
            pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
                self.settings.retry = retry;
                self
            }
            /// Overrides the clock (tests use [`crate::clock::ManualClock`]).
            pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
                self.settings.clock = clock;
                self
            }
            /// Overrides the randomness of backoff and poll jitter (tests use
            /// [`crate::random::FixedRandom`]).
            pub fn with_random(mut self, random: Arc<dyn Random>) -> Self {
                self.settings.random = random;
                self
            }
            /// Overrides the retry budget (a fresh bucket of another size, or one shared with
            /// other clients).
            pub fn with_retry_budget(mut self, budget: RetryBudget) -> Self {
                self.settings.budget = budget;
                self
            }
            /// Overrides how creates without an idempotency key settle after an ambiguous
            /// failure (Together, E2E).
            pub fn with_reconcile_policy(mut self, reconcile: ReconcilePolicy) -> Self {
                self.settings.reconcile = reconcile;
                self
            }
            /// Overrides the cap on answer bodies (32 MiB by default).
            pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
                self.settings.max_response_bytes = limit;
                self
            }
            /// Records every create and delete in `journal` before it is sent and after its
            /// outcome is known (see [`crate::journal`]).
            pub fn with_journal(mut self, journal: Arc<dyn crate::journal::Journal>) -> Self {
                self.settings.journal = Some(journal);
                self
            }
            /// Overrides how creates hold and wait for claims on a name in a shared journal
            /// (see [`crate::journal::ClaimPolicy`]).
            pub fn with_claim_policy(mut self, claim: crate::journal::ClaimPolicy) -> Self {
                self.settings.claim = claim;
                self
            }
            /// Keeps a fetched catalog this long before fetching it again (default 5 min).
            pub fn with_catalog_ttl(mut self, ttl: Duration) -> Self {
                self.settings.catalog_ttl = ttl;
                self
            }
            /// The shared client settings.
            pub fn settings(&self) -> &ClientSettings {
                &self.settings
            }
        }
    };
}

/// Together AI: `TOGETHER_API_KEY`, `TOGETHER_BASE_URL`.
#[derive(Debug, Clone)]
pub struct TogetherConfig {
    pub(crate) api_key: Secret,
    pub(crate) settings: ClientSettings,
}

impl TogetherConfig {
    /// With an explicit key and the production endpoint.
    pub fn new(api_key: impl Into<Secret>) -> Self {
        Self {
            api_key: api_key.into(),
            settings: ClientSettings::new(gpucloud_together::DEFAULT_BASE_URL),
        }
    }

    /// From `TOGETHER_API_KEY` (required) and `TOGETHER_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let mut config = Self::new(secret(lookup, "TOGETHER_API_KEY")?);
        config.settings.base_url = base_url(
            lookup,
            "TOGETHER_BASE_URL",
            gpucloud_together::DEFAULT_BASE_URL,
        )?;
        Ok(config)
    }

    /// Overrides the API key.
    pub fn with_api_key(mut self, api_key: impl Into<Secret>) -> Self {
        self.api_key = api_key.into();
        self
    }
}
settings_setters!(TogetherConfig);

/// Runcrate: `RUNCRATE_API_KEY`, `RUNCRATE_BASE_URL`.
#[derive(Debug, Clone)]
pub struct RuncrateConfig {
    pub(crate) api_key: Secret,
    pub(crate) settings: ClientSettings,
}

impl RuncrateConfig {
    /// With an explicit key (`rc_live_…`) and the production endpoint.
    pub fn new(api_key: impl Into<Secret>) -> Self {
        Self {
            api_key: api_key.into(),
            settings: ClientSettings::new(gpucloud_runcrate::DEFAULT_BASE_URL),
        }
    }

    /// From `RUNCRATE_API_KEY` (required) and `RUNCRATE_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let mut config = Self::new(secret(lookup, "RUNCRATE_API_KEY")?);
        config.settings.base_url = base_url(
            lookup,
            "RUNCRATE_BASE_URL",
            gpucloud_runcrate::DEFAULT_BASE_URL,
        )?;
        Ok(config)
    }

    /// Overrides the API key.
    pub fn with_api_key(mut self, api_key: impl Into<Secret>) -> Self {
        self.api_key = api_key.into();
        self
    }
}
settings_setters!(RuncrateConfig);

/// E2E Networks: `E2E_API_KEY`, `E2E_AUTH_TOKEN`, `E2E_PROJECT_ID`, `E2E_LOCATION`,
/// `E2E_BASE_URL`.
#[derive(Debug, Clone)]
pub struct E2eConfig {
    pub(crate) api_key: Secret,
    pub(crate) auth_token: Secret,
    pub(crate) project_id: i64,
    pub(crate) location: gpucloud_e2e::types::Location,
    pub(crate) active_iam: Option<i64>,
    pub(crate) settings: ClientSettings,
}

impl E2eConfig {
    /// With explicit credentials, project and location, and the production endpoint.
    pub fn new(
        api_key: impl Into<Secret>,
        auth_token: impl Into<Secret>,
        project_id: i64,
        location: gpucloud_e2e::types::Location,
    ) -> Self {
        Self {
            api_key: api_key.into(),
            auth_token: auth_token.into(),
            project_id,
            location,
            active_iam: None,
            settings: ClientSettings::new(gpucloud_e2e::DEFAULT_BASE_URL),
        }
    }

    /// From `E2E_API_KEY`, `E2E_AUTH_TOKEN`, `E2E_PROJECT_ID` (an integer) and `E2E_LOCATION`
    /// (`Delhi` or `Chennai`), all required, and `E2E_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let api_key = secret(lookup, "E2E_API_KEY")?;
        let auth_token = secret(lookup, "E2E_AUTH_TOKEN")?;
        let project_id = required(lookup, "E2E_PROJECT_ID")?;
        let project_id = project_id
            .trim()
            .parse::<i64>()
            .map_err(|_| Error::Configuration {
                setting: "E2E_PROJECT_ID".into(),
                problem: "is not an integer".into(),
            })?;
        let location = parse_location(&required(lookup, "E2E_LOCATION")?).map_err(|problem| {
            Error::Configuration {
                setting: "E2E_LOCATION".into(),
                problem,
            }
        })?;
        let mut config = Self::new(api_key, auth_token, project_id, location);
        config.settings.base_url =
            base_url(lookup, "E2E_BASE_URL", gpucloud_e2e::DEFAULT_BASE_URL)?;
        Ok(config)
    }

    /// Overrides both credentials.
    pub fn with_credentials(
        mut self,
        api_key: impl Into<Secret>,
        auth_token: impl Into<Secret>,
    ) -> Self {
        self.api_key = api_key.into();
        self.auth_token = auth_token.into();
        self
    }

    /// Overrides the project.
    pub fn with_project_id(mut self, project_id: i64) -> Self {
        self.project_id = project_id;
        self
    }

    /// Overrides the location.
    pub fn with_location(mut self, location: gpucloud_e2e::types::Location) -> Self {
        self.location = location;
        self
    }

    /// Acts as this IAM account (`active_iam`, the `id` from `GET /users/iam-accounts/`).
    pub fn with_active_iam(mut self, active_iam: i64) -> Self {
        self.active_iam = Some(active_iam);
        self
    }
}
settings_setters!(E2eConfig);

/// An E2E location: a documented one case-insensitively (`delhi` → `Delhi`), any other
/// printable name as given, with a warning. The set is not closed (E2E's pages disagree on it,
/// and regions get added), so the provider, not the client, refuses a location it lacks.
pub(crate) fn parse_location(raw: &str) -> Result<gpucloud_e2e::types::Location, String> {
    use gpucloud_e2e::types::Location;
    let name = raw.trim();
    if let Some(known) = Location::KNOWN_VALUES
        .iter()
        .find(|known| known.eq_ignore_ascii_case(name))
    {
        return Ok(Location::from(*known));
    }
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(format!(
            "{raw:?} is not a location name (documented: {})",
            Location::KNOWN_VALUES.join(", ")
        ));
    }
    tracing::warn!(
        location = name,
        documented = Location::KNOWN_VALUES.join(", "),
        "E2E location not among the documented ones; sent as given"
    );
    Ok(Location::from(name))
}

#[cfg(test)]
mod tests;
