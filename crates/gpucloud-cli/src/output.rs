//! What commands print: a cluster, a list, a timeline for people, and a result as JSON
//! (`--json`) for programs. Every cell that came from a provider goes through
//! [`crate::sanitize`] first; the bytes leave through [`crate::terminal`], the one module that
//! touches stdout and stderr.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use comfy_table::{Table, presets};
use gpucloud::{Cluster, CreateOutcome, Created, Timeline, TimelineSource};
use serde::Serialize;

use crate::error::CliError;
use crate::sanitize::{self, cell};
use crate::table::{render, table};
use crate::terminal::{self, stderr_line};

/// How a run prints its result (`--json` or not), chosen once for the whole run: a command asks
/// it instead of taking a flag, so that no command can print a table under `--json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Tables and sentences for a person.
    Human,
    /// One JSON document on stdout for a program (`--json`); sentences stay off stdout.
    Json,
}

impl Output {
    /// `json`: `--json`.
    pub fn new(json: bool) -> Self {
        if json { Self::Json } else { Self::Human }
    }

    /// Whether the result is one JSON document.
    pub fn is_json(self) -> bool {
        self == Self::Json
    }

    /// Whether the result is for a person (sentences, tables).
    pub fn is_human(self) -> bool {
        self == Self::Human
    }

    /// Prints a command's result: `value` as JSON, or what `human` prints from it.
    pub fn result<T: Serialize + ?Sized>(
        self,
        value: &T,
        human: impl FnOnce(&T),
    ) -> Result<(), CliError> {
        match self {
            Self::Json => json(&value),
            Self::Human => {
                human(value);
                Ok(())
            }
        }
    }
}

/// Prints `value` as pretty JSON on stdout ([`terminal::document`]); a value that cannot be
/// encoded is the command's error.
pub fn json(value: &impl Serialize) -> Result<(), CliError> {
    terminal::document(value)
        .map_err(|e| CliError::Other(format!("cannot encode JSON output: {e}")))
}

/// `2026-03-01T12:00:00Z`, or `-`.
pub fn time(at: Option<DateTime<Utc>>) -> String {
    at.map_or_else(
        || "-".into(),
        |t| t.to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

/// The value as a terminal-safe cell, or `-`.
fn or_dash<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "-".into(), cell)
}

/// Nodes with an address to connect to, and nodes known.
pub fn node_counts(cluster: &Cluster) -> (usize, usize) {
    let reachable = cluster.nodes_reachable();
    (reachable, cluster.nodes.len().max(reachable))
}

/// One cluster: its fields, then its nodes.
pub fn cluster(cluster: &Cluster) {
    let (reachable, known) = node_counts(cluster);
    let mut fields = Table::new();
    fields.load_preset(presets::NOTHING);
    let rows: [(&str, String); 10] = [
        ("ID", cell(&cluster.id)),
        ("Name", cell(&cluster.name)),
        ("Provider", cluster.provider.to_string()),
        ("State", state_of(cluster)),
        ("Phase", or_dash(cluster.phase.as_ref())),
        ("GPUs", or_dash(cluster.gpu_count)),
        ("Nodes", format!("{reachable}/{known} reachable")),
        ("Created", time(cluster.created_at)),
        (
            "Ready at",
            match cluster.ready_at {
                None if cluster.state == gpucloud::ClusterState::Ready => {
                    "not stated by the provider".to_string()
                }
                at => time(at),
            },
        ),
        (
            "Price",
            or_dash(
                cluster
                    .price
                    .as_ref()
                    .map(|p| format!("{:.2} {}/h", p.per_hour, sanitize::text(&p.currency))),
            ),
        ),
    ];
    for (name, value) in rows {
        fields.add_row([format!("{name}:"), value]);
    }
    say!("{}", render(&mut fields));
    if cluster.nodes.is_empty() {
        return;
    }
    let mut nodes = table(&[
        "node",
        "hostname",
        "private ip",
        "public ip",
        "gpus",
        "status",
        "ssh",
    ]);
    for node in &cluster.nodes {
        nodes.add_row([
            cell(&node.id),
            or_dash(node.hostname.as_ref()),
            or_dash(node.private_ip.as_ref()),
            or_dash(node.public_ip.as_ref()),
            or_dash(node.gpus),
            or_dash(node.status.as_ref()),
            or_dash(node.ssh_command.as_ref()),
        ]);
    }
    say!("\n{}", render(&mut nodes));
}

/// The cluster's state in words, without repeating its phase: a failure whose reason is the
/// phase shown beside it is just `failed`.
fn state_of(cluster: &Cluster) -> String {
    match &cluster.state {
        gpucloud::ClusterState::Failed(why) if cluster.phase.as_deref() == Some(why.as_str()) => {
            "failed".into()
        }
        state => cell(state),
    }
}

/// Clusters, one per line.
/// One row of `clusters list`'s table.
pub struct ListedRow([String; 9]);

impl ListedRow {
    /// A cluster as its provider answered just now.
    pub fn of_cluster(c: &Cluster) -> Self {
        let (reachable, known) = node_counts(c);
        Self([
            c.provider.to_string(),
            cell(&c.id),
            cell(&c.name),
            state_of(c),
            or_dash(c.phase.as_ref()),
            format!("{reachable}/{known}"),
            or_dash(c.gpu_count),
            time(c.created_at),
            "provider".into(),
        ])
    }

