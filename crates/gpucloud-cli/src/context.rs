//! What every command is handed: the run's output mode, its ledger, and the one way to build a
//! provider's client.
//!
//! Made once per run from the parsed command line, so that a command cannot disagree with
//! another about `--json` or `--no-ledger`, and so that every client is built the same way:
//! its credentials registered with the scrubber before it exists, the connection flags
//! applied, and the ledger attached as its journal exactly when the command's [`LedgerUse`]
//! says so.

use std::sync::Arc;

use gpucloud::ClusterClient;
use gpucloud_ledger::Ledger;

use crate::connect;
use crate::error::CliError;
use crate::flags::TargetArgs;
use crate::interrupt::AtStake;
use crate::ledger::Ledgers;
use crate::output::Output;

/// How a command depends on the ledger. Each command names its own, because the cost of a
/// missing record differs: a create without one can leave a billing cluster nobody can find,
/// a `get` without one loses only a state update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerUse {
    /// A command that starts or sweeps clusters (its verb, for the error): nothing is sent
    /// when the ledger cannot be opened, unless `--no-ledger`.
    Required(&'static str),
    /// A command that only follows clusters (get, wait, delete, resize, kubeconfig, ssh, plan):
    /// what it sees is recorded when the ledger opens, and a warning says so when it does not.
    BestEffort,
    /// A command whose client records nothing (list, catalog).
    Unused,
}

/// The state of one run, shared by its commands.
#[derive(Debug)]
pub struct Context {
    output: Output,
    ledgers: Ledgers,
    at_stake: AtStake,
    /// `--config`, if given.
    config_path: Option<std::path::PathBuf>,
    /// The configuration file, read on first use.
    config: std::sync::OnceLock<Result<Option<gpucloud::config_file::ConfigFile>, String>>,
}

impl Context {
    /// The context the global flags `--json` and `--no-ledger` describe. Opens nothing: the
    /// ledger is opened by the first command that asks for it. Takes the flags, not the parsed
    /// command line, which names every command's arguments and so sits above this module.
    pub fn new(json: bool, no_ledger: bool) -> Self {
        Self {
            output: Output::new(json),
            ledgers: Ledgers::new(no_ledger),
            at_stake: AtStake::default(),
            config_path: None,
            config: std::sync::OnceLock::new(),
        }
    }

    /// This context reading the configuration file at `path` (`--config`) instead of the
    /// default one.
    #[must_use]
    pub fn with_config_path(mut self, path: Option<std::path::PathBuf>) -> Self {
        self.config_path = path;
        self
    }

    /// The configuration file: `--config`'s (which must exist), else the default one if it
    /// exists; read once. A file that cannot be used is the command's error (exit 3), naming
    /// the file, line and field.
    pub fn config(&self) -> Result<Option<&gpucloud::config_file::ConfigFile>, CliError> {
        let loaded = self.config.get_or_init(|| {
            match &self.config_path {
                Some(path) => gpucloud::config_file::ConfigFile::load(path).map(Some),
                None => gpucloud::config_file::ConfigFile::load_default(),
            }
            .map_err(|e| e.to_string())
        });
        match loaded {
            Ok(config) => Ok(config.as_ref()),
            Err(error) => Err(CliError::Input(format!("configuration file: {error}"))),
        }
    }

    /// How results are printed.
    pub fn output(&self) -> Output {
        self.output
    }

    /// Whether this run records into a ledger (no `--no-ledger`).
    pub fn keeps_a_ledger(&self) -> bool {
        !self.ledgers.is_disabled()
    }

    /// The clusters this run is creating or has made, for what an interrupt says.
    pub fn at_stake(&self) -> &AtStake {
        &self.at_stake
    }

    /// The ledger as `usage` wants it: `None` with `--no-ledger`, with [`LedgerUse::Unused`],
    /// or (a warning logged) when a best-effort ledger does not open.
    pub fn ledger(&self, usage: LedgerUse) -> Result<Option<Arc<Ledger>>, CliError> {
        match usage {
            LedgerUse::Required(doing) => self.ledgers.required(doing),
            LedgerUse::BestEffort => Ok(self.ledgers.best_effort()),
            LedgerUse::Unused => Ok(None),
        }
    }

    /// The ledger for `gpucloud ledger`, which only reads it: `None` only with `--no-ledger`.
    pub fn readable_ledger(&self) -> Result<Option<Arc<Ledger>>, CliError> {
        self.ledgers.readable()
    }

