//! A [`ClusterClient`] for `--provider`, configured from the environment and the flags.

use std::sync::Arc;

use gpucloud::journal::Journal;
use gpucloud::{
    ClusterClient, E2eConfig, Error, ProviderKind, ReconcilePolicy, RetryPolicy, RuncrateConfig,
    TogetherConfig,
};

use crate::cli::TargetArgs;
use crate::secrets;

/// The environment variables that hold `provider`'s credentials (its profile's).
pub fn credential_variables(provider: ProviderKind) -> &'static [&'static str] {
    provider.profile().credential_variables
}

/// The client `target` names. Credentials come from the environment only (never flags, which
/// end up in shell history and process listings); `--base-url` wins over `<PROVIDER>_BASE_URL`.
/// Each credential is registered with [`secrets`] before the client exists, so nothing printed
/// from then on (a server's echo included) can show it. `--max-attempts` and `--settle-window`
/// replace the facade's defaults, nothing else of its policies. With a `journal` (the ledger),
/// every create and delete is recorded before it is sent.
pub fn client(
    target: &TargetArgs,
    journal: Option<Arc<dyn Journal>>,
) -> Result<ClusterClient, Error> {
    for name in credential_variables(target.provider) {
        if let Some(value) = std::env::var_os(name) {
            secrets::register(&value.to_string_lossy());
        }
    }
    let connection = &target.connection;
    let base_url = connection.base_url.as_deref();
    let timeout = connection.request_timeout;
    let retry = RetryPolicy {
        max_attempts: connection.max_attempts,
        ..RetryPolicy::default()
    };
    let reconcile = ReconcilePolicy {
        settle_window: connection.settle_window,
        ..ReconcilePolicy::default()
    };
    macro_rules! journaled {
        ($config:expr) => {
            match journal {
                Some(journal) => $config.with_journal(journal),
                None => $config,
            }
        };
    }
    match target.provider {
        ProviderKind::Together => {
            let config = journaled!(TogetherConfig::from_env()?)
                .with_timeout(timeout)
                .with_retry_policy(retry)
                .with_reconcile_policy(reconcile);
            ClusterClient::together(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
        ProviderKind::Runcrate => {
            let config = journaled!(RuncrateConfig::from_env()?)
                .with_timeout(timeout)
                .with_retry_policy(retry);
            ClusterClient::runcrate(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
        ProviderKind::E2e => {
            let config = journaled!(E2eConfig::from_env()?)
                .with_timeout(timeout)
                .with_retry_policy(retry)
                .with_reconcile_policy(reconcile);
            ClusterClient::e2e(match base_url {
                Some(url) => config.with_base_url(url),
                None => config,
            })
        }
    }
}
