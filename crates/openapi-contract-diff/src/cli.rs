//! The command line, shared by the `openapi-contract-diff` binary and `cargo xtask contract-diff`:
//! its arguments ([`Args`]) and [`main`], which prints the report and returns the exit status.
//!
//! Exit status: 0 no breaking change, 1 an unacknowledged finding at or above `--fail-on`,
//! 2 the diff could not be made (the reason names the file and the location).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::judge::levels::{ClientImpact, Level};
use crate::judge::policy::Policy;
use crate::judge::render::{Format, Section};
use crate::judge::report::Report;
use crate::judge::rule_ids;
use crate::judge::rules::Rule;
use crate::load::document::{self, Doc};
use crate::load::side::{self, Side};
use crate::pipeline;
use crate::walk::deprecation::Lifecycle;
use crate::walk::emitter::{Emitter, Loc};

/// Options of the command.
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
    /// Also fail (exit 1) when an unacknowledged finding, at any level, breaks a client generated
    /// the way gpucloud's are (`client_impact: breaks`).
    #[arg(long)]
    pub fail_on_client_impact: bool,
    /// Acknowledgements and level overrides (default: `specs/contract-ack.yaml` in the current directory).
    #[arg(long, value_name = "FILE")]
    pub ack: Option<PathBuf>,
    /// Minimum days between deprecating a stable operation or parameter and its `x-sunset`
    /// (default: the ack file's `deprecation_days.stable`, else 0: no sunset required).
    #[arg(long, value_name = "DAYS")]
    pub deprecation_days_stable: Option<u32>,
    /// The same for `x-stability-level: beta` (default: the ack file's `deprecation_days.beta`, else 0).
    #[arg(long, value_name = "DAYS")]
    pub deprecation_days_beta: Option<u32>,
    /// The day sunsets are judged against, `YYYY-MM-DD` (default: today, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub today: Option<chrono::NaiveDate>,
    /// Print every rule id with its direction and effect, and exit.
    #[arg(long, exclusive = true)]
    pub list_rules: bool,
}

fn parse_date(text: &str) -> std::result::Result<chrono::NaiveDate, String> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|e| format!("{text:?} is not a date YYYY-MM-DD ({e})"))
}

fn parse_level(text: &str) -> std::result::Result<Level, String> {
    Level::parse(text).ok_or_else(|| format!("unknown level {text:?} (ERR, WARN or INFO)"))
}

/// Runs the command and returns its verdict as the exit status.
///
/// `root` is the directory `--all` and the default `--ack` file are relative to, and where git
/// runs for `GITREV:path` sides (the workspace root under `cargo xtask`; empty, meaning the
/// current directory, for the `openapi-contract-diff` binary). File sides are read as given.
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
        for (id, direction, effect) in rule_ids::catalogue() {
            println!("{id}\t{}\t{effect:?}", direction.as_str());
        }
        return Ok(false);
    }
    let ack_path = args
        .ack
        .clone()
        .unwrap_or_else(|| root.join("specs/contract-ack.yaml"));
    let policy = Policy::read(&ack_path)?;
    let (file_stable, file_beta) = policy.deprecation_days();
    let lifecycle = Lifecycle {
        days_stable: args.deprecation_days_stable.or(file_stable).unwrap_or(0),
        days_beta: args.deprecation_days_beta.or(file_beta).unwrap_or(0),
        today: args
            .today
            .unwrap_or_else(crate::walk::deprecation::today_utc),
    };
    let sections = if args.all {
        let rev = args.base_rev.as_deref().unwrap_or("HEAD~1");
        all(root, rev, &policy, &lifecycle)?
    } else if let Some(reference) = &args.against {
        let Some(ours) = &args.base_side else {
            bail!("--against needs our spec: contract-diff --against PROVIDER_SPEC OUR_SPEC");
        };
        let (ours, reference) = load_pair(root, &Side::parse(ours), &Side::parse(reference))?;
        vec![pipeline::drift(&ours, &reference, &policy, &lifecycle)]
    } else {
        let (Some(base), Some(revision)) = (&args.base_side, &args.revision_side) else {
            bail!(
                "give BASE and REVISION, or --all --base GITREV, or --against PROVIDER_SPEC OUR_SPEC"
            );
        };
        let (b, r) = load_pair(root, &Side::parse(base), &Side::parse(revision))?;
        vec![pipeline::pair(&b, &r, &policy, &lifecycle)]
    };
    let report = Report::new(sections, args.all);
    print!("{}", report.render(args.format, args.fail_on));
    let breaks_client = args.fail_on_client_impact
        && report
            .findings()
            .any(|f| f.client_impact == ClientImpact::Breaks);
    Ok(report.is_breaking(args.fail_on) || breaks_client)
}

/// Loads both sides at once: parsing YAML is most of the run time on large specs.
fn load_pair(root: &Path, base: &Side, revision: &Side) -> Result<(Doc, Doc)> {
    document::load_pair(
        || base.load(root),
        || revision.load(root),
        || revision.name(),
    )
}

/// `--all --base REV`: every spec of the work tree against the same file at REV.
fn all(root: &Path, rev: &str, policy: &Policy, lifecycle: &Lifecycle) -> Result<Vec<Section>> {
    if let Some(reason) = side::skip_reason(root, rev) {
        return Ok(vec![Section {
            spec: "specs/*.yaml".into(),
            title: format!("{rev} → work tree"),
            judged: Default::default(),
            note: Some(reason),
        }]);
    }
    let now: BTreeSet<String> = side::work_tree_specs(root)?.into_iter().collect();
    let then: BTreeSet<String> = side::specs_at(root, rev)?.into_iter().collect();
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
                pipeline::findings(&base, &revision, lifecycle)
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
                pipeline::finish(out.changes)
            }
            (true, false) => {
                out.rule(
                    Rule::SpecRemoved,
                    None,
                    Loc::Base("".into()),
                    spec,
                    format!("spec {spec} removed: every operation in it is gone"),
                );
                pipeline::finish(out.changes)
            }
        };
        sections.push(pipeline::section(spec.clone(), title, findings, policy));
    }
    Ok(sections)
}
