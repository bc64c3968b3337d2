//! The middle stage: both documents traversed side by side, every change stated as a fact
//! (a rule, where, and its effect on the set of valid values), unjudged.
//!
//! This file is the top of the walk: operations matched by method and path template with the
//! path-parameter names ignored (`/clusters/{id}` ≡ `/clusters/{cluster_id}`, oasdiff issue
//! #202), then each matched pair compared part by part, each part in a file of its own:
//! [`parameters`], request and response [`bodies`] (with statuses and response headers),
//! [`security`], [`servers`] and [`deprecation`] (sunsets and stability levels). Schemas are
//! walked by [`schema`], with the direction carried down; changes go to an [`emitter`], and
//! [`operation`] is the model of an operation they all read. [`completeness`] is the second,
//! independent reading that reports every difference no rule claimed.

pub(crate) mod bodies;
pub(crate) mod completeness;
pub(crate) mod deprecation;
pub(crate) mod emitter;
pub(crate) mod operation;
pub(crate) mod parameters;
pub(crate) mod schema;
pub(crate) mod security;
pub(crate) mod servers;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::judge::finding::Change;
use crate::judge::rules::Rule;
use crate::load::document::Doc;
use deprecation::Lifecycle;
use emitter::{Emitter, Loc};
use operation::{Operation, normalise_path, operations};
use schema::Walker;

/// What the rules found: every change, unjudged, and the subtrees they judged (per operation
/// label) for the completeness pass.
#[derive(Debug, Default)]
pub struct Outcome {
    pub changes: Vec<Change>,
    pub claims: Vec<(String, String)>,
}

impl Outcome {
    fn take(&mut self, out: Emitter) {
        let op = out.operation;
        self.claims
            .extend(out.claims.into_iter().map(|c| (op.clone(), c)));
        self.changes.extend(out.changes);
    }
}

/// Compares two specs: every change, unjudged, with the deprecation policy `lifecycle`.
pub fn diff(base: &Doc, rev: &Doc, lifecycle: &Lifecycle) -> Outcome {
    let (bops, rops) = (operations(base), operations(rev));
    let paths = |ops: &BTreeMap<String, Operation>| -> BTreeSet<String> {
        ops.values()
            .filter(|o| !o.webhook)
            .map(|o| normalise_path(o.path))
            .collect()
    };
    let (bpaths, rpaths) = (paths(&bops), paths(&rops));
    let mut outcome = Outcome::default();
    for (key, b) in &bops {
        let mut out = Emitter::new(b.label());
        match rops.get(key) {
            Some(r) => compare_operation(base, rev, &mut out, b, r, lifecycle),
            None => {
                let whole_path = !rpaths.contains(&normalise_path(b.path));
                let deprecated = b.deprecated();
                let early = lifecycle.before_sunset(b.node);
                let unreadable = lifecycle.unreadable_sunset(b.node);
                let rule = match (whole_path, deprecated) {
                    _ if b.webhook => Rule::WebhookRemoved,
                    (true, _) if early.is_some() => Rule::PathRemovedBeforeSunset,
                    (false, _) if early.is_some() => Rule::RemovedBeforeSunset,
                    _ if unreadable.is_some() => Rule::PathSunsetParse,
                    (true, false) => Rule::PathRemovedWithoutDeprecation,
                    (true, true) => Rule::PathRemovedWithDeprecation,
                    (false, false) => Rule::RemovedWithoutDeprecation,
                    (false, true) => Rule::RemovedWithDeprecation,
                };
                let what = if whole_path { "path" } else { "operation" };
                let note = match (early, deprecated) {
                    (Some(date), _) => format!(" before its sunset {date}"),
                    (None, true) if unreadable.is_some() => format!(
                        ": it was deprecated, but its x-sunset {} is not a date, so whether the sunset has passed cannot be told",
                        unreadable.as_deref().unwrap_or_default()
                    ),
                    (None, true) => " (it was deprecated)".to_string(),
                    (None, false) => String::new(),
                };
                out.rule(
                    rule,
                    None,
                    Loc::Base(b.ptr.clone()),
                    "",
                    format!("{what} {} removed{note}", b.label()),
                );
                if !b.webhook {
                    lifecycle.removed_stability(&mut out, b);
                }
            }
        }
        if deprecation::unstable(b) {
            deprecation::guard_unstable(&mut out, 0);
        }
        outcome.take(out);
    }
    for (key, r) in &rops {
        if bops.contains_key(key) {
            continue;
        }
        let mut out = Emitter::new(r.label());
        let (rule, what) = if r.webhook {
            (Rule::WebhookAdded, "webhook")
        } else if bpaths.contains(&normalise_path(r.path)) {
            (Rule::OperationAdded, "operation")
        } else {
            (Rule::PathAdded, "path")
        };
        // Both are oasdiff's `endpoint-added`; the detail tells a whole new path apart.
        let detail = if rule == Rule::PathAdded { "path" } else { "" };
        out.rule(
            rule,
            None,
            Loc::Rev(r.ptr.clone()),
            detail,
            format!("{what} {} added", r.label()),
        );
        outcome.take(out);
    }
    outcome
}

fn compare_operation<'a>(
    base: &'a Doc,
    rev: &'a Doc,
    out: &mut Emitter,
    b: &Operation<'a>,
    r: &Operation<'a>,
    lifecycle: &Lifecycle,
) {
    lifecycle.operation(out, b, r, base.hash(b.value) != rev.hash(r.value));
    let op_id = |o: &Operation| {
        o.node
            .get("operationId")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (op_id(b), op_id(r)) {
        (Some(x), Some(y)) if x != y => {
            let message = format!(
                "operationId changed from `{x}` to `{y}`: the wire is unchanged, but the generated method is renamed"
            );
            let loc = Loc::Rev(format!("{}/operationId", r.ptr));
            out.rule(Rule::OperationIdChanged, None, loc, "", message);
        }
        (Some(x), None) => {
            let message = format!(
                "operationId `{x}` removed: the wire is unchanged, but the generated method is renamed"
            );
            let loc = Loc::Base(format!("{}/operationId", b.ptr));
            out.rule(Rule::OperationIdChanged, None, loc, "", message);
        }
        (None, Some(y)) => {
            let message = format!("operationId `{y}` added");
            let loc = Loc::Rev(format!("{}/operationId", r.ptr));
            out.rule(Rule::OperationIdAdded, None, loc, "", message);
        }
        _ => {}
    }
    security::compare(base, rev, out, b, r);
    servers::compare(base, rev, out, b, r);
    let mut walker = Walker::new(base, rev, out);
    walker.lifecycle = *lifecycle;
    walker.reversed = r.webhook;
    parameters::compare(&mut walker, b, r);
    bodies::compare_request_body(&mut walker, b, r);
    bodies::compare_responses(&mut walker, b, r);
}
