//! The command line's shape: commands, flags and help (clap derive). The flags that describe a
//! create request are in `request_flags`, those of the commands after a create in
//! `lifecycle_args`, those of `schema` and `completions` in `tooling_args`.

mod bounds;
mod lifecycle_args;
mod request_flags;
mod tooling_args;

#[cfg(feature = "sim")]
use std::net::IpAddr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use gpucloud::ProviderKind;

pub use lifecycle_args::{
    CatalogArgs, DeleteArgs, KubeconfigArgs, LedgerArgs, ResizeArgs, SshArgs, SweepArgs,
};
pub use request_flags::{RequestArgs, SpecFlags};
pub use tooling_args::{CompletionsArgs, SchemaArgs, SchemaKind};

/// The help's closing text. A macro of literals, so that each build says at compile time what
/// exit code 1 covers and whether a simulator is built in.
macro_rules! after_help {
    ($other:literal, $closing:literal) => {
        concat!(
            "\
Credentials come from the environment; their values are never printed:
  together  TOGETHER_API_KEY                        (endpoint: TOGETHER_BASE_URL)
  runcrate  RUNCRATE_API_KEY                        (endpoint: RUNCRATE_BASE_URL)
  e2e       E2E_API_KEY, E2E_AUTH_TOKEN,            (endpoint: E2E_BASE_URL)
            E2E_PROJECT_ID, E2E_LOCATION (Delhi or Chennai)

Exit codes:
  0  success
  1  anything else (",
            $other,
            ")
  2  usage error (unknown command, flag or value)
  3  invalid request, request file or configuration: nothing was sent
  4  the provider refused or cannot do it (authentication, not found, conflict,
     funds or quota, capacity, rate limit, unsupported operation, other API error),
     or its answer was broken (cut off, reset, malformed, over the 32 MiB cap)
  5  timed out, or the cluster failed while waiting
  130, 143  interrupted by SIGINT (Ctrl-C) or SIGTERM: what is left billing, and
     the command that stops it, is said on stderr (a second Ctrl-C exits at once)",
            $closing
        )
    };
}

#[cfg(feature = "sim")]
const AFTER_HELP: &str = after_help!(
    "network unreachable, I/O, the simulator could not start",
    "\n\nNo account? `gpucloud demo` runs everything against a built-in simulator."
);
#[cfg(not(feature = "sim"))]
const AFTER_HELP: &str = after_help!("network unreachable, I/O", "");

/// Provision and watch GPU clusters on Together AI, Runcrate and E2E Networks.
#[derive(Debug, Parser)]
#[command(name = "gpucloud", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// Print one JSON document on stdout instead of tables; a failure is one too (its kind,
    /// exit code and, for a create, what was tried and what was left behind).
    #[arg(long, global = true)]
    pub json: bool,

    /// Log more on stderr: -v info, -vv debug, -vvv trace (default: warnings). RUST_LOG, when
    /// set, replaces this filter.
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Do not record creates and deletes in the local ledger (`gpucloud ledger`; its file:
    /// GPUCLOUD_LEDGER).
    #[arg(long, global = true)]
    pub no_ledger: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create, inspect, list, wait for and delete clusters.
    #[command(
        subcommand,
        after_help = "Examples:\n  gpucloud clusters create -p any --gpu-model H100 --gpus 16 --name t --ttl 8h\n  gpucloud clusters get -p together CLUSTER_ID\n  gpucloud clusters sweep --expired --delete"
    )]
    Clusters(ClustersCommand),
    /// Show the exact create request (method, URL, headers, body) without sending it.
    #[command(
        after_help = "Examples:\n  gpucloud plan -p together --gpu-model H100 --gpus 16 --name train\n  gpucloud plan -p any --gpu-model H100 --gpus 16 --name t --max-price-per-hour 60\n  gpucloud --json plan -p e2e -f request.toml"
    )]
    Plan(Box<PlanArgs>),
    /// Run the local simulator of the three providers' APIs in the foreground.
    #[cfg(feature = "sim")]
    #[command(
        after_help = "Examples:\n  gpucloud sim\n  gpucloud sim --port 8480 --time-scale 600"
    )]
    Sim(SimArgs),
    /// Start an embedded simulator and run create → wait → get → delete on every provider.
    #[cfg(feature = "sim")]
    #[command(after_help = "Examples:\n  gpucloud demo\n  gpucloud --json demo")]
    Demo(DemoArgs),
    /// Every cluster gpucloud created (from the local ledger): last known state, age, cost so
    /// far where a price is known. Reads the ledger only; sends nothing.
    #[command(after_help = "Examples:\n  gpucloud ledger\n  gpucloud --json ledger --all")]
    Ledger(LedgerArgs),
    /// What the providers offer: regions, GPU models, node limits, prices and the catalog ids
    /// a create needs.
    #[command(
        after_help = "Examples:\n  gpucloud catalog -p all --gpu-model H100\n  gpucloud catalog -p together --gpus 16 --region us-central-8"
    )]
    Catalog(CatalogArgs),
    /// Print the JSON Schema of request files, for editors and checks.
    #[command(after_help = "Examples:\n  gpucloud schema request > request.schema.json")]
    Schema(SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    #[command(
        after_help = "Examples:\n  gpucloud completions bash > ~/.bash_completion.d/gpucloud\n  gpucloud completions zsh > ~/.zfunc/_gpucloud"
    )]
    Completions(CompletionsArgs),
}

