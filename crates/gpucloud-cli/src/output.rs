//! What commands print on stdout: tables for people, JSON (`--json`) for programs.
//!
//! Tables are comfy-table without borders, in the style of `kubectl get`, so they read well in a
//! terminal and survive `grep`/`awk`; every cell that came from a provider goes through
//! [`sanitize`] first. JSON is the facade's own `Serialize` output. Every line leaves through
//! [`stdout_line`], [`stderr_line`] or [`json`], which scrub the loaded credentials
//! ([`secrets`]); [`stdout_raw`] is for documents piped on as their bytes. This is the one
//! module that touches stdout and stderr: clippy's `print_stdout`/`print_stderr` are denied in
//! the crate, and a test fails on any other module that takes either handle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use comfy_table::{Cell, Table, presets};
use gpucloud::{Cluster, CreateOutcome, Created, Timeline, TimelineSource};
use serde::Serialize;

use crate::error::CliError;
use crate::sanitize::cell;
use crate::{sanitize, secrets};

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

/// Prints `value` as pretty JSON on stdout: exact JSON (serde escapes C0 controls,
/// [`sanitize::json`] the rest), with the loaded credentials replaced inside its strings.
pub fn json(value: &impl Serialize) -> Result<(), CliError> {
    let text = json_text(value)?;
    DOCUMENT_PRINTED.store(true, Ordering::Relaxed);
    write_stdout(&text);
    Ok(())
}

/// A failure's JSON document on stdout, as [`json`] prints a result, except that a stdout
/// that cannot be written is left as it is: the run ends with the failure's own exit code,
/// never the 0 of a closed pipe.
pub fn failure_json(value: &impl Serialize) {
    use std::io::Write as _;
    if let Ok(text) = json_text(value) {
        DOCUMENT_PRINTED.store(true, Ordering::Relaxed);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }
}

/// `value` as pretty JSON and a newline, scrubbed and terminal-safe.
fn json_text(value: &impl Serialize) -> Result<String, CliError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::Other(format!("cannot encode JSON output: {e}")))?;
    let text = secrets::scrub_json(&text);
    Ok(format!("{}\n", sanitize::json(&text)))
}

/// Whether [`json`] printed a document in this run. Stdout is the process's own, and so is
/// this: a command that printed its document and then failed (a plan whose every candidate
/// was skipped, a sweep that left clusters billing) gets no second document, so that stdout
/// stays one JSON document whatever happened.
static DOCUMENT_PRINTED: AtomicBool = AtomicBool::new(false);

/// Whether a JSON document has gone to stdout in this run.
pub fn printed_a_document() -> bool {
    DOCUMENT_PRINTED.load(Ordering::Relaxed)
}

/// Writes `text` and a newline on stdout, credentials scrubbed (what `say!` calls).
pub fn stdout_line(text: &str) {
    write_stdout(&format!("{}\n", secrets::scrub(text)));
}

/// Writes `text` as it is on stdout, credentials scrubbed.
pub fn stdout_text(text: &str) {
    write_stdout(&secrets::scrub(text));
}

fn write_stdout(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        stdout_failed(error);
    }
}

/// Writes `bytes` on stdout exactly as they are: for a document the user pipes on (a
/// kubeconfig, a completion script), whose bytes are the point. Nothing else uses it.
pub fn stdout_raw(bytes: &[u8]) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        stdout_failed(error);
    }
}

/// Whether stdout is a terminal (a person reads it) rather than a pipe or a file.
pub fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal as _;
    std::io::stdout().is_terminal()
}

/// Whether stderr is a terminal (progress may redraw in place).
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal()
}

/// Writes `text` and a newline on stderr, credentials scrubbed (what `tell!` calls).
pub fn stderr_line(text: &str) {
    use std::io::Write as _;
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(std::io::stderr().lock(), "{}", secrets::scrub(text));
}

/// Writes `text` on stderr without a newline and flushes it: a question whose answer is
/// typed on the same line.
pub fn stderr_prompt(text: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{}", secrets::scrub(text));
    let _ = stderr.flush();
}

/// A borderless table with an upper-case header.
pub fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(header.iter().map(|h| Cell::new(h.to_uppercase())));
    table
}

