//! Output formats: text (people), JSON (scripts), markdown (PR comments), github (annotations).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::judge::finding::Finding;
use crate::judge::levels::{ClientImpact, Level};
use crate::judge::policy::Judged;

/// How a report is printed (`--format`):
///
/// - `Text`, for people: findings grouped by rule and location, then a summary line.
/// - `Json`, for scripts: `{"breaking", "findings": [{"id", "level", "direction", "operation",
///   "location", "message", "fingerprint"}]}`, plus `"acknowledged"` (the same objects with a
///   `"reason"`) and `"notes"` when there are any. A report of several specs adds `"spec"` to
///   each finding.
/// - `Markdown`, for pull-request comments: a table per spec.
/// - `Github`: GitHub workflow commands (`::error file=…::…`), one annotation per finding.
/// - `Changelog`: release notes grouped by operation in plain words, as oasdiff's `changelog`:
///   breaking changes first, each marked when it breaks gpucloud's own generated client.
///
/// The variants carry no doc comments of their own: clap would print them in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Github,
    Changelog,
}

/// The result for one spec pair.
#[derive(Debug)]
pub struct Section {
    /// The spec, as named in headings and in `--all` JSON.
    pub spec: String,
    /// `BASE → REVISION`.
    pub title: String,
    /// The findings after the policy.
    pub judged: Judged,
    /// A line instead of findings (e.g. why nothing was compared).
    pub note: Option<String>,
}

/// Renders all sections. `all` adds a `spec` field to each JSON finding (several files).
pub fn render(format: Format, sections: &[Section], fail_on: Level, all: bool) -> String {
    match format {
        Format::Text => text(sections, fail_on),
        Format::Json => json_report(sections, fail_on, all),
        Format::Markdown => markdown(sections, fail_on),
        Format::Github => github(sections),
        Format::Changelog => changelog(sections),
    }
}

/// Whether any unacknowledged finding reaches `fail_on`.
pub fn breaking(sections: &[Section], fail_on: Level) -> bool {
    sections
        .iter()
        .flat_map(|s| &s.judged.findings)
        .any(|f| f.level >= fail_on)
}

fn counts(findings: &[Finding]) -> String {
    let n = |l: Level| findings.iter().filter(|f| f.level == l).count();
    format!(
        "{} ERR, {} WARN, {} INFO",
        n(Level::Err),
        n(Level::Warn),
        n(Level::Info)
    )
}

fn text(sections: &[Section], fail_on: Level) -> String {
    let mut out = String::new();
    for s in sections {
        let _ = writeln!(out, "{} ({})", s.spec, s.title);
        if let Some(note) = &s.note {
            let _ = writeln!(out, "  {note}");
        }
        // A shared component is judged per operation; people read it once per location.
        let mut groups: Vec<(&Finding, Vec<&Finding>)> = Vec::new();
        let mut index: HashMap<(Level, &str, &str), usize> = HashMap::new();
        for f in &s.judged.findings {
            let key = (f.level, f.id.as_str(), f.location.as_str());
            match index.get(&key) {
                Some(&i) => groups[i].1.push(f),
                None => {
                    index.insert(key, groups.len());
                    groups.push((f, vec![f]));
                }
            }
        }
        groups.sort_by(|(a, _), (b, _)| {
            (b.level, &a.id, &a.location).cmp(&(a.level, &b.id, &b.location))
        });
        for (f, members) in groups {
            let marker = if f.client_impact == ClientImpact::Breaks {
                "  [breaks our client]"
            } else {
                ""
            };
            let _ = writeln!(out, "  {:<4} {}{marker}", f.level.as_str(), f.id);
            let _ = writeln!(out, "       {}", f.message);
            let _ = writeln!(out, "       at {}", f.location);
            let ops: Vec<String> = members
                .iter()
                .map(|m| {
                    if m.operation.is_empty() {
                        format!("[{}]", m.fingerprint)
                    } else {
                        format!("{} [{}]", m.operation, m.fingerprint)
                    }
                })
                .collect();
            let _ = writeln!(out, "       in {}", ops.join(", "));
        }
        for (f, reason) in &s.judged.acknowledged {
            let _ = writeln!(
                out,
                "  ack  {} {}  {} [{}]: {reason}",
                f.level.as_str(),
                f.id,
                f.operation,
                f.fingerprint
            );
        }
        if s.note.is_none() && s.judged.findings.is_empty() && s.judged.acknowledged.is_empty() {
            let _ = writeln!(out, "  no changes");
        }
    }
    let findings: Vec<Finding> = sections
        .iter()
        .flat_map(|s| s.judged.findings.clone())
        .collect();
    let acked: usize = sections.iter().map(|s| s.judged.acknowledged.len()).sum();
    let verdict = if breaking(sections, fail_on) {
        "breaking"
    } else {
        "not breaking"
    };
    let _ = writeln!(
        out,
        "summary: {}, {acked} acknowledged: {verdict} (fails on {})",
        counts(&findings),
        fail_on.as_str()
    );
    out
}

