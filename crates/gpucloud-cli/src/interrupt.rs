//! Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed): the run stops waiting, says what
//! it leaves behind — each cluster it made that still exists and bills, with the command that
//! stops it, and each create whose answer it had not yet read — and exits 130, 143 or 129, as a
//! shell reports a process ended by that signal. A second signal while that is said exits at once.
//!
//! Nothing needs undoing in the ledger: a create records its intent before it sends, and the
//! cluster's id as soon as it is answered; an interrupted create is the claim its next run (or
//! any run, once the claim runs out) settles without a second cluster.

use std::sync::{Arc, Mutex, PoisonError};

use gpucloud::ProviderKind;
use serde::Serialize;

use crate::sanitize::cell;

/// The signal that ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Signal {
    /// Ctrl-C.
    #[serde(rename = "SIGINT")]
    Interrupt,
    /// `kill`, a CI runner cancelling a job, systemd stopping a unit.
    #[serde(rename = "SIGTERM")]
    Terminate,
    /// The terminal closed (a lost SSH session, a closed window): the same as SIGTERM, so
    /// what bills is said before the run ends.
    #[serde(rename = "SIGHUP")]
    Hangup,
}

impl Signal {
    /// 128 plus the signal's number, as shells report it.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Hangup => 129,
            Self::Interrupt => 130,
            Self::Terminate => 143,
        }
    }

    /// `SIGINT`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hangup => "SIGHUP",
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }
}

/// The next SIGINT, SIGTERM or SIGHUP (on Unix; Ctrl-C elsewhere). Pending forever if no
/// handler can be installed: the run then ends as the signal's default would end it.
pub async fn next() -> Signal {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hangup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return ctrl_c().await;
        };
        tokio::select! {
            signal = ctrl_c() => signal,
            _ = term.recv() => Signal::Terminate,
            _ = hangup.recv() => Signal::Hangup,
        }
    }
    #[cfg(not(unix))]
    ctrl_c().await
}

async fn ctrl_c() -> Signal {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    Signal::Interrupt
}

/// What a run has at stake: the clusters it is creating or has made and not yet seen gone,
/// so that an interrupted run can say what it leaves billing. Shared by the run's commands
/// through the [`crate::context::Context`].
#[derive(Debug, Clone, Default)]
pub struct AtStake(Arc<Mutex<Vec<Stake>>>);

/// One cluster at stake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stake {
    /// The cluster's name.
    pub name: String,
    /// The provider, once one made it (a placement decides it as it goes).
    pub provider: Option<ProviderKind>,
    /// The cluster's id, once the create's answer is read.
    pub cluster_id: Option<String>,
}

impl AtStake {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<Stake>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// A create of `name` is about to be sent.
    pub fn creating(&self, name: &str) {
        self.with(|stakes| {
            stakes.push(Stake {
                name: name.to_string(),
                provider: None,
                cluster_id: None,
            });
        });
    }

    /// The create of `name` got its answer: `provider`'s cluster `id` exists.
    pub fn created(&self, name: &str, provider: ProviderKind, id: &str) {
        self.with(|stakes| {
            if let Some(stake) = stakes
                .iter_mut()
                .rev()
                .find(|s| s.name == name && s.cluster_id.is_none())
            {
                stake.provider = Some(provider);
                stake.cluster_id = Some(id.to_string());
            }
        });
    }

    /// Nothing of `name` is at stake any more: its create made nothing, or its cluster was
    /// deleted (or released) and seen gone.
    pub fn settled(&self, name: &str) {
        self.with(|stakes| stakes.retain(|s| s.name != name));
    }

    /// What is at stake now.
    pub fn snapshot(&self) -> Vec<Stake> {
        self.with(|stakes| stakes.clone())
    }
}

/// `--json` output of an interrupted run.
#[derive(Serialize)]
struct Interrupted<'a> {
    interrupted: Signal,
    /// Clusters that exist and may bill (`cluster_id` set), and creates whose answer was not
    /// read (`cluster_id` absent: a cluster may exist).
    at_stake: &'a [Stake],
}

/// Says what an interrupted run leaves behind: on stderr for people (each cluster that bills
/// and the command that stops it), and on stdout as JSON with `--json`. `ledger`: whether
/// the run recorded its creates (not with `--no-ledger`).
pub fn report(signal: Signal, stakes: &[Stake], json: bool, ledger: bool) {
    tell!(
        "{}: interrupted; stopped waiting. {}",
        signal.name(),
        if stakes.is_empty() {
            "No cluster of this run is left behind."
        } else {
            "Left behind:"
        }
    );
    for stake in stakes {
        let name = cell(&stake.name);
        match (&stake.provider, &stake.cluster_id) {
            (Some(provider), Some(id)) => tell!(
                "  {provider} cluster {} ({name}) exists and is billing. {}",
                cell(id),
                crate::shell::how_to_stop(*provider, id)
            ),
            _ if ledger => tell!(
                "  the create of {name} had not been answered: a cluster may exist and bill. \
                 The ledger keeps the create: `gpucloud ledger` lists it, and the same create \
                 run again settles it without making a second cluster."
            ),
            _ => tell!(
                "  the create of {name} had not been answered: a cluster may exist and bill, \
                 and with --no-ledger nothing recorded it. Look for {name} in the provider's \
                 list (`gpucloud clusters list`) or console."
            ),
        }
    }
    if json {
        // A script reading stdout learns the same; an encoding failure is already on stderr.
        let _ = crate::terminal::document(&Interrupted {
            interrupted: signal,
            at_stake: stakes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stake_follows_its_create_from_sent_to_made_to_gone() {
        let stakes = AtStake::default();
        stakes.creating("a");
        stakes.creating("b");
        assert_eq!(stakes.snapshot()[0].cluster_id, None);
        stakes.created("a", ProviderKind::Together, "c-1");
        let now = stakes.snapshot();
        assert_eq!(
            now[0],
            Stake {
                name: "a".into(),
                provider: Some(ProviderKind::Together),
                cluster_id: Some("c-1".into())
            }
        );
        assert_eq!(now[1].cluster_id, None, "only a's create was answered");
        stakes.settled("a");
        assert_eq!(stakes.snapshot().len(), 1);
        assert_eq!(stakes.snapshot()[0].name, "b");
    }

    #[test]
    fn exit_codes_are_the_shells() {
        assert_eq!(Signal::Interrupt.exit_code(), 130);
        assert_eq!(Signal::Terminate.exit_code(), 143);
    }
}
