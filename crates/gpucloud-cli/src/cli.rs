//! The command line's shape: the top-level `gpucloud` parser, its global flags, the list of
//! commands and the `clusters` subcommands, and the help's closing text. Each command's own
//! flags are defined beside its run in `commands/`, and the flag groups several commands share
//! in `flags`; this module only names them, so that no command has to import it back.

use clap::{Parser, Subcommand};

use crate::commands::catalog::CatalogArgs;
use crate::commands::completions::CompletionsArgs;
use crate::commands::create::CreateArgs;
use crate::commands::delete::DeleteArgs;
#[cfg(feature = "sim")]
use crate::commands::demo::DemoArgs;
use crate::commands::kubeconfig::KubeconfigArgs;
use crate::commands::ledger::LedgerArgs;
use crate::commands::plan::PlanArgs;
use crate::commands::resize::ResizeArgs;
use crate::commands::schema::SchemaArgs;
#[cfg(feature = "sim")]
use crate::commands::sim::SimArgs;
use crate::commands::ssh::SshArgs;
use crate::commands::sweep::SweepArgs;
use crate::commands::wait::WaitCommandArgs;
use crate::flags::{ClusterTargetArgs, IdArgs};

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
  6  declined at a confirmation (no, or no answer): nothing was sent
  129, 130, 143  interrupted by SIGHUP (the terminal closed), SIGINT (Ctrl-C) or
     SIGTERM: what is left billing, and the command that stops it, is said on
     stderr (a second Ctrl-C exits at once)",
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

    /// Log lines on stderr: -v warnings and info, -vv debug, -vvv trace (default: none; what
    /// a run must tell you it says itself). RUST_LOG, when set, replaces this filter.
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Do not record creates and deletes in the local ledger (`gpucloud ledger`; its file:
    /// GPUCLOUD_LEDGER).
    #[arg(long, global = true)]
    pub no_ledger: bool,

    /// The configuration file: per-provider defaults (SSH keys, E2E's security group, base
    /// URL), a price book and currency rates (default: GPUCLOUD_CONFIG, else
    /// $XDG_CONFIG_HOME/gpucloud/config.toml). Credentials are never read from it.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,

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
    /// Every provider's offers for one request, the total per hour in one currency with its
    /// price source, cheapest first.
    #[command(
        after_help = "Examples:\n  gpucloud offers --gpu-model H100 --gpus 16\n  gpucloud offers --gpu-model H100 --gpus 16 --max-price-per-hour 60 --json"
    )]
    Offers(crate::commands::offers::OffersArgs),
    /// The configuration file's settings in effect, and where each came from.
    #[command(after_help = "Examples:\n  gpucloud config show\n  gpucloud --json config show")]
    Config(crate::commands::config::ConfigArgs),
    /// Print the JSON Schema of request files, or of a command's --json output.
    #[command(
        after_help = "Examples:\n  gpucloud schema request > request.schema.json\n  gpucloud schema output clusters create"
    )]
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
        visible_alias = "ls",
        after_help = "Examples:\n  gpucloud clusters list\n  gpucloud clusters list -p together\n  gpucloud --json clusters list -p e2e"
    )]
    List(ClusterTargetArgs),
    /// Delete a cluster (not documented by Runcrate); --wait verifies it is gone.
    #[command(
        visible_alias = "rm",
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::flags::ConnectionArgs;

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
}
