//! `oneOf`/`anyOf`: pair the branches of both sides, compare paired ones, report the rest.
//!
//! Branches pair by content first (so a branch moved from `$ref` to inline, or renamed, is the
//! same branch: oasdiff's `--match-inline-refs`), then by component name, then by title, then a
//! lone leftover on each side, then by shape (same type, mostly the same property names).
//! A plain schema facing a composition is read as a one-branch composition, so wrapping a body
//! in `oneOf` reports only the branches that were added.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{At, Schema, Walker};
use crate::judge::rules::{Keyword, SchemaRule};
use crate::load::document::ref_name;
use crate::walk::emitter::Loc;

type Branches<'a> = Option<(&'static str, Vec<(&'a Value, String)>)>;

/// A way of deciding that two branches are the same branch.
type Pass<'p> = &'p dyn Fn(&Branch, &Branch) -> bool;

struct Branch<'a> {
    schema: Schema<'a>,
    /// The value as written (a `$ref` or inline), for names.
    raw: Option<&'a Value>,
    ptr: String,
}

/// Compares the compositions of `b` and `r`. Returns true when one side was a pure composition
/// facing a plain schema: that comparison already covered the whole schema.
pub fn compare<'a>(
    w: &mut Walker<'a, '_>,
    at: &At,
    (b, bb): (&Schema<'a>, Branches<'a>),
    (r, rb): (&Schema<'a>, Branches<'a>),
) -> bool {
    let to_branches = |doc, list: Vec<(&'a Value, String)>| -> Vec<Branch<'a>> {
        list.into_iter()
            .map(|(v, p)| Branch {
                schema: Schema::new(doc, v, &p),
                raw: Some(v),
                ptr: p,
            })
            .collect()
    };
    let plain = |s: &Schema<'a>| Branch {
        schema: s.clone(),
        raw: None,
        ptr: s.ptr.clone(),
    };
    let (base, rev) = (w.base, w.rev);
    match (bb, rb) {
        (Some((bk, bl)), Some((rk, rl))) => {
            if bk != rk {
                let rule = if rk == "anyOf" {
                    Keyword::OneOfBecameAnyOf
                } else {
                    Keyword::AnyOfBecameOneOf
                };
                let loc = Loc::Rev(rl.first().map(|(_, p)| parent(p)).unwrap_or_default());
                w.out.schema(
                    SchemaRule::Keyword(rule),
                    at.direction,
                    at.subject,
                    None,
                    loc,
                    rk,
                    format!("{}: {bk} became {rk}", at.label()),
                );
            }
            pair(w, at, rk, to_branches(base, bl), to_branches(rev, rl));
            false
        }
        // Alternatives added to (or dropped from) a schema that has its own structure: the
        // schema gains (or loses) a constraint, it is not a choice between shapes.
        (Some((bk, bl)), None) if b.has_structure() && r.has_structure() => {
            let rule = if bk == "anyOf" {
                Keyword::AnyOfConstraintRemoved
            } else {
                Keyword::OneOfConstraintRemoved
            };
            let loc = Loc::Base(parent(&bl[0].1));
            let message = format!(
                "{}: {bk} constraint with {} branches removed",
                at.label(),
                bl.len()
            );
            w.out.schema(
                SchemaRule::Keyword(rule),
                at.direction,
                at.subject,
                None,
                loc,
                bk,
                message,
            );
            false
        }
        (None, Some((rk, rl))) if b.has_structure() && r.has_structure() => {
            let rule = if rk == "anyOf" {
                Keyword::AnyOfConstraintAdded
            } else {
                Keyword::OneOfConstraintAdded
            };
            let loc = Loc::Rev(parent(&rl[0].1));
            let message = format!(
                "{}: {rk} constraint with {} branches added",
                at.label(),
                rl.len()
            );
            w.out.schema(
                SchemaRule::Keyword(rule),
                at.direction,
                at.subject,
                None,
                loc,
                rk,
                message,
            );
            false
        }
        (Some((bk, bl)), None) => {
            pair(w, at, bk, to_branches(base, bl), vec![plain(r)]);
            !b.has_structure()
        }
        (None, Some((rk, rl))) => {
            pair(w, at, rk, vec![plain(b)], to_branches(rev, rl));
            !r.has_structure()
        }
        (None, None) => false,
    }
}

