//! The flag groups several commands share: how to reach a provider (`ConnectionArgs`,
//! `TargetArgs`), which cluster (`ClusterTargetArgs`, `IdArgs`), how patiently to wait
//! (`WaitArgs`), where a create may go (`PlacementTargetArgs`, `Providers`), the request of a
//! create (`request`) and the value parsers that bound what a flag may be (`bounds`). A leaf of
//! the command line: commands and the modules they use import it, and it imports none of them.

pub mod bounds;
pub mod request;

use std::time::Duration;

use clap::Args;
use gpucloud::ProviderKind;

/// How to reach a provider: another endpoint, and the bounds of each request.
#[derive(Debug, Clone, Args)]
pub struct ConnectionArgs {
    /// Send requests to this endpoint instead (a proxy, `gpucloud sim`); overrides
    /// <PROVIDER>_BASE_URL. Only with a single provider.
    // This comment is also the flag's help, which prints it as written: not an HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    pub base_url: Option<String>,
    /// Give up on one HTTP request after this long (1s to 1h; exit code 5).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
    /// How long a create looks its name up after an answer that may hide a created cluster:
    /// only `clusters create` and `plan` take the flag (`--settle-window`, in
    /// [`PlacementTargetArgs`]); every other command keeps the facade's default.
    #[arg(skip = gpucloud::ReconcilePolicy::default().settle_window)]
    pub settle_window: Duration,
    /// Attempts per request, the first included (1 to 10; 1: never retry).
    #[arg(long, value_name = "N", default_value = "4", value_parser = bounds::max_attempts)]
    pub max_attempts: u32,
}

impl ConnectionArgs {
    /// The endpoint from the environment and the facade's own policies, with `request_timeout`
    /// (for commands that reach every provider in the ledger or the catalog).
    pub fn defaults(request_timeout: Duration) -> Self {
        Self {
            base_url: None,
            request_timeout,
            settle_window: gpucloud::ReconcilePolicy::default().settle_window,
            max_attempts: gpucloud::RetryPolicy::default().max_attempts,
        }
    }
}

/// A provider, and how to reach it.
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// The provider.
    #[arg(long, short = 'p', value_enum)]
    pub provider: ProviderKind,
    #[command(flatten)]
    pub connection: ConnectionArgs,
}

/// The provider of an existing cluster: optional where the ledger (or a provider's list)
/// names the cluster unambiguously.
#[derive(Debug, Clone, Args)]
pub struct ClusterTargetArgs {
    /// The provider (optional when the cluster's id or name is known to one provider only:
    /// the ledger, then each configured provider's list, is asked). With it, a cluster the
    /// ledger does not know is taken by its id.
    #[arg(long, short = 'p', value_enum)]
    pub provider: Option<ProviderKind>,
    #[command(flatten)]
    pub connection: ConnectionArgs,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the ledger and,
    /// without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
}

/// One provider, or several tried in order (a placement), with optional price rules.
#[derive(Debug, Clone, Args)]
pub struct PlacementTargetArgs {
    /// The provider, or a comma-separated list tried in order until one has capacity
    /// (`together,runcrate`), or `any` (every provider).
    #[arg(long, short = 'p', value_name = "PROVIDER[,…]|any", value_parser = parse_providers)]
    pub provider: Providers,
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// Creates on Together and E2E: after an answer that may hide a created cluster (timeout,
    /// dropped connection, 5xx), look the name up for this long before sending again (0s to
    /// 1h; 0s: one look-up).
    #[arg(long, value_name = "DURATION", default_value = "90s", value_parser = bounds::settle_window)]
    pub settle_window: Duration,
    /// Skip offerings whose price for the whole cluster is above this, per hour (in
    /// --currency). Offerings priced in another currency are skipped too, and so are those
    /// that state no price (Together) unless --allow-unpriced.
    #[arg(long, value_name = "AMOUNT", value_parser = bounds::price)]
    pub max_price_per_hour: Option<f64>,
    /// With --max-price-per-hour, also take offerings that state no price; the ceiling is
    /// not checked for them.
    #[arg(long, requires = "max_price_per_hour")]
    pub allow_unpriced: bool,
    /// The currency of --max-price-per-hour (ISO 4217).
    #[arg(
        long,
        value_name = "CODE",
        default_value = "USD",
        requires = "max_price_per_hour",
        value_parser = bounds::currency
    )]
    pub currency: String,
    /// Try the provider with the cheapest known offering first, not the order given (prices
    /// in another currency converted by the configuration file's rates).
    #[arg(long)]
    pub cheapest_first: bool,
    /// A price book (TOML, `[[price_book]]` entries and `[rates]` as in the configuration
    /// file) that prices offerings their provider states no price for (Together); read before
    /// the configuration file's own entries. Default: $GPUCLOUD_PRICE_BOOK.
    #[arg(long, value_name = "FILE")]
    pub price_book: Option<std::path::PathBuf>,
    /// Also create on providers whose API cannot delete a cluster (Runcrate): such a cluster
    /// bills until you stop it in the provider's console, and no --wait cleanup or sweep can
    /// stop it. Without this flag those providers are skipped, saying so.
    #[arg(long)]
    pub allow_no_delete: bool,
}