    /// A cluster as the ledger last recorded it (its provider was not read).
    pub fn of_record(
        provider: gpucloud::ProviderKind,
        id: &str,
        name: &str,
        state: &str,
        seen: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Self {
        Self([
            provider.to_string(),
            cell(id),
            cell(name),
            format!("{} (last seen)", cell(state)),
            "-".into(),
            "-".into(),
            "-".into(),
            seen.map_or_else(|| "-".into(), |at| time(Some(at))),
            "ledger".into(),
        ])
    }
}

/// `clusters list`'s table: every cluster, and where what is shown of it comes from.
/// `complete`: every provider that may have clusters was read (else an empty list is not "no
/// clusters").
pub fn listed(rows: &[ListedRow], complete: bool) {
    if rows.is_empty() {
        if complete {
            say!("No clusters.");
        } else {
            say!("No clusters shown, but not every provider was read (see above).");
        }
        return;
    }
    let mut list = table(&[
        "provider", "id", "name", "state", "phase", "nodes", "gpus", "created", "from",
    ]);
    for row in rows {
        list.add_row(row.0.clone());
    }
    say!("{}", render(&mut list));
}

/// What a create did, in one line.
pub fn created_headline(created: &Created) {
    let c = &created.cluster;
    let what = match created.outcome {
        CreateOutcome::Created => "Created",
        CreateOutcome::CreatedReconciled => "Created (found by name after a lost answer)",
        CreateOutcome::AlreadyExisted => "Found existing (nothing new started)",
        CreateOutcome::Adopted => "Adopted (made outside gpucloud; ours from now on)",
    };
    say!(
        "{what} {} cluster {} ({}).",
        c.provider,
        cell(&c.id),
        cell(&c.name)
    );
}

/// What to type next about a ready cluster, on stdout after it: the commands that reach it
/// (its kubeconfig where the provider has one, an SSH command) and the one that stops it, each
/// quoted for a POSIX shell.
pub fn next_steps(cluster: &Cluster) {
    let provider = cluster.provider;
    let profile = provider.profile();
    // An id that starts with `-` would be read as a flag: after `--` it is the id.
    let id = if cluster.id.as_str().starts_with('-') {
        format!("-- {}", crate::shell::shell_word(cluster.id.as_str()))
    } else {
        crate::shell::shell_word(cluster.id.as_str())
    };
    say!("\nNext:");
    if profile.kubeconfig == gpucloud::Kubeconfig::InClusterObject {
        say!(
            "  gpucloud clusters kubeconfig -p {provider} {id} -o kubeconfig.yaml   # reach it with kubectl"
        );
    }
    say!("  gpucloud clusters ssh -p {provider} {id}   # the SSH command of a GPU node");
    if profile.deletes_clusters {
        say!("  gpucloud clusters delete -p {provider} --wait {id}   # stop its bill");
    } else {
        say!(
            "  (its API cannot delete it: stop it in {} when done; it bills until then)",
            profile.console
        );
    }
}

/// How long each phase of a wait took, on stderr (stdout stays the command's result): the
/// slowest phase marked, the phase the wait ended in without a duration. Left out when a wait
/// that succeeded saw a single phase (it had nothing to wait for).
pub fn timeline(timeline: &Timeline, succeeded: bool) {
    if timeline.phases.is_empty() || (succeeded && timeline.phases.len() == 1) {
        return;
    }
    let source = match timeline.source {
        TimelineSource::Provider => "as the provider recorded them",
        TimelineSource::Observed => {
            "as seen at each poll; a phase shorter than a poll may be missing"
        }
    };
    let slowest = timeline.slowest();
    let mut phases = Table::new();
    phases.load_preset(presets::NOTHING);
    for phase in &timeline.phases {
        let took = phase
            .took
            .map_or_else(|| "(when the wait ended)".to_string(), elapsed);
        let mark = if slowest.is_some_and(|s| std::ptr::eq(s, phase)) {
            "  <- slowest"
        } else {
            ""
        };
        phases.add_row([format!("  {}", cell(&phase.phase)), format!("{took}{mark}")]);
    }
    stderr_line(&format!("Phases ({source}):\n{}", render(&mut phases)));
    stderr_line(&format!("Waited {}.", elapsed(timeline.waited)));
}

/// `12s`, `4m05s`, `1h02m`.
pub fn elapsed(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_named_by_its_phase_is_said_once() {
        let cluster = |state, phase: Option<&str>| gpucloud::Cluster {
            state,
            phase: phase.map(str::to_string),
            ..serde_json::from_value::<gpucloud::together::types::GpuClusterInfo>(
                serde_json::json!({"cluster_id": "c-1"}),
            )
            .map(gpucloud::Cluster::from)
            .unwrap()
        };
        let phase = "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED";
        let failed = gpucloud::ClusterState::Failed(phase.into());
        assert_eq!(state_of(&cluster(failed.clone(), Some(phase))), "failed");
        assert_eq!(
            state_of(&cluster(failed, Some("other"))),
            format!("failed ({phase})")
        );
    }
}