/// `…/oneOf/2` → `…/oneOf`: the keyword a branch belongs to.
fn parent(ptr: &str) -> String {
    ptr.rsplit_once('/')
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}

fn pair<'a>(
    w: &mut Walker<'a, '_>,
    at: &At,
    kind: &str,
    mut bl: Vec<Branch<'a>>,
    mut rl: Vec<Branch<'a>>,
) {
    let (base, rev) = (w.base, w.rev);
    let mut matched: Vec<(Branch<'a>, Branch<'a>)> = Vec::new();
    // Passes from the most to the least certain; each removes what it pairs.
    let same_content = |b: &Branch, r: &Branch| b.schema.hash(base) == r.schema.hash(rev);
    let same_name = |b: &Branch, r: &Branch| matches!((b.raw.and_then(ref_name), r.raw.and_then(ref_name)), (Some(x), Some(y)) if x == y);
    let same_title = |b: &Branch, r: &Branch| {
        let title = |s: &Schema| {
            s.get("title")
                .and_then(|(v, _)| v.as_str().map(str::to_string))
        };
        matches!((title(&b.schema), title(&r.schema)), (Some(x), Some(y)) if x == y)
    };
    let similar = |b: &Branch, r: &Branch| similarity(&b.schema, &r.schema) >= 1.5;
    let passes: [Pass; 4] = [&same_content, &same_name, &same_title, &similar];
    for (i, pass) in passes.iter().enumerate() {
        // A lone leftover on each side is the same branch, unless both are components with
        // different names (a variant replaced by another, not edited).
        let renamed = |b: &Branch, r: &Branch| matches!((b.raw.and_then(ref_name), r.raw.and_then(ref_name)), (Some(x), Some(y)) if x != y);
        if i == 3 && bl.len() == 1 && rl.len() == 1 && !renamed(&bl[0], &rl[0]) {
            matched.push((bl.remove(0), rl.remove(0)));
            break;
        }
        let mut bi = 0;
        while bi < bl.len() {
            if let Some(ri) = rl.iter().position(|r| pass(&bl[bi], r)) {
                matched.push((bl.remove(bi), rl.remove(ri)));
            } else {
                bi += 1;
            }
        }
    }
    for (b, r) in &matched {
        w.compare(at, &b.schema, &r.schema);
    }
    let (added, removed) = if kind == "anyOf" {
        (Keyword::AnyOfAdded, Keyword::AnyOfRemoved)
    } else {
        (Keyword::OneOfAdded, Keyword::OneOfRemoved)
    };
    for b in bl {
        let name = branch_name(&b);
        let message = format!("{}: {kind} branch {name} removed", at.label());
        w.out.schema(
            SchemaRule::Keyword(removed),
            at.direction,
            at.subject,
            None,
            Loc::Base(b.ptr),
            &name,
            message,
        );
    }
    for r in rl {
        let name = branch_name(&r);
        let message = format!("{}: {kind} branch {name} added", at.label());
        w.out.schema(
            SchemaRule::Keyword(added),
            at.direction,
            at.subject,
            None,
            Loc::Rev(r.ptr),
            &name,
            message,
        );
    }
}

fn branch_name(b: &Branch) -> String {
    if let Some(name) = b.raw.and_then(ref_name) {
        return format!("`{name}`");
    }
    if let Some((Value::String(t), _)) = b.schema.get("title") {
        return format!("`{t}`");
    }
    let index = b.ptr.rsplit('/').next().unwrap_or_default();
    match b.schema.type_name() {
        Some(t) => format!("#{index} ({t})"),
        None => format!("#{index}"),
    }
}

/// 1 for the same type, plus the Jaccard index of the property names (1 when neither has any).
fn similarity(b: &Schema, r: &Schema) -> f64 {
    let same_type = f64::from(u8::from(b.type_name() == r.type_name()));
    let bp: BTreeSet<&str> = b.properties().into_keys().collect();
    let rp: BTreeSet<&str> = r.properties().into_keys().collect();
    let union = bp.union(&rp).count();
    let jaccard = if union == 0 {
        1.0
    } else {
        bp.intersection(&rp).count() as f64 / union as f64
    };
    same_type + jaccard
}
