//! [`TogetherConfig`]: a Together client's key, endpoint and settings, read from the variables
//! its profile names: the one config type of single-key providers ([`ApiKeyConfig`]).

use super::PROFILE;
use super::profile::API_KEY;
use crate::config::{ApiKeyConfig, KeyedProvider};

/// Together AI: `TOGETHER_API_KEY`, `TOGETHER_BASE_URL`.
pub type TogetherConfig = ApiKeyConfig<TogetherKey>;

/// Together's variables and endpoint, for [`ApiKeyConfig`].
#[derive(Debug, Clone, Copy)]
pub struct TogetherKey;

impl KeyedProvider for TogetherKey {
    const API_KEY_VARIABLE: &'static str = API_KEY;
    const BASE_URL_VARIABLE: &'static str = PROFILE.base_url_variable;
    const DEFAULT_BASE_URL: &'static str = PROFILE.default_base_url;
}
