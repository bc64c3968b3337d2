//! From two loaded documents to a judged [`Section`]: every change, judged by the level table,
//! deduplicated, sorted, and passed through the policy.

use std::collections::HashSet;

use crate::judge::finding::{Change, Finding};
use crate::judge::levels::{self, Level};
use crate::judge::policy::Policy;
use crate::judge::render::Section;
use crate::judge::rules::Rule;
use crate::load::document::Doc;
use crate::walk::deprecation::Lifecycle;
use crate::walk::{self, completeness};

/// BASE → REVISION, named after REVISION.
pub fn pair(base: &Doc, rev: &Doc, policy: &Policy, lifecycle: &Lifecycle) -> Section {
    let title = format!("{} → {}", base.name, rev.name);
    section(
        rev.name.clone(),
        title,
        findings(base, rev, lifecycle),
        policy,
    )
}

/// Every change between two documents, judged, deduplicated and sorted; differences no rule
/// claims become `unclassified-change` findings (see `completeness`).
pub fn findings(base: &Doc, rev: &Doc, lifecycle: &Lifecycle) -> Vec<Finding> {
    let outcome = walk::diff(base, rev, lifecycle);
    let reported = completeness::Reported::new(&outcome.changes, &outcome.claims);
    let unclaimed = completeness::unclaimed(base, rev, &reported);
    let mut changes = outcome.changes;
    changes.extend(unclaimed);
    finish(changes)
}

/// Drift: the provider's document `reference` read as REVISION of `ours`. With ours as BASE, the
/// level table reads right for a client: the provider rejecting what we may send (request
/// narrowing) or sending what we cannot read (response widening) is ERR. Findings about paths
/// ours does not cover are dropped, and so are INFO findings about things only ours has (our
/// own error responses, say): drift is what the provider has that we lack or contradict.
pub fn drift(ours: &Doc, reference: &Doc, policy: &Policy, lifecycle: &Lifecycle) -> Section {
    let changes: Vec<Change> = walk::diff(ours, reference, lifecycle)
        .changes
        .into_iter()
        // operationIds only name generated methods; the provider's naming is not contract.
        // Paths ours does not cover are not drift (`endpoint-added` with the detail `path`).
        .filter(|c| !(c.id == Rule::PathAdded.id() && c.detail == "path"))
        .filter(|c| c.id != Rule::OperationIdChanged.id() && c.id != Rule::OperationIdAdded.id())
        .filter(|c| !(c.in_base && levels::level(c.direction, c.effect, c.guard) == Level::Info))
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
    section(ours.name.clone(), title, finish(changes), policy)
}

/// Judges `changes`, drops repeated fingerprints, and sorts: most severe first, then by
/// operation, rule id and location.
pub fn finish(changes: Vec<Change>) -> Vec<Finding> {
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

/// The section of spec `spec` titled `title`, with `policy` applied.
pub fn section(spec: String, title: String, findings: Vec<Finding>, policy: &Policy) -> Section {
    Section {
        spec,
        title,
        judged: policy.judge(findings),
        note: None,
    }
}
