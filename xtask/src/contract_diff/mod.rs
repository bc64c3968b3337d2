//! `cargo xtask contract-diff`: what changed between two versions of a spec, and whom it breaks.
//!
//! Pipeline: load both sides (file or `GITREV:path`, OpenAPI 3.1 normalised to 3.0, every
//! `$ref` checked) → match operations (`operations.rs`) → walk parameters, bodies, responses and
//! security with the direction carried down (`schema.rs`) → judge each change with the level
//! table (`finding.rs`) → apply the team's policy (`policy.rs`) → render (`render.rs`).
//!
//! Exit status: 0 no breaking change, 1 an unacknowledged finding at or above `--fail-on`,
//! 2 the diff could not be made (the reason names the file and the location).

mod composition;
mod doc;
mod emit;
mod finding;
mod keywords;
mod messages;
mod openapi31;
mod operations;
mod parameters;
mod policy;
mod render;
mod rules;
mod schema;
mod schema_view;
mod security;
mod source;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};

use doc::Doc;
use emit::{Emitter, Loc};
use finding::{Change, Finding, Level};
use policy::Policy;
use render::{Format, Section};
use rules::Rule;
use source::Side;

/// Options of `cargo xtask contract-diff`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 no breaking change, 1 breaking change, 2 the diff could not be made."
)]
pub struct Args {
    /// BASE: a spec file or `GITREV:path` (e.g. `HEAD~1:specs/together.yaml`). With --against: our spec.
    #[arg(value_name = "BASE")]
    pub base_side: Option<String>,
    /// REVISION: a spec file or `GITREV:path`.
    #[arg(value_name = "REVISION")]
    pub revision_side: Option<String>,
    /// Compare every `specs/*.yaml` in the work tree with the same file at --base.
    #[arg(long, requires = "base_rev", conflicts_with_all = ["base_side", "revision_side", "against"])]
    pub all: bool,
    /// The git revision --all compares against.
    #[arg(long = "base", value_name = "GITREV", requires = "all")]
    pub base_rev: Option<String>,
    /// Drift: what the provider's document (OpenAPI 3.0 or 3.1) has that our spec (BASE) lacks
    /// or contradicts, on the paths ours covers.
    #[arg(long, value_name = "PROVIDER_SPEC", conflicts_with = "revision_side")]
    pub against: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Lowest level that fails the run (ERR, WARN or INFO).
    #[arg(long, value_name = "LEVEL", default_value = "ERR", value_parser = parse_level)]
    pub fail_on: Level,
    /// Acknowledgements and level overrides (default: `specs/contract-ack.yaml` in the workspace).
    #[arg(long, value_name = "FILE")]
    pub ack: Option<PathBuf>,
    /// Print every rule id with its direction and effect, and exit.
    #[arg(long, exclusive = true)]
    pub list_rules: bool,
}

fn parse_level(text: &str) -> std::result::Result<Level, String> {
    Level::parse(text).ok_or_else(|| format!("unknown level {text:?} (ERR, WARN or INFO)"))
}

/// Runs the command from the workspace root `root`; the exit code is the command's verdict.
pub fn main(root: &Path, args: &Args) -> ExitCode {
    match run(root, args) {
        Ok(breaking) => ExitCode::from(u8::from(breaking)),
        Err(e) => {
            // One line: scripts and CI logs show the first line of a failure.
            let reason = format!("{e:#}").replace('\n', " ");
            eprintln!("error: {reason}");
            ExitCode::from(2)
        }
    }
}

fn run(root: &Path, args: &Args) -> Result<bool> {
    if args.list_rules {
        for (id, direction, effect) in rules::catalogue() {
            println!("{id}\t{}\t{effect:?}", direction.as_str());
        }
        return Ok(false);
    }
    let ack_path = args
        .ack
        .clone()
        .unwrap_or_else(|| root.join("specs/contract-ack.yaml"));
    let policy = Policy::load(&ack_path)?;
    let sections = if args.all {
        let rev = args.base_rev.as_deref().unwrap_or("HEAD~1");
        all(root, rev, &policy)?
    } else if let Some(reference) = &args.against {
        let Some(ours) = &args.base_side else {
            bail!("--against needs our spec: contract-diff --against PROVIDER_SPEC OUR_SPEC");
        };
        vec![drift(root, ours, reference, &policy)?]
    } else {
        let (Some(base), Some(revision)) = (&args.base_side, &args.revision_side) else {
            bail!(
                "give BASE and REVISION, or --all --base GITREV, or --against PROVIDER_SPEC OUR_SPEC"
            );
        };
        let (b, r) = load_pair(root, &Side::parse(base), &Side::parse(revision))?;
        let title = format!("{} → {}", b.name, r.name);
        vec![section(r.name.clone(), title, diff(&b, &r), &policy)]
    };
    print!(
        "{}",
        render::render(args.format, &sections, args.fail_on, args.all)
    );
    Ok(render::breaking(&sections, args.fail_on))
}

