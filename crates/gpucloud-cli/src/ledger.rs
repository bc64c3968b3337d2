//! The local ledger, as the commands use it: opened once per run (unless `--no-ledger`),
//! required by the commands that start or sweep clusters and best effort elsewhere, and the
//! creates an earlier run left unsettled settled before a new create is sent.

use std::sync::{Arc, OnceLock};

use gpucloud::ClusterClient;
use gpucloud::settle::{SettleOptions, Settled, settle_pending};
use gpucloud_ledger::Ledger;

use crate::error::CliError;
use crate::sanitize::cell;

/// The ledger of this run, opened on first use.
#[derive(Debug)]
pub struct Ledgers {
    disabled: bool,
    opened: OnceLock<Result<Arc<Ledger>, Unopened>>,
}

/// Why the ledger did not open.
#[derive(Debug)]
struct Unopened {
    /// The ledger's words (the file named).
    error: String,
    /// The file is damaged or another program's: its own message says how to keep what it
    /// recorded, and no other way round it is offered lightly.
    kept_as_it_was: bool,
}

impl Ledgers {
    /// `disabled`: `--no-ledger`.
    pub fn new(disabled: bool) -> Self {
        Self {
            disabled,
            opened: OnceLock::new(),
        }
    }

    /// Whether `--no-ledger` turned the ledger off for this run.
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }

    /// Whether a command has opened (or tried to open) the ledger: for the tests that check
    /// which commands leave it alone.
    #[cfg(test)]
    pub fn was_opened(&self) -> bool {
        self.opened.get().is_some()
    }

    fn open(&self) -> &Result<Arc<Ledger>, Unopened> {
        self.opened.get_or_init(|| {
            Ledger::open_default().map(Arc::new).map_err(|e| Unopened {
                kept_as_it_was: matches!(
                    e,
                    gpucloud_ledger::LedgerError::Unreadable { .. }
                        | gpucloud_ledger::LedgerError::NotALedger { .. }
                ),
                error: e.to_string(),
            })
        })
    }

    /// The ledger for a command that starts clusters: a create is not sent without its
    /// record. `None` only with `--no-ledger`.
    pub fn required(&self, doing: &str) -> Result<Option<Arc<Ledger>>, CliError> {
        if self.disabled {
            return Ok(None);
        }
        match self.open() {
            Ok(ledger) => Ok(Some(ledger.clone())),
            Err(Unopened {
                error,
                kept_as_it_was: true,
            }) => Err(CliError::Input(format!(
                "cannot open the ledger, so nothing was sent: {error}"
            ))),
            Err(Unopened { error, .. }) => Err(CliError::Input(format!(
                "cannot open the ledger, so nothing was sent ({error}); set GPUCLOUD_LEDGER to \
                 a writable file or a reachable postgres:// database, or pass --no-ledger to \
                 {doing} without a record (no sweep will see it)"
            ))),
        }
    }

    /// The ledger for `gpucloud ledger`, which shows it: `None` only with `--no-ledger`.
    pub fn readable(&self) -> Result<Option<Arc<Ledger>>, CliError> {
        if self.disabled {
            return Ok(None);
        }
        match self.open() {
            Ok(ledger) => Ok(Some(ledger.clone())),
            Err(Unopened { error, .. }) => Err(CliError::Input(format!(
                "cannot read the ledger ({error}); GPUCLOUD_LEDGER names it (a file, or a \
                 postgres:// database)"
            ))),
        }
    }

    /// The ledger for a command that only follows clusters (get, wait, delete): used when it
    /// opens, a warning when it does not.
    pub fn best_effort(&self) -> Option<Arc<Ledger>> {
        if self.disabled {
            return None;
        }
        match self.open() {
            Ok(ledger) => Some(ledger.clone()),
            Err(Unopened { error, .. }) => {
                tracing::warn!(%error, "the ledger is not recording this run");
                None
            }
        }
    }
}

/// Settles the creates an earlier run of `client`'s provider left unsettled (it died between
/// its request and the answer) by looking them up, and says on stderr what became of each.
/// A look-up that fails is a warning: the create that follows looks its own name up anyway.
pub async fn settle_earlier(ledger: &Ledger, client: &ClusterClient) {
    // Only the intents of the scope this client lists: E2E's list is one location's.
    let options = SettleOptions {
        scope: client.list_scope(),
        ..SettleOptions::default()
    };
    match settle_pending(ledger, client, &options).await {
        Ok(settled) => say_settled(&settled),
        Err(error) => tell!("warning: could not settle earlier unsettled creates: {error}"),
    }
}

/// Says on stderr what became of each earlier unanswered create a look-up settled.
pub fn say_settled(settled: &[Settled]) {
    for outcome in settled {
        match outcome {
            Settled::Found { intent, cluster } => tell!(
                "ledger: an earlier create (#{intent}) whose answer was lost made cluster {}",
                cell(cluster)
            ),
            Settled::Gone { intent } => {
                tell!("ledger: an earlier create (#{intent}) made nothing")
            }
            Settled::StillPending { intent, reason, .. } => {
                tracing::info!(intent, reason = %cell(reason), "an earlier create stays unsettled");
            }
            Settled::AlreadySettled { .. } => {}
        }
    }
}
