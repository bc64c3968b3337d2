//! [`CatalogRules`]: a provider's part of resolving a request against its catalog. The
//! neutral part (filtering by GPU, region, stack, billing, size and price, ranking, the
//! "nothing fits" error) is in [`super::resolve()`]; each provider implements this trait in its
//! own folder and names the implementation in its profile, so this module knows no provider.

use std::fmt;

use serde::Serialize;

use super::Offering;
use crate::cluster::ProviderKind;
use crate::spec::ClusterSpec;

/// What only a provider knows about turning intent into its catalog ids.
///
/// Every check answers `Err(reason)` in the words [`crate::Error::NoMatchingOffering`] lists
/// beside the offering (`has no matching NVIDIA driver entry`).
pub trait CatalogRules: fmt::Debug + Sync {
    /// The provider these rules are for.
    fn provider(&self) -> ProviderKind;

    /// Whether `spec` lacks ids only the catalog can supply (a request that names them all
    /// is sent as it is, without fetching the catalog).
    fn needs_catalog(&self, spec: &ClusterSpec) -> bool;

    /// Whether a request that names no GPU model can be resolved at all.
    fn without_gpu_model(&self) -> Result<(), String> {
        Ok(())
    }

    /// The provider's documented rule for the size asked for, checked before any offering:
    /// a size the provider never takes is an invalid request (as it is for a resize), not
    /// "no offering matches".
    fn check_size(&self, _spec: &ClusterSpec) -> Result<(), crate::error::Error> {
        Ok(())
    }

    /// The provider's own admission rule for `offering`, checked after GPU model, region and
    /// stack, before billing, size and price (Runcrate's community hosts).
    fn admits(&self, _spec: &ClusterSpec, _offering: &Offering) -> Result<(), String> {
        Ok(())
    }

    /// What the provider needs of `offering` for `spec` beyond the neutral checks, checked
    /// last (a driver entry, an image, ids that agree with the ones given).
    fn completes(&self, _spec: &ClusterSpec, _offering: &Offering) -> Result<(), String> {
        Ok(())
    }

    /// Fills `fill.spec` in from `offering`, which fits `spec` with `nodes` nodes; `ranked`
    /// is the ranking's note for the first choice (empty when only one offering fit).
    fn fill(
        &self,
        offering: &Offering,
        nodes: u32,
        ranked: &str,
        fill: &mut Fill<'_>,
    ) -> Result<(), String>;
}

/// One field resolution filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The provider's field (`region`, `nvidia_version_id`, `offer_id`, `sku_id`, …).
    pub field: &'static str,
    /// Its value.
    pub value: String,
    /// Why this value.
    pub why: String,
}

/// A request being filled in from an offering, with the record of every choice made.
#[derive(Debug)]
pub struct Fill<'a> {
    /// The request as asked (read it to know what was given).
    pub asked: &'a ClusterSpec,
    /// The request as it will be sent.
    pub spec: ClusterSpec,
    /// What was filled in, and why.
    pub choices: Vec<Choice>,
}

impl<'a> Fill<'a> {
    pub(crate) fn new(asked: &'a ClusterSpec) -> Self {
        Self {
            asked,
            spec: asked.clone(),
            choices: Vec::new(),
        }
    }

    /// Records that `field` was set to `value`, and why.
    pub fn choose(&mut self, field: &'static str, value: String, why: String) {
        self.choices.push(Choice { field, value, why });
    }
}