/// The table as text: two spaces between columns, no trailing blanks.
pub fn render(table: &mut Table) -> String {
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table
        .lines()
        .map(|line| line.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
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
pub fn clusters(clusters: &[Cluster]) {
    if clusters.is_empty() {
        say!("No clusters.");
        return;
    }
    let mut list = table(&[
        "provider", "id", "name", "state", "phase", "nodes", "gpus", "created",
    ]);
    for c in clusters {
        let (reachable, known) = node_counts(c);
        list.add_row([
            c.provider.to_string(),
            cell(&c.id),
            cell(&c.name),
            state_of(c),
            or_dash(c.phase.as_ref()),
            format!("{reachable}/{known}"),
            or_dash(c.gpu_count),
            time(c.created_at),
        ]);
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

/// Ends the program after a failed write to stdout: quietly (exit 0) when the reader went away
/// (a closed pipe), with a one-line error (exit 1) otherwise.
pub fn stdout_failed(error: std::io::Error) -> ! {
    if error.kind() != std::io::ErrorKind::BrokenPipe {
        stderr_line(&format!("error: cannot write to stdout: {error}"));
        std::process::exit(1);
    }
    std::process::exit(0)
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

/// How a person stops the bill of `provider`'s cluster `id`, as a sentence: the command that
/// deletes it, quoted for a POSIX shell so that pasting it runs nothing else whatever the id
/// holds; or, where the provider's API cannot delete a cluster, where a person stops it.
pub fn how_to_stop(provider: gpucloud::ProviderKind, id: &str) -> String {
    let profile = provider.profile();
    if !profile.deletes_clusters {
        return format!(
            "Its API cannot delete it: stop it in {} (it bills until then).",
            profile.console
        );
    }
    // An id that starts with `-` would be read as a flag: after `--` it is the id.
    let id = if id.starts_with('-') {
        format!("-- {}", shell_word(id))
    } else {
        shell_word(id)
    };
    format!("Delete it with `gpucloud clusters delete -p {provider} --wait {id}`.")
}

/// `word` quoted for a POSIX shell when it needs it (control characters escaped for the
/// terminal first; a NUL, which no shell word can hold, shown escaped).
pub fn shell_word(word: &str) -> String {
    let shown = cell(word);
    shlex::try_quote(&shown).map_or_else(|_| format!("{shown:?}"), |q| q.into_owned())
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
            .map(gpucloud::providers::together::view)
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

    #[test]
    fn a_printed_delete_command_is_safe_to_paste_and_names_the_console_where_there_is_none() {
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::Together, "c-1;echo pwned $(id)"),
            "Delete it with `gpucloud clusters delete -p together --wait 'c-1;echo pwned $(id)'`."
        );
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::E2e, "101"),
            "Delete it with `gpucloud clusters delete -p e2e --wait 101`."
        );
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::Together, "-rf"),
            "Delete it with `gpucloud clusters delete -p together --wait -- -rf`."
        );
        assert_eq!(shell_word("it's"), r#""it's""#);
        // Control characters never reach the terminal raw, quoted or not.
        assert_eq!(shell_word("a\u{1b}]0;x\u{7}"), r#""a\\x1b]0;x\\x07""#);
        let runcrate = how_to_stop(gpucloud::ProviderKind::Runcrate, "r-1");
        assert!(
            runcrate.contains("cannot delete")
                && runcrate.contains("Runcrate dashboard")
                && !runcrate.contains("gpucloud clusters delete"),
            "{runcrate}"
        );
    }

    #[test]
    fn tables_have_no_borders_or_trailing_blanks() {
        let mut t = table(&["id", "name"]);
        t.add_row(["1", "a"]);
        t.add_row(["22", "bb"]);
        assert_eq!(render(&mut t), "ID  NAME\n1   a\n22  bb");
    }

    /// Only this module takes stdout or stderr: any other module that does would print past
    /// the scrubber and the escaping.
    #[test]
    fn no_other_module_touches_stdout_or_stderr() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.clone()];
        let mut offenders = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{e}")) {
                    files.push(entry.unwrap_or_else(|e| panic!("{e}")).path());
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("output.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if [
                    "io::stdout()",
                    "io::stderr()",
                    "std::io::stdout",
                    "std::io::stderr",
                ]
                .iter()
                .any(|handle| code.contains(handle))
                {
                    offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(offenders.is_empty(), "{}", offenders.join("\n"));
    }
}
