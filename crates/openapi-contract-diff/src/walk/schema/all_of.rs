//! `allOf` members added or removed. The walk reads `allOf` flattened (so wrapping a `$ref` in
//! a one-member `allOf` is no change), which reports what a new member's properties and
//! keywords change; this module adds the member itself as a fact: a conjunction gaining a
//! member narrows (it breaks senders), losing one widens (it breaks receivers).
//!
//! Members pair by content, then by component name. Members that only document (every key an
//! annotation) are left out, as oasdiff's `…-annotation-only` checks judge them harmless.

use serde_json::Value;

use super::{At, Schema, Walker};
use crate::judge::rules::{Keyword, SchemaRule};
use crate::load::document::{Doc, ref_name};
use crate::load::key_context::Ctx;
use crate::walk::emitter::Loc;

/// A way of deciding that two members are the same member.
type Pass<'p> = &'p dyn Fn(&Member, &Member) -> bool;

struct Member<'a> {
    raw: &'a Value,
    ptr: String,
    hash: u64,
}

/// The `allOf` members of the schema's first part (nested ones are judged where they are).
fn members<'a>(doc: &'a Doc, s: &Schema<'a>) -> Option<Vec<Member<'a>>> {
    let part = s.parts.first()?;
    let list = part.node.get("allOf")?.as_array()?;
    let members = list
        .iter()
        .enumerate()
        .filter(|(_, raw)| !annotation_only(doc, raw))
        .map(|(i, raw)| Member {
            raw,
            ptr: format!("{}/allOf/{i}", part.ptr),
            hash: doc.hash(raw),
        })
        .collect();
    Some(members)
}

fn annotation_only(doc: &Doc, raw: &Value) -> bool {
    let (node, _) = doc.resolve(raw, "");
    node.as_object()
        .is_some_and(|m| m.keys().all(|k| Ctx::Keywords.is_annotation(k)))
}

/// Reports the members added to and removed from the `allOf` of `b` → `r`.
pub fn compare<'a>(w: &mut Walker<'a, '_>, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
    let (base, rev) = (w.base, w.rev);
    let (mut bl, mut rl) = match (members(base, b), members(rev, r)) {
        (None, None) => return,
        (Some(bl), Some(rl)) => (bl, rl),
        // One side became (or stopped being) a conjunction: the member equal to the other
        // side is the wrapped schema; without one, the schema was split or merged and the
        // flattened walk says what changed.
        (None, Some(mut rl)) => {
            let whole = b.hash(base);
            let Some(i) = rl.iter().position(|m| m.hash == whole) else {
                return;
            };
            rl.remove(i);
            (Vec::new(), rl)
        }
        (Some(mut bl), None) => {
            let whole = r.hash(rev);
            let Some(i) = bl.iter().position(|m| m.hash == whole) else {
                return;
            };
            bl.remove(i);
            (bl, Vec::new())
        }
    };
    let passes: [Pass; 2] = [
        &|x, y| x.hash == y.hash,
        &|x, y| matches!((ref_name(x.raw), ref_name(y.raw)), (Some(a), Some(b)) if a == b),
    ];
    for pass in passes {
        bl.retain(|m| match rl.iter().position(|n| pass(m, n)) {
            Some(i) => {
                rl.remove(i);
                false
            }
            None => true,
        });
    }
    for (list, rule, what) in [
        (bl, Keyword::AllOfRemoved, "removed"),
        (rl, Keyword::AllOfAdded, "added"),
    ] {
        for m in list {
            let name = ref_name(m.raw).map_or_else(
                || format!("#{}", m.ptr.rsplit('/').next().unwrap_or_default()),
                |n| format!("`{n}`"),
            );
            let loc = if rule == Keyword::AllOfAdded {
                Loc::Rev(m.ptr)
            } else {
                Loc::Base(m.ptr)
            };
            let message = format!("{}: allOf member {name} {what}", at.label());
            w.out.schema(
                SchemaRule::Keyword(rule),
                at.direction,
                at.subject,
                None,
                loc,
                &name,
                message,
            );
        }
    }
}