    /// The client for the existing cluster `id` on `target`'s provider, recording into the
    /// ledger where it opens. Where the ledger says the cluster was created through another
    /// origin (endpoint, account, or for E2E another location), the client is moved to the
    /// cluster's own scope; if that is not where it was created either, the run stops: the
    /// same id here would be another cluster (or a 404 that means nothing).
    pub fn cluster_client(&self, target: &TargetArgs, id: &str) -> Result<ClusterClient, CliError> {
        let ledger = self.ledger(LedgerUse::BestEffort)?;
        let client = self.connect(target, ledger.as_ref())?;
        let Some(ledger) = &ledger else {
            return Ok(client);
        };
        let entries: Vec<_> = ledger
            .clusters()
            .unwrap_or_default()
            .into_iter()
            .filter(|e| {
                e.provider == target.provider
                    && e.cluster_id.as_ref().is_some_and(|c| c.as_str() == id)
            })
            .collect();
        let Some(first) = entries.first() else {
            return Ok(client);
        };
        if let Some(reaching) = entries
            .iter()
            .find_map(|e| client.reaching(e.origin.as_deref(), e.scope.as_deref()))
        {
            return Ok(reaching);
        }
        Err(CliError::Usage(format!(
            "cluster {} was created through {}, and this run reaches {}: run with the settings \
             it was created with (the same id here would be another cluster)",
            crate::sanitize::cell(id),
            crate::sanitize::cell(first.origin.as_deref().unwrap_or_default()),
            crate::sanitize::cell(client.origin())
        )))
    }

    /// The client `target` names, recording into the ledger as `usage` says. The ledger is
    /// opened (and a required one refused) before the credentials are read, so a run that
    /// cannot record sends nothing.
    pub fn client(&self, target: &TargetArgs, usage: LedgerUse) -> Result<ClusterClient, CliError> {
        let ledger = self.ledger(usage)?;
        Ok(self.connect(target, ledger.as_ref())?)
    }

    /// The client `target` names, recording into `ledger` (one the command already holds, to
    /// settle earlier creates with it or to build several clients on it). A missing
    /// credential is the facade's error, for commands that skip that provider and go on.
    pub fn connect(
        &self,
        target: &TargetArgs,
        ledger: Option<&Arc<Ledger>>,
    ) -> Result<ClusterClient, gpucloud::Error> {
        // The configuration file's base URL, where it sets one; a file that cannot be used
        // stops the client, naming the file, line and field.
        let file = match self.config() {
            Ok(config) => config,
            Err(error) => {
                return Err(gpucloud::Error::Configuration {
                    setting: "the configuration file".into(),
                    problem: error.to_string(),
                });
            }
        };
        let base_url = file
            .and_then(|c| c.defaults(target.provider))
            .and_then(|d| d.base_url.as_deref());
        connect::client(target, ledger.map(|l| l.clone() as _), base_url)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::cli::Cli;

    fn context(args: &[&str]) -> Context {
        let cli = Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{e}"));
        Context::new(cli.json, cli.no_ledger)
    }

    #[test]
    fn the_output_mode_is_the_json_flag() {
        assert_eq!(context(&["gpucloud", "ledger"]).output(), Output::Human);
        assert_eq!(
            context(&["gpucloud", "--json", "ledger"]).output(),
            Output::Json
        );
    }

    /// `--no-ledger` wins over every use, a required one included: the run sends without a
    /// record, as the user asked, and nothing is opened.
    #[test]
    fn no_ledger_gives_no_ledger_to_any_command() {
        let ctx = context(&["gpucloud", "--no-ledger", "ledger"]);
        for usage in [
            LedgerUse::Required("create"),
            LedgerUse::BestEffort,
            LedgerUse::Unused,
        ] {
            assert!(matches!(ctx.ledger(usage), Ok(None)), "{usage:?}");
        }
        assert!(matches!(ctx.readable_ledger(), Ok(None)));
        assert!(!ctx.ledgers.was_opened());
    }

    /// A command that records nothing does not open the ledger, even when it is on.
    #[test]
    fn an_unused_ledger_is_not_opened() {
        let ctx = context(&["gpucloud", "ledger"]);
        assert!(matches!(ctx.ledger(LedgerUse::Unused), Ok(None)));
        assert!(!ctx.ledgers.was_opened());
    }
}
