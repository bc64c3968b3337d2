//! What changed between two versions of an OpenAPI 3.0 or 3.1 document, and whom it breaks.
//!
//! Each finding has a rule id in oasdiff's `<direction>-<subject>-<what>` style, a direction
//! (`request`: the client sends it; `response`: the server does) and a level derived from how
//! the change moves the set of valid values at its location:
//!
//! | effect | request | response |
//! |---|---|---|
//! | narrows | ERR | INFO |
//! | widens | INFO | ERR |
//! | incomparable (a type swap) | ERR | ERR |
//! | unknown (a pattern rewritten, a default changed, an unclassified change) | WARN | WARN |
//! | violation (of the deprecation or stability policy) | ERR | ERR |
//! | none | INFO | INFO |
//!
//! The exceptions: removing something already deprecated is INFO; a response media type or an
//! error status added is INFO; a request property becoming non-nullable where it may be omitted
//! is WARN; a response enum value added where the enum is open is WARN; any change to an
//! operation that was `x-stability-level: draft` or `alpha` is INFO.
//!
//! Shared components are judged per use, through `$ref`s: a shared enum gaining a value is
//! harmless where it is sent and breaking where it is received. A component renamed or inlined
//! with the same content, a path parameter renamed, or a security scheme renamed is no change.
//! OpenAPI 3.1 documents keep their 2020-12 keywords (type lists, `const`, `contains`,
//! `prefixItems`, `if`/`then`/`else`, `dependent*`, `unevaluated*`, …), which have rules of their
//! own; only spellings that mean a 3.0 construct are rewritten, keeping the JSON pointers of the
//! original. Webhooks are compared with their directions reversed.
//!
//! **Completeness**: after the rules, every difference between the two documents in a keyword
//! that constrains the wire and that no rule claims is reported as `unclassified-change` (WARN)
//! with both values and its pointer, so "no changes" means the contracts are equal.
//!
//! The diff assumes Rust clients of a particular shape: a named string enum in
//! `components/schemas` (or any enum marked `x-extensible-enum: true`) is open, with an
//! `Unknown(..)` variant that keeps unlisted values, and unset optional properties are omitted
//! rather than sent as `null`.
//!
//! ```
//! use openapi_contract_diff::{Format, Level, Options, diff};
//!
//! let base = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok}}\n";
//! let revision = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";
//! let report = diff(base, revision, &Options::default())?;
//! assert!(report.is_breaking(Level::Err));
//! let ids: Vec<&str> = report.findings().map(|f| f.id.as_str()).collect();
//! assert_eq!(ids, ["api-path-removed-without-deprecation"]);
//! print!("{}", report.render(Format::Text, Level::Err));
//! # Ok::<(), openapi_contract_diff::Error>(())
//! ```
//!
//! The `openapi-contract-diff` binary is the same engine on the command line ([`cli`]): sides are
//! files or `GITREV:path`, `--all --base GITREV` compares every `specs/*.yaml` of a git work tree,
//! `--against PROVIDER_SPEC OUR_SPEC` reports drift, and acknowledged findings come from
//! `specs/contract-ack.yaml` (see [`Policy`]). Exit status: 0 nothing at or above `--fail-on`,
//! 1 an unacknowledged breaking finding, 2 the diff could not be made.
//!
//! Inside, the pipeline is: load both sides (every `$ref` checked) → match operations → walk
//! parameters, bodies, responses and security with the direction carried down → the
//! completeness pass (every difference no rule claims becomes an `unclassified-change`, WARN)
//! → judge each change with the level table → apply the policy → render. The source is
//! grouped by stage, a folder each: `load/` (sides, parsing, the outline check, `$ref`s),
//! `walk/` (operations, parameters, bodies, security, servers, deprecation, schemas, the
//! completeness pass) and `judge/` (rules, levels, findings, policy, report); `pipeline.rs`
//! strings them together. No folder imports one that imports it back: `load/` imports
//! neither of the others, `judge/` reads only `load/` (for the acknowledgement file), and
//! `walk/` states its facts in the judgement's terms (rules, directions, effects) without
//! judging them.

pub mod cli;
mod judge;
mod load;
mod pipeline;
mod walk;

pub use judge::finding::Finding;
pub use judge::levels::{ClientImpact, Direction, Level};
pub use judge::policy::{Judged, Policy};
pub use judge::render::{Format, Section};
pub use judge::report::Report;
pub use load::error::Error;
pub use load::input;
pub use load::side::Side;
pub use walk::deprecation::Lifecycle;

use load::document::{self, Doc};

/// What [`diff`] reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Every change from BASE to REVISION, and whom it breaks.
    #[default]
    Changes,
    /// Drift (the command's `--against`): BASE is our spec and REVISION the provider's document.
    /// Reported is what the provider has that ours lacks or contradicts, on the paths ours
    /// covers; paths only the provider has and operationId differences are left out.
    Drift,
}

/// How [`diff`] names the two documents, what it reports, and the policy it applies.
#[derive(Debug)]
pub struct Options {
    /// How messages and the report name BASE (a path, say).
    pub base_name: String,
    /// How messages and the report name REVISION.
    pub revision_name: String,
    pub mode: Mode,
    /// Acknowledgements and level overrides; the default is empty.
    pub policy: Policy,
    /// The deprecation policy and the day it is judged on; the default requires no sunset.
    pub lifecycle: Lifecycle,
}

impl Default for Options {
    /// BASE named `BASE`, REVISION named `REVISION`, every change, no policy.
    fn default() -> Options {
        Options {
            base_name: "BASE".into(),
            revision_name: "REVISION".into(),
            mode: Mode::default(),
            policy: Policy::default(),
            lifecycle: Lifecycle::default(),
        }
    }
}

/// Compares two documents, each the text of an OpenAPI 3.0 or 3.1 document in YAML or JSON.
///
/// Fails when a document is not valid YAML or JSON, is not OpenAPI 3.0 or 3.1, or has a `$ref`
/// that is external, dangling or a loop; the error names the document and the JSON pointer.
pub fn diff(base_text: &str, revision_text: &str, options: &Options) -> Result<Report, Error> {
    let (base, revision) = document::load_pair(
        || Doc::parse(options.base_name.clone(), base_text),
        || Doc::parse(options.revision_name.clone(), revision_text),
        || options.revision_name.clone(),
    )?;
    Ok(compare_docs(&base, &revision, options))
}

/// [`diff`] on documents already parsed (for callers that hold the trees, such as tools that
/// edit a document and compare the result): the same checks, without reading text again.
pub fn diff_trees(
    base: serde_json::Value,
    revision: serde_json::Value,
    options: &Options,
) -> Result<Report, Error> {
    let base = Doc::new(base, options.base_name.clone())?;
    let revision = Doc::new(revision, options.revision_name.clone())?;
    Ok(compare_docs(&base, &revision, options))
}

fn compare_docs(base: &Doc, revision: &Doc, options: &Options) -> Report {
    let section = match options.mode {
        Mode::Changes => pipeline::pair(base, revision, &options.policy, &options.lifecycle),
        Mode::Drift => pipeline::drift(base, revision, &options.policy, &options.lifecycle),
    };
    Report::new(vec![section], false)
}

/// The README's examples, compiled (and the runnable ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