#[derive(Debug, Subcommand)]
pub enum ClustersCommand {
    /// Create a cluster from flags or from a request file.
    #[command(
        after_help = "Examples:\n  gpucloud clusters create -p together --gpu-model H100 --gpus 16 --name train --wait\n  gpucloud clusters create -p any --gpu-model H100 --gpus 16 --name train --ttl 8h --yes\n  gpucloud clusters create -p e2e -f request.toml --name train-2"
    )]
    Create(Box<CreateArgs>),
    /// Show one cluster and its nodes.
    #[command(
        after_help = "Examples:\n  gpucloud clusters get -p together CLUSTER_ID\n  gpucloud --json clusters get -p e2e 101"
    )]
    Get(IdArgs),
    /// List the clusters of every configured provider (-p narrows to one); Runcrate documents
    /// no list, and `gpucloud ledger` shows what gpucloud made there.
    #[command(
        after_help = "Examples:\n  gpucloud clusters list\n  gpucloud clusters list -p together\n  gpucloud --json clusters list -p e2e"
    )]
    List(ClusterTargetArgs),
    /// Delete a cluster (not documented by Runcrate); --wait verifies it is gone.
    #[command(
        after_help = "Examples:\n  gpucloud clusters delete -p together --wait CLUSTER_ID\n  gpucloud clusters delete -p e2e --wait -- 101"
    )]
    Delete(DeleteArgs),
    /// Wait until a cluster is ready, showing its progress.
    #[command(
        after_help = "Examples:\n  gpucloud clusters wait -p together CLUSTER_ID\n  gpucloud clusters wait -p e2e 101 --timeout 30m --interval 10s"
    )]
    Wait(WaitCommandArgs),
    /// Change a cluster's size (Together: GPUs; E2E: nodes; not documented by Runcrate).
    #[command(
        after_help = "Examples:\n  gpucloud clusters resize -p together CLUSTER_ID --gpus 32 --wait\n  gpucloud clusters resize -p e2e 101 --nodes 4 --wait"
    )]
    Resize(ResizeArgs),
    /// Write (or print) a cluster's kubeconfig (Together).
    #[command(
        after_help = "Examples:\n  gpucloud clusters kubeconfig -p together CLUSTER_ID -o ~/.kube/train.yaml"
    )]
    Kubeconfig(KubeconfigArgs),
    /// Print (or run) the SSH command of a cluster's node (a GPU worker by default).
    #[command(
        after_help = "Examples:\n  gpucloud clusters ssh -p runcrate CLUSTER_ID\n  gpucloud clusters ssh -p together CLUSTER_ID --exec\n  gpucloud clusters ssh -p together CLUSTER_ID --node 1 -- nvidia-smi -L"
    )]
    Ssh(SshArgs),
    /// Clusters gpucloud created that are still alive after a while; --delete deletes them.
    #[command(
        after_help = "Examples:\n  gpucloud clusters sweep --older-than 4h\n  gpucloud clusters sweep --expired --delete --yes"
    )]
    Sweep(SweepArgs),
}

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
    /// Creates on Together and E2E: after an answer that may hide a created cluster (timeout,
    /// dropped connection, 5xx), look the name up for this long before sending again (0s to
    /// 1h; 0s: one look-up).
    #[arg(long, value_name = "DURATION", default_value = "90s", value_parser = bounds::settle_window)]
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

