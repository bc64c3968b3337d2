//! `gpucloud clusters list`: the clusters of one provider, or of every configured provider that
//! documents a list. Its flags are the shared cluster target (`flags::ClusterTargetArgs`).

use gpucloud::ProviderKind;

use crate::context::{Context, LedgerUse};
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, TargetArgs};
use crate::output;

/// The clusters of `--provider`, or of every provider that documents a list and is
/// configured: one table (with each cluster's provider) or one JSON array. A provider that
/// could not be listed is said on stderr and makes the exit code its error's, after the rest
/// is shown; one passed over (no list, no credentials) is said too, never left out silently.
pub async fn run(ctx: &Context, args: &ClusterTargetArgs) -> Result<(), CliError> {
    let providers: Vec<ProviderKind> = match args.provider {
        Some(provider) => vec![provider],
        None => ProviderKind::ALL.to_vec(),
    };
    let mut all = Vec::new();
    let mut failed = None;
    for provider in providers {
        let target = TargetArgs {
            provider,
            connection: args.connection.clone(),
        };
        if args.provider.is_none() && !provider.profile().lists_clusters {
            tell!(
                "{provider}: passed over: it documents no list (`gpucloud ledger` shows what \
                 gpucloud made there)"
            );
            continue;
        }
        let client = match ctx.client(&target, LedgerUse::Unused) {
            Ok(client) => client,
            Err(CliError::Cloud(error)) if args.provider.is_none() => {
                tell!(
                    "{provider}: passed over: {}",
                    crate::error::one_line(&error)
                );
                continue;
            }
            Err(error) => return Err(error),
        };
        match client.list().await {
            Ok(clusters) => all.extend(clusters),
            Err(error) if args.provider.is_none() => {
                tell!("{provider}: error: {}", crate::error::one_line(&error));
                failed.get_or_insert(CliError::Cloud(error));
            }
            Err(error) => return Err(error.into()),
        }
    }
    ctx.output().result(all.as_slice(), output::clusters)?;
    failed.map_or(Ok(()), Err)
}
