//! The configuration file's `[e2e]` section applied to a request.

use super::options::E2eOptions;
use crate::provider_defaults::ProviderDefaults;
use crate::spec::ClusterSpec;

/// The configuration file's `[e2e]` section applied to a request that does not set it: the
/// security group (a request's own, or one resolved, wins).
pub(crate) fn apply_defaults(defaults: &ProviderDefaults, spec: &mut ClusterSpec) -> Vec<String> {
    let Some(group) = defaults.security_group_id else {
        return Vec::new();
    };
    let options = spec.options.e2e.get_or_insert_with(E2eOptions::default);
    if options.security_group_id != 0 {
        return Vec::new();
    }
    options.security_group_id = group;
    vec!["security_group_id".to_string()]
}