/// The providers of a `--provider` list, in order, each once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Providers(pub Vec<ProviderKind>);

/// `together`, `together,runcrate`, `any` (or `all`): the providers, in order, each once.
pub fn parse_providers(raw: &str) -> Result<Providers, String> {
    if raw.trim().eq_ignore_ascii_case("any") || raw.trim().eq_ignore_ascii_case("all") {
        return Ok(Providers(ProviderKind::ALL.to_vec()));
    }
    let mut providers = Vec::new();
    let names = || {
        ProviderKind::ALL
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for word in raw.split(',') {
        let word = word.trim();
        if word.eq_ignore_ascii_case("any") || word.eq_ignore_ascii_case("all") {
            return Err(format!(
                "{word:?} stands alone (it means every provider); to choose some, name them: {}",
                names()
            ));
        }
        let provider: ProviderKind = word
            .parse()
            .map_err(|_| format!("{word:?} is not a provider ({}) or any", names()))?;
        if providers.contains(&provider) {
            return Err(format!("{provider} is listed twice"));
        }
        providers.push(provider);
    }
    Ok(Providers(providers))
}

impl PlacementTargetArgs {
    /// The flags for one of the providers.
    pub fn target(&self, provider: ProviderKind) -> TargetArgs {
        TargetArgs {
            provider,
            connection: ConnectionArgs {
                settle_window: self.settle_window,
                ..self.connection.clone()
            },
        }
    }

    /// The single provider, when only one is given and no rule of a placement applies to it
    /// (a price ceiling, an order, or a provider that cannot delete without
    /// --allow-no-delete, which the placement skips with its reason).
    pub fn single(&self) -> Option<TargetArgs> {
        match self.provider.0.as_slice() {
            [one]
                if self.max_price_per_hour.is_none()
                    && !self.cheapest_first
                    && (one.profile().deletes_clusters || self.allow_no_delete) =>
            {
                Some(self.target(*one))
            }
            _ => None,
        }
    }
}

/// How patiently to wait.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Waiting")]
pub struct WaitArgs {
    /// Give up after this long (1s to 7 days; exit code 5).
    #[arg(long, value_name = "DURATION", default_value = "2h", value_parser = bounds::max_wait)]
    pub timeout: Duration,
    /// First interval between polls (1s to 1 day); it doubles up to --max-interval.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = bounds::poll_interval)]
    pub interval: Duration,
    /// Longest interval between polls (1s to 1 day).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::poll_interval)]
    pub max_interval: Duration,
}

/// An absolute http(s) URL without query or fragment (credentials are added per request, and
/// the URL is never echoed in errors: a pasted E2E URL may carry `?apikey=`).
fn parse_base_url(raw: &str) -> Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("not an absolute URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("scheme {:?} is not http or https", url.scheme()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must not have a query or fragment".into());
    }
    Ok(raw.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_by_the_parser() {
        assert_eq!(
            parse_base_url("http://127.0.0.1:9/v1/").as_deref(),
            Ok("http://127.0.0.1:9/v1")
        );
        assert!(parse_base_url("ftp://x").is_err());
        assert!(parse_base_url("https://x/?apikey=1").is_err());
    }
}
