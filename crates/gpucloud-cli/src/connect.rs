//! A [`ClusterClient`] for `--provider`, configured from the environment and the flags. Commands
//! reach it through [`crate::context::Context`], which chooses the journal (the ledger).

use std::sync::Arc;

use gpucloud::journal::Journal;
use gpucloud::{ClusterClient, Error, ProviderKind};

use crate::flags::TargetArgs;
use crate::secrets;

/// The environment variables that hold `provider`'s credentials (its profile's).
pub fn credential_variables(provider: ProviderKind) -> &'static [&'static str] {
    provider.profile().credential_variables
}

/// The client `target` names. Credentials come from the environment only (never flags, which
/// end up in shell history and process listings); `--base-url` wins over `<PROVIDER>_BASE_URL`,
/// which wins over the configuration file's `base_url` (`file_base_url`).
/// Each credential is registered with [`secrets`] before the client exists, so nothing printed
/// from then on (a server's echo included) can show it. `--max-attempts` and `--settle-window`
/// replace the facade's defaults, nothing else of its policies. With a `journal` (the ledger),
/// every create and delete is recorded before it is sent.
pub fn client(
    target: &TargetArgs,
    journal: Option<Arc<dyn Journal>>,
    file_base_url: Option<&str>,
) -> Result<ClusterClient, Error> {
    for name in credential_variables(target.provider) {
        if let Some(value) = std::env::var_os(name) {
            secrets::register(&value.to_string_lossy());
        }
    }
    let connection = &target.connection;
    let base_url_variable = target.provider.profile().base_url_variable;
    ClusterClient::from_vars(
        target.provider,
        // `--base-url` stands for the provider's own base-URL variable.
        &|name| match &connection.base_url {
            Some(url) if name == base_url_variable => Some(url.clone()),
            _ if name == base_url_variable => std::env::var(name)
                .ok()
                .filter(|v| !v.is_empty())
                .or_else(|| file_base_url.map(str::to_string)),
            _ => std::env::var(name).ok(),
        },
        |settings| {
            settings.timeout = connection.request_timeout;
            settings.retry.max_attempts = connection.max_attempts;
            settings.reconcile.settle_window = connection.settle_window;
            settings.journal = journal;
        },
    )
}
