//! A [`ClusterClient`] for `--provider`, configured from the environment and `--base-url`.

use gpucloud::{ClusterClient, E2eConfig, Error, ProviderKind, RuncrateConfig, TogetherConfig};

use crate::cli::TargetArgs;

/// The client `target` names. Credentials come from the environment only (never flags, which
/// end up in shell history and process listings); `--base-url` wins over `<PROVIDER>_BASE_URL`.
pub fn client(target: &TargetArgs) -> Result<ClusterClient, Error> {
    let base_url = target.base_url.as_deref();
    match target.provider {
        ProviderKind::Together => {
            let config = TogetherConfig::from_env()?;
            ClusterClient::together(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
        ProviderKind::Runcrate => {
            let config = RuncrateConfig::from_env()?;
            ClusterClient::runcrate(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
        ProviderKind::E2e => {
            let config = E2eConfig::from_env()?;
            ClusterClient::e2e(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
    }
}
