//! [`E2eConfig`]: an E2E client's credentials, project, location, endpoint and settings, read from the
//! variables its profile names.

use gpucloud_core::Secret;

use super::PROFILE;
use super::profile::{API_KEY, AUTH_TOKEN, LOCATION, PROJECT_ID};
use crate::config::{
    ClientSettings, Lookup, base_url, process_env, required, secret, settings_setters,
};
use crate::error::Error;

/// E2E Networks: `E2E_API_KEY`, `E2E_AUTH_TOKEN`, `E2E_PROJECT_ID`, `E2E_LOCATION`,
/// `E2E_BASE_URL`.
#[derive(Debug, Clone)]
pub struct E2eConfig {
    pub(crate) api_key: Secret,
    pub(crate) auth_token: Secret,
    pub(crate) project_id: i64,
    pub(crate) location: gpucloud_e2e::types::Location,
    pub(crate) active_iam: Option<i64>,
    pub(crate) base_url: String,
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
            base_url: PROFILE.default_base_url.to_string(),
            settings: ClientSettings::default(),
        }
    }

    /// From `E2E_API_KEY`, `E2E_AUTH_TOKEN`, `E2E_PROJECT_ID` (an integer) and `E2E_LOCATION`
    /// (`Delhi` or `Chennai`), all required, and `E2E_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(&process_env)
    }

    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, Error> {
        let api_key = secret(lookup, API_KEY)?;
        let auth_token = secret(lookup, AUTH_TOKEN)?;
        let project_id = required(lookup, PROJECT_ID)?;
        let project_id = project_id
            .trim()
            .parse::<i64>()
            .map_err(|_| Error::Configuration {
                setting: PROJECT_ID.into(),
                problem: "is not an integer".into(),
            })?;
        let location = parse_location(&required(lookup, LOCATION)?).map_err(|problem| {
            Error::Configuration {
                setting: LOCATION.into(),
                problem,
            }
        })?;
        let mut config = Self::new(api_key, auth_token, project_id, location);
        config.base_url = base_url(lookup, PROFILE.base_url_variable, PROFILE.default_base_url)?;
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
