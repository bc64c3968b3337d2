//! [`TogetherConfig`]: a Together client's credentials and settings, read from the variables
//! its profile names.

use gpucloud_core::Secret;

use super::PROFILE;
use super::profile::API_KEY;
use crate::config::{ClientSettings, Lookup, base_url, process_env, secret, settings_setters};
use crate::error::Error;

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
            settings: ClientSettings::new(PROFILE.default_base_url),
        }
    }

    /// From `TOGETHER_API_KEY` (required) and `TOGETHER_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let mut config = Self::new(secret(lookup, API_KEY)?);
        config.settings.base_url =
            base_url(lookup, PROFILE.base_url_variable, PROFILE.default_base_url)?;
        Ok(config)
    }

    /// Overrides the API key.
    pub fn with_api_key(mut self, api_key: impl Into<Secret>) -> Self {
        self.api_key = api_key.into();
        self
    }
}
settings_setters!(TogetherConfig);
