//! How long each phase of a wait took, so a slow or stuck phase is visible when the wait ends.
//!
//! Together records every cluster phase change with its time (`phase_transitions`); where the
//! last answer carries that history it is the timeline. Elsewhere the timeline is what the
//! waiter saw: the provider's phase (or the neutral state) at each poll, timed on the client's
//! clock, so a phase shorter than a poll interval may not appear at all.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::cluster::Cluster;

/// The most phases a timeline keeps (the latest ones): a provider's history is bounded here,
/// whatever it sends.
pub const MAX_PHASES: usize = 64;

/// Where a [`Timeline`]'s phases come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineSource {
    /// The provider's own record of phase changes (Together's `phase_transitions`).
    Provider,
    /// The phases the waiter saw at its polls.
    Observed,
}

/// One phase and how long the cluster spent in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseSpan {
    /// The provider's phase (or the neutral state where it has none).
    pub phase: String,
    /// When the provider says the phase began (provider timelines only).
    pub entered_at: Option<DateTime<Utc>>,
    /// How long the phase lasted; `None` for the phase the cluster was in when the wait ended.
    #[serde(with = "seconds")]
    pub took: Option<Duration>,
}

/// The phases of one wait, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timeline {
    /// Where the phases come from.
    pub source: TimelineSource,
    /// The phases, oldest first (at most [`MAX_PHASES`]).
    pub phases: Vec<PhaseSpan>,
    /// How long the wait itself took.
    #[serde(with = "seconds::required")]
    pub waited: Duration,
}

impl Timeline {
    /// The timeline of a wait that took `waited`, from the provider's history in `last` (the
    /// last cluster seen) where it has one, else from `observed` (each phase and when the
    /// waiter first saw it, since the wait began). For a wait that `follows_a_later_operation`
    /// (a delete, a resize) the provider's history starts at the phase the wait first saw: its
    /// own phases, not the create's that the history also holds.
    pub(crate) fn of(
        last: Option<&Cluster>,
        observed: &[(String, Duration)],
        waited: Duration,
        follows_a_later_operation: bool,
    ) -> Self {
        let first_seen = observed
            .first()
            .map(|(phase, _)| phase.as_str())
            .filter(|_| follows_a_later_operation);
        if let Some(phases) = last
            .and_then(|cluster| provider_phases(cluster, first_seen))
            .filter(|p| !p.is_empty())
        {
            return Self {
                source: TimelineSource::Provider,
                phases,
                waited,
            };
        }
        let start = observed.len().saturating_sub(MAX_PHASES);
        let kept = &observed[start..];
        let phases = kept
            .iter()
            .enumerate()
            .map(|(i, (phase, seen))| PhaseSpan {
                phase: phase.clone(),
                entered_at: None,
                took: kept.get(i + 1).map(|(_, next)| next.saturating_sub(*seen)),
            })
            .collect();
        Self {
            source: TimelineSource::Observed,
            phases,
            waited,
        }
    }

    /// The phase that took longest, if any finished.
    pub fn slowest(&self) -> Option<&PhaseSpan> {
        self.phases
            .iter()
            .filter(|p| p.took.is_some())
            .max_by_key(|p| p.took)
    }
}

/// The provider's recorded phase changes, oldest first, from the last change into
/// `first_seen` (the phase the wait began in) where the history has it: the order is the
/// times' (a provider's list may come unsorted), and a change dated before the previous one
/// counts as taking no time.
fn provider_phases(cluster: &Cluster, first_seen: Option<&str>) -> Option<Vec<PhaseSpan>> {
    let mut changes: Vec<(DateTime<Utc>, String)> = cluster.raw.phase_changes()?;
    changes.sort_by_key(|(at, _)| *at);
    if let Some(began) = first_seen.and_then(|seen| changes.iter().rposition(|(_, p)| p == seen)) {
        changes.drain(..began);
    }
    let start = changes.len().saturating_sub(MAX_PHASES);
    let kept = &changes[start..];
    Some(
        kept.iter()
            .enumerate()
            .map(|(i, (at, phase))| PhaseSpan {
                phase: phase.clone(),
                entered_at: Some(*at),
                took: kept
                    .get(i + 1)
                    .map(|(next, _)| (*next - *at).to_std().unwrap_or(Duration::ZERO)),
            })
            .collect(),
    )
}

/// Durations as seconds in JSON (`12.5`), `null` when absent.
mod seconds {
    use std::time::Duration;

    use serde::Serializer;

    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_f64(d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }

    pub mod required {
        use std::time::Duration;

        use serde::Serializer;

        pub fn serialize<S: Serializer>(value: &Duration, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(value.as_secs_f64())
        }
    }
}
