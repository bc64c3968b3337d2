//! [`RuncrateOptions`]: what only Runcrate's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// Runcrate-only create options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct RuncrateOptions {
    /// The offer from `GET /clusters/offers` (required).
    pub offer_id: String,
    /// Allow an offer on community hosts.
    pub include_community: Option<bool>,
    /// The idempotency key for this logical create; one is generated when unset. Reuse it to
    /// make a re-run of your program find the cluster instead of starting another.
    pub idempotency_key: Option<String>,
    /// The Runcrate environment to create in.
    pub environment: Option<String>,
}