fn json_report(sections: &[Section], fail_on: Level, all: bool) -> String {
    let with_spec = |f: &Finding, spec: &str| {
        let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
        if all && let Value::Object(map) = &mut v {
            map.insert("spec".into(), json!(spec));
        }
        v
    };
    let findings: Vec<Value> = sections
        .iter()
        .flat_map(|s| s.judged.findings.iter().map(|f| with_spec(f, &s.spec)))
        .collect();
    let acknowledged: Vec<Value> = sections
        .iter()
        .flat_map(|s| {
            s.judged.acknowledged.iter().map(|(f, reason)| {
                let mut v = with_spec(f, &s.spec);
                if let Value::Object(map) = &mut v {
                    map.insert("reason".into(), json!(reason));
                }
                v
            })
        })
        .collect();
    let mut report = json!({ "breaking": breaking(sections, fail_on), "findings": findings });
    if !acknowledged.is_empty()
        && let Value::Object(map) = &mut report
    {
        map.insert("acknowledged".into(), Value::Array(acknowledged));
    }
    let notes: Vec<&String> = sections.iter().filter_map(|s| s.note.as_ref()).collect();
    if !notes.is_empty()
        && let Value::Object(map) = &mut report
    {
        map.insert("notes".into(), json!(notes));
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    )
}

fn markdown(sections: &[Section], fail_on: Level) -> String {
    let mut out = String::new();
    let verdict = if breaking(sections, fail_on) {
        "**breaking**"
    } else {
        "not breaking"
    };
    let _ = writeln!(out, "## Contract diff: {verdict}\n");
    let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
    for s in sections {
        let _ = writeln!(out, "### `{}` ({})\n", s.spec, cell(&s.title));
        if let Some(note) = &s.note {
            let _ = writeln!(out, "{}\n", cell(note));
        }
        if s.judged.findings.is_empty() {
            let _ = writeln!(out, "No unacknowledged changes.\n");
        } else {
            let _ = writeln!(
                out,
                "| level | rule | operation | change | location | fingerprint |"
            );
            let _ = writeln!(out, "|---|---|---|---|---|---|");
            for f in &s.judged.findings {
                let _ = writeln!(
                    out,
                    "| {} | `{}` | `{}` | {} | `{}` | `{}` |",
                    f.level.as_str(),
                    f.id,
                    cell(&f.operation),
                    cell(&f.message),
                    cell(&f.location),
                    f.fingerprint
                );
            }
            out.push('\n');
        }
        for (f, reason) in &s.judged.acknowledged {
            let _ = writeln!(
                out,
                "- acknowledged `{}` `{}` ({}): {}",
                f.id,
                f.fingerprint,
                cell(&f.operation),
                cell(reason)
            );
        }
    }
    out
}

/// GitHub workflow commands (`::error file=…::…`): one annotation per finding on the spec file.
fn github(sections: &[Section]) -> String {
    let data = |t: &str| {
        t.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |t: &str| data(t).replace(':', "%3A").replace(',', "%2C");
    let mut out = String::new();
    for s in sections {
        if let Some(note) = &s.note {
            let _ = writeln!(out, "::notice file={}::{}", property(&s.spec), data(note));
        }
        for f in &s.judged.findings {
            let command = match f.level {
                Level::Err => "error",
                Level::Warn => "warning",
                Level::Info => "notice",
            };
            let file = s.spec.rsplit_once(':').map(|(_, p)| p).unwrap_or(&s.spec);
            let message = format!(
                "{}: {} (at {}, fingerprint {})",
                f.operation, f.message, f.location, f.fingerprint
            );
            let _ = writeln!(
                out,
                "::{command} file={},title={}::{}",
                property(file),
                property(&f.id),
                data(&message)
            );
        }
    }
    out
}

/// Release notes: per spec, one heading per operation (spec-wide changes first), breaking
/// changes before the rest, acknowledged ones with their reason.
fn changelog(sections: &[Section]) -> String {
    let mut out = String::new();
    for s in sections {
        let _ = writeln!(out, "# {} ({})\n", s.spec, s.title);
        if let Some(note) = &s.note {
            let _ = writeln!(out, "{note}\n");
        }
        let mut entries: Vec<(&Finding, Option<&str>)> =
            s.judged.findings.iter().map(|f| (f, None)).collect();
        entries.extend(
            s.judged
                .acknowledged
                .iter()
                .map(|(f, r)| (f, Some(r.as_str()))),
        );
        if entries.is_empty() {
            let _ = writeln!(out, "No changes.\n");
            continue;
        }
        entries.sort_by(|(a, _), (b, _)| {
            (&a.operation, b.level, &a.message).cmp(&(&b.operation, a.level, &b.message))
        });
        let mut current: Option<&str> = None;
        for (f, reason) in entries {
            if current != Some(f.operation.as_str()) {
                let heading = if f.operation.is_empty() {
                    "The whole API"
                } else {
                    &f.operation
                };
                let _ = writeln!(
                    out,
                    "{}## {heading}\n",
                    if current.is_some() { "\n" } else { "" }
                );
                current = Some(f.operation.as_str());
            }
            let kind = match f.level {
                Level::Err => "**breaking**: ",
                Level::Warn => "**may break**: ",
                Level::Info => "",
            };
            let ours = if f.client_impact == ClientImpact::Breaks {
                " (breaks gpucloud's generated client)"
            } else {
                ""
            };
            let ack = reason
                .map(|r| format!(" (accepted: {r})"))
                .unwrap_or_default();
            let _ = writeln!(out, "- {kind}{}{ours}{ack} `{}`", f.message, f.id);
        }
        out.push('\n');
    }
    out
}
