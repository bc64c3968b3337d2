//! [`RuncrateOptions`]: what only Runcrate's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// Runcrate-only create options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
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

impl RuncrateOptions {
    /// A create of the offer `offer_id` (from `GET /clusters/offers`, or from
    /// `ClusterClient::resolve`).
    pub fn for_offer(offer_id: impl Into<String>) -> Self {
        Self {
            offer_id: offer_id.into(),
            ..Self::default()
        }
    }

    /// Allow (or refuse) an offer on community hosts.
    #[must_use]
    pub fn with_community(mut self, include: bool) -> Self {
        self.include_community = Some(include);
        self
    }

    /// The idempotency key of this logical create. Reuse it across runs of your program, and
    /// a re-run finds the cluster instead of starting another.
    #[must_use]
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// The Runcrate environment to create in.
    #[must_use]
    pub fn with_environment(mut self, environment: impl Into<String>) -> Self {
        self.environment = Some(environment.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builder_sets_its_field() {
        let built = RuncrateOptions::for_offer("offer-1")
            .with_community(false)
            .with_idempotency_key("key-1")
            .with_environment("staging");
        let expected = RuncrateOptions {
            offer_id: "offer-1".into(),
            include_community: Some(false),
            idempotency_key: Some("key-1".into()),
            environment: Some("staging".into()),
        };
        assert_eq!(built, expected);
    }
}