/// Loads both sides at once: parsing YAML is most of the run time on large specs.
fn load_pair(root: &Path, base: &Side, revision: &Side) -> Result<(Doc, Doc)> {
    std::thread::scope(|s| {
        let other = s.spawn(|| revision.load(root));
        let base = base.load(root)?;
        let revision = other
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("{}: loading panicked", revision.name())))?;
        Ok((base, revision))
    })
}

/// Every change between two documents, judged, deduplicated and sorted.
fn diff(base: &Doc, rev: &Doc) -> Vec<Finding> {
    finish(operations::diff(base, rev))
}

fn finish(changes: Vec<Change>) -> Vec<Finding> {
    let mut seen = HashSet::new();
    let mut findings: Vec<Finding> = changes
        .into_iter()
        .map(Change::into_finding)
        .filter(|f| seen.insert(f.fingerprint.clone()))
        .collect();
    findings.sort_by(|a, b| {
        (b.level, &a.operation, &a.id, &a.location).cmp(&(
            a.level,
            &b.operation,
            &b.id,
            &b.location,
        ))
    });
    findings
}

fn section(spec: String, title: String, findings: Vec<Finding>, policy: &Policy) -> Section {
    Section {
        spec,
        title,
        judged: policy.judge(findings),
        note: None,
    }
}

/// `--all --base REV`: every spec of the work tree against the same file at REV.
fn all(root: &Path, rev: &str, policy: &Policy) -> Result<Vec<Section>> {
    if let Some(reason) = source::skip_reason(root, rev) {
        return Ok(vec![Section {
            spec: "specs/*.yaml".into(),
            title: format!("{rev} → work tree"),
            judged: Default::default(),
            note: Some(reason),
        }]);
    }
    let now: BTreeSet<String> = source::work_tree_specs(root)?.into_iter().collect();
    let then: BTreeSet<String> = source::specs_at(root, rev)?.into_iter().collect();
    let mut sections = Vec::new();
    for spec in now.union(&then) {
        let title = format!("{rev} → work tree");
        let mut out = Emitter::new(String::new());
        let findings = match (then.contains(spec), now.contains(spec)) {
            (true, true) => {
                let base = Side::Git {
                    rev: rev.to_string(),
                    path: spec.clone(),
                };
                let (base, revision) = load_pair(root, &base, &Side::File(root.join(spec)))?;
                diff(&base, &revision)
            }
            (false, _) => {
                Side::File(root.join(spec)).load(root)?; // a new spec must still be readable
                out.rule(
                    Rule::SpecAdded,
                    None,
                    Loc::Rev("".into()),
                    spec,
                    format!("spec {spec} added"),
                );
                finish(out.changes)
            }
            (true, false) => {
                out.rule(
                    Rule::SpecRemoved,
                    None,
                    Loc::Base("".into()),
                    spec,
                    format!("spec {spec} removed: every operation in it is gone"),
                );
                finish(out.changes)
            }
        };
        sections.push(section(spec.clone(), title, findings, policy));
    }
    Ok(sections)
}

/// `--against PROVIDER OURS`: the provider's document as REVISION of ours. With ours as BASE,
/// the level table reads right for a client: the provider rejecting what we may send (request
/// narrowing) or sending what we cannot read (response widening) is ERR. Findings about paths
/// ours does not cover are dropped, and so are INFO findings about things only ours has (our
/// own error responses, say): drift is what the provider has that we lack or contradict.
fn drift(root: &Path, ours: &str, reference: &str, policy: &Policy) -> Result<Section> {
    let (ours, reference) = load_pair(root, &Side::parse(ours), &Side::parse(reference))?;
    let changes: Vec<Change> = operations::diff(&ours, &reference)
        .into_iter()
        // operationIds only name our generated methods; the provider's naming is not contract.
        .filter(|c| c.id != Rule::PathAdded.id() && c.id != Rule::OperationIdChanged.id())
        .filter(|c| !(c.in_base && finding::level(c.direction, c.effect, c.guard) == Level::Info))
        .collect();
    let version = if reference.was_31 {
        " (OpenAPI 3.1, read as 3.0)"
    } else {
        ""
    };
    let title = format!(
        "drift: ours {} against the provider's {}{version}",
        ours.name, reference.name
    );
    Ok(section(ours.name.clone(), title, finish(changes), policy))
}