#[derive(Debug, Args)]
pub struct WaitCommandArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the ledger and,
    /// without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    #[command(flatten)]
    pub wait: WaitArgs,
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
        requires = "max_price_per_hour"
    )]
    pub currency: String,
    /// Try the provider with the cheapest known offering first, not the order given.
    #[arg(long)]
    pub cheapest_first: bool,
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
            connection: self.connection.clone(),
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

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub target: PlacementTargetArgs,
    /// After creating, wait until the cluster is ready. A cluster that fails meanwhile is
    /// deleted (and the delete verified); one not ready in time is kept.
    #[arg(long)]
    pub wait: bool,
    /// With --wait: keep a cluster that fails instead of deleting it.
    #[arg(long, requires = "wait")]
    pub keep_on_failure: bool,
    /// With --wait: delete a cluster that is not ready when --timeout passes.
    #[arg(long, requires = "wait")]
    pub delete_on_timeout: bool,
    /// Do not ask before creating. On a terminal (stdin and stderr both), create first shows
    /// where the cluster would go and what it costs per hour and for its --ttl, and asks;
    /// without a terminal it never asks.
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub request: RequestArgs,
    #[command(flatten)]
    pub wait_options: WaitArgs,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub target: PlacementTargetArgs,
    #[command(flatten)]
    pub request: RequestArgs,
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

#[cfg(feature = "sim")]
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8480)]
    pub port: u16,
    /// Simulated seconds per real second (600: a 10-minute provisioning takes 1 s).
    #[arg(long, value_name = "X", default_value_t = 1.0, value_parser = parse_time_scale)]
    pub time_scale: f64,
    /// Seed of the simulator's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

#[cfg(feature = "sim")]
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Simulated seconds per real second.
    #[arg(long, value_name = "X", default_value_t = 600.0, value_parser = parse_time_scale)]
    pub time_scale: f64,
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

#[cfg(feature = "sim")]
fn parse_time_scale(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("must be a positive number".into()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_help_names_exactly_the_variables_each_profile_reads() {
        // The help is a compile-time literal; each provider's profile is where its variables
        // are defined, so the two are held together here.
        let help = AFTER_HELP;
        let credentials = help
            .split("Exit codes:")
            .next()
            .unwrap_or_else(|| panic!("no credentials section"));
        let mut named = 0;
        for provider in gpucloud::ProviderKind::ALL {
            let profile = provider.profile();
            let line = credentials
                .lines()
                .position(|l| l.trim_start().starts_with(provider.as_str()))
                .unwrap_or_else(|| panic!("{provider} has no line in the help"));
            // A provider's entry is its line and the indented lines under it.
            let entry: String = credentials
                .lines()
                .skip(line)
                .enumerate()
                .take_while(|(i, l)| *i == 0 || l.starts_with("            "))
                .map(|(_, l)| l)
                .collect::<Vec<_>>()
                .join(" ");
            for variable in profile
                .credential_variables
                .iter()
                .chain(profile.setting_variables)
                .chain([&profile.base_url_variable])
            {
                assert!(
                    entry.contains(variable),
                    "{provider}: {variable} not in {entry:?}"
                );
                named += 1;
            }
        }
        let in_help = credentials
            .split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .filter(|word| word.len() > 3 && word.contains('_'))
            .count();
        assert_eq!(in_help, named, "the help names a variable no profile reads");
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn base_urls_are_checked_by_the_parser() {
        assert_eq!(
            parse_base_url("http://127.0.0.1:9/v1/").as_deref(),
            Ok("http://127.0.0.1:9/v1")
        );
        assert!(parse_base_url("ftp://x").is_err());
        assert!(parse_base_url("https://x/?apikey=1").is_err());
    }

    #[test]
    fn retry_flags_default_to_the_facade_defaults() {
        let cli = Cli::try_parse_from(["gpucloud", "clusters", "list", "-p", "together"])
            .unwrap_or_else(|e| panic!("{e}"));
        let Command::Clusters(ClustersCommand::List(target)) = cli.command else {
            panic!("not a list: {cli:?}");
        };
        let defaults = ConnectionArgs::defaults(target.connection.request_timeout);
        assert_eq!(target.connection.settle_window, defaults.settle_window);
        assert_eq!(target.connection.max_attempts, defaults.max_attempts);
    }

    #[cfg(feature = "sim")]
    #[test]
    fn time_scales_are_checked_by_the_parser() {
        assert_eq!(parse_time_scale("600"), Ok(600.0));
        assert!(parse_time_scale("0").is_err());
        assert!(parse_time_scale("inf").is_err());
    }
}
