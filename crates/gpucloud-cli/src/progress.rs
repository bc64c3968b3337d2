//! The display of a wait, on stderr so stdout stays a clean table or JSON document.
//!
//! On a terminal (with a `TERM` that is not `dumb`): an indicatif spinner whose line shows the state, phase, nodes and a live
//! elapsed time, with each phase change kept above it. Elsewhere (CI logs, pipes): one plain
//! line per change, `[  12s] provisioning CLUSTER_PHASE_INSTALLING_DRIVERS 1/2 nodes`. The
//! provider's words in it are escaped ([`crate::sanitize`]) and credentials scrubbed
//! ([`crate::secrets`]).

use std::time::Duration;

use gpucloud::{Cluster, Progress};
use indicatif::{ProgressBar, ProgressStyle};

use crate::output::{elapsed, node_counts};
use crate::sanitize::cell;
use crate::secrets;

/// Shows a wait's progress.
#[derive(Debug)]
pub struct ProgressDisplay {
    spinner: Option<ProgressBar>,
    prefix: String,
    time_scale: f64,
}

impl ProgressDisplay {
    /// A display for a wait; `prefix` starts each status (`together: `, or nothing). Elapsed
    /// time is shown multiplied by `time_scale`: simulated time, against a simulator running
    /// faster than real time (1.0 otherwise).
    pub fn new(prefix: impl Into<String>, time_scale: f64) -> Self {
        // indicatif draws nothing (not even `println`) on a terminal without a usable `TERM`:
        // plain lines then.
        let spinner = crate::terminal::stderr_is_terminal()
            .then(ProgressBar::new_spinner)
            .filter(|spinner| !spinner.is_hidden())
            .inspect(|spinner| {
                // Real time ticks live; scaled time is known only at each answer.
                let template = if time_scale == 1.0 {
                    "{spinner} [{elapsed:>5}] {msg}"
                } else {
                    "{spinner} {msg}"
                };
                let style = ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_spinner());
                spinner.set_style(style);
                spinner.set_message("waiting for the first answer");
                spinner.enable_steady_tick(Duration::from_millis(120));
            });
        Self {
            spinner,
            prefix: prefix.into(),
            time_scale,
        }
    }

    /// Called by the waiter on every change.
    pub fn update(&self, progress: &Progress) {
        let status =
            secrets::scrub(&format!("{}{}", self.prefix, status(&progress.cluster))).into_owned();
        let at = elapsed(progress.elapsed.mul_f64(self.time_scale));
        match &self.spinner {
            Some(spinner) => {
                spinner.println(format!("  [{at:>5}] {status}"));
                spinner.set_message(if self.time_scale == 1.0 {
                    status
                } else {
                    format!("[{at:>5}] {status}")
                });
            }
            None => tell!("[{at:>5}] {status}"),
        }
    }

    /// Whether the wait's timeline is worth printing: only in real time (against a simulator
    /// running faster, the waiter's own timings would not be the simulated ones).
    pub fn shows_timeline(&self) -> bool {
        self.time_scale == 1.0
    }

    /// Removes the spinner (the kept lines stay).
    pub fn finish(&self) {
        if let Some(spinner) = &self.spinner {
            spinner.finish_and_clear();
        }
    }
}

impl Drop for ProgressDisplay {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `provisioning CLUSTER_PHASE_INSTALLING_DRIVERS 1/2 nodes`; the provider's phase is left out
/// when the state already says it (Runcrate's `ready`, `failed`).
fn status(cluster: &Cluster) -> String {
    let (reachable, known) = node_counts(cluster);
    let mut line = cell(&cluster.state);
    if let Some(phase) = &cluster.phase
        && !cluster
            .state
            .to_string()
            .to_ascii_lowercase()
            .starts_with(&phase.to_ascii_lowercase())
    {
        line.push(' ');
        line.push_str(&cell(phase));
    }
    line.push_str(&format!(" {reachable}/{known} nodes"));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_is_short() {
        assert_eq!(elapsed(Duration::from_millis(12_900)), "12s");
        assert_eq!(elapsed(Duration::from_secs(245)), "4m05s");
        assert_eq!(elapsed(Duration::from_secs(3720)), "1h02m");
        assert_eq!(
            format!("[{:>5}]", elapsed(Duration::from_secs(12))),
            "[  12s]"
        );
    }
}
