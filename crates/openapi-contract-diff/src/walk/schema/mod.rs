//! Walks a BASE schema and a REVISION schema side by side, with the direction carried down, so a
//! shared component is judged at each use: the same enum growth is harmless where the client
//! sends it and breaking where it receives it.
//!
//! Cycles end at a (direction, subject, BASE pointer, REVISION pointer) already walked for this
//! operation; identical subtrees (content hash, names ignored) are skipped outright.
//!
//! The walk recurses through its submodules, which only look up to this module: `view` reads a
//! schema (`$ref`s resolved, `allOf` flattened), `keywords` compares the keywords of one level,
//! and `composition` pairs the `oneOf`/`anyOf` branches and walks each pair with the [`Walker`].

mod all_of;
mod applicators;
mod composition;
mod enums;
mod keywords;
mod view;

use std::collections::HashSet;

use crate::judge::levels::{Direction, Guard};
use crate::judge::rules::{Keyword, Rule, SchemaRule, Subject};
use crate::load::document::Doc;
use crate::walk::emitter::{Emitter, Loc};

pub use keywords::discriminator_targets;
use view::Additional;
pub use view::{Part, Schema};

/// Where in a message the walk is.
#[derive(Debug, Clone)]
pub struct At {
    pub direction: Direction,
    pub subject: Subject,
    /// What the walk started from: `request body`, `query parameter`, `response header`.
    pub root: String,
    /// Dotted property path below the root (`clusters[].status`), or the parameter name.
    pub path: String,
    /// An optional property on both sides (a client may leave it out).
    pub optional: bool,
    /// A property or parameter required on both sides: its default never applies.
    pub required: bool,
}

impl At {
    /// How messages name this place.
    pub fn label(&self) -> String {
        match (self.subject, self.path.is_empty()) {
            (Subject::Property, _) => {
                format!("{} property `{}`", self.direction.as_str(), self.path)
            }
            (_, true) => self.root.clone(),
            (_, false) => format!("{} `{}`", self.root, self.path),
        }
    }

    fn property(&self, name: &str) -> At {
        let path = if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        };
        At {
            subject: Subject::Property,
            path,
            optional: false,
            required: false,
            ..self.clone()
        }
    }

    fn suffixed(&self, suffix: &str) -> At {
        At {
            path: format!("{}{suffix}", self.path),
            ..self.clone()
        }
    }
}

/// Compares schemas for one operation.
#[derive(Debug)]
pub struct Walker<'a, 'e> {
    pub base: &'a Doc,
    pub rev: &'a Doc,
    pub out: &'e mut Emitter,
    /// A webhook: the API sends the request and the client answers.
    pub reversed: bool,
    /// The deprecation policy (for parameters).
    pub lifecycle: crate::walk::deprecation::Lifecycle,
    visited: HashSet<(Direction, Subject, String, String)>,
}

impl<'a, 'e> Walker<'a, 'e> {
    pub fn new(base: &'a Doc, rev: &'a Doc, out: &'e mut Emitter) -> Walker<'a, 'e> {
        Walker {
            base,
            rev,
            out,
            reversed: false,
            lifecycle: crate::walk::deprecation::Lifecycle::default(),
            visited: HashSet::new(),
        }
    }

    /// Who sends a message of `direction` in this operation (reversed for webhooks).
    pub fn direction(&self, direction: Direction) -> Direction {
        match (self.reversed, direction) {
            (true, Direction::Request) => Direction::Response,
            (true, Direction::Response) => Direction::Request,
            (_, d) => d,
        }
    }

    /// Compares two schemas written at the given places.
    pub fn compare(&mut self, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
        let key = (at.direction, at.subject, b.ptr.clone(), r.ptr.clone());
        if !self.visited.insert(key) || b.hash(self.base) == r.hash(self.rev) {
            return;
        }
        let (bb, rb) = (b.branches(), r.branches());
        if (bb.is_some() || rb.is_some()) && composition::compare(self, at, (b, bb), (r, rb)) {
            return; // one side is only a wrapper of alternatives: judged branch by branch
        }
        all_of::compare(self, at, b, r);
        if !keywords::compare(self.out, at, (self.base, b), (self.rev, r)) {
            // Incomparable types: nothing below means the same thing any more.
            self.out.claim(&b.ptr);
            self.out.claim(&r.ptr);
            return;
        }
        self.properties(at, b, r);
        self.undefined_required(at, b, r);
        self.additional(at, b, r);
        applicators::compare(self, at, b, r);
        if let (Some((bi, bp)), Some((ri, rp))) = (b.get("items"), r.get("items")) {
            let (bs, rs) = (
                Schema::new(self.base, bi, &bp),
                Schema::new(self.rev, ri, &rp),
            );
            self.compare(&at.suffixed("[]"), &bs, &rs);
        }
    }

    fn properties(&mut self, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
        let (bprops, rprops) = (b.properties(), r.properties());
        let (breq, rreq) = (b.required(), r.required());
        let request = at.direction == Direction::Request;
        for (name, defs) in &bprops {
            let bs = Schema::union(self.base, defs);
            let mut child = at.property(name);
            child.optional = !breq.contains(name) && !rreq.contains(name);
            child.required = breq.contains(name) && rreq.contains(name);
            let label = child.label();
            let Some(rdefs) = rprops.get(name) else {
                // Gone from REVISION.
                if (request && bs.read_only()) || (!request && bs.write_only()) {
                    self.out.claim(&defs[0].1); // never sent (received) in this direction
                    continue;
                }
                let guard = bs.deprecated().then_some(Guard::Deprecated);
                let rule = match (request, breq.contains(name)) {
                    (true, _) => Rule::RequestPropertyRemoved,
                    (false, true) => Rule::ResponseRequiredPropertyRemoved,
                    (false, false) => Rule::ResponseOptionalPropertyRemoved,
                };
                self.out.rule(
                    rule,
                    guard,
                    Loc::Base(defs[0].1.clone()),
                    name,
                    format!("{label} removed"),
                );
                continue;
            };
            let rs = Schema::union(self.rev, rdefs);
            let loc = Loc::Rev(rdefs[0].1.clone());
            let lifecycle = match (bs.deprecated(), rs.deprecated(), request) {
                (false, true, true) => Some((Rule::RequestPropertyDeprecated, "deprecated")),
                (false, true, false) => Some((Rule::ResponsePropertyDeprecated, "deprecated")),
                (true, false, true) => {
                    Some((Rule::RequestPropertyReactivated, "no longer deprecated"))
                }
                (true, false, false) => {
                    Some((Rule::ResponsePropertyReactivated, "no longer deprecated"))
                }
                _ => None,
            };
            if let Some((rule, what)) = lifecycle {
                self.out
                    .rule(rule, None, loc.clone(), name, format!("{label} {what}"));
            }
            if request {
                if bs.read_only() && rs.read_only() {
                    claim_both(self.out, defs, rdefs, &bs, &rs);
                    continue; // never sent
                }
                let moved = match (bs.write_only(), rs.write_only()) {
                    (false, true) => {
                        Some((Rule::RequestPropertyBecameWriteOnly, "became write-only"))
                    }
                    (true, false) => Some((
                        Rule::RequestPropertyBecameNotWriteOnly,
                        "is no longer write-only",
                    )),
                    _ => None,
                };
                if let Some((rule, what)) = moved {
                    self.out
                        .rule(rule, None, loc.clone(), name, format!("{label} {what}"));
                }
                match (bs.read_only(), rs.read_only()) {
                    (false, true) => self.out.rule(
                        Rule::RequestPropertyBecameReadOnly,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became read-only"),
                    ),
                    (true, false) => {
                        self.out.rule(
                            Rule::RequestPropertyBecameNotReadOnly,
                            None,
                            loc.clone(),
                            name,
                            format!("{label} is no longer read-only"),
                        );
                        // `required` never applied to it in requests; now it does.
                        if rreq.contains(name) {
                            self.out.rule(
                                Rule::RequestPropertyBecameRequired,
                                None,
                                loc.clone(),
                                name,
                                format!("{label} is no longer read-only and is required: clients must now send it"),
                            );
                        }
                    }
                    _ => {}
                }
                match (breq.contains(name), rreq.contains(name)) {
                    (false, true) if !rs.read_only() => self.out.rule(
                        Rule::RequestPropertyBecameRequired,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became required"),
                    ),
                    (true, false) => self.out.rule(
                        Rule::RequestPropertyBecameOptional,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became optional"),
                    ),
                    _ => {}
                }
            } else {
                if bs.write_only() && rs.write_only() {
                    claim_both(self.out, defs, rdefs, &bs, &rs);
                    continue; // never received
                }
                let moved = match (bs.read_only(), rs.read_only()) {
                    (false, true) => {
                        Some((Rule::ResponsePropertyBecameReadOnly, "became read-only"))
                    }
                    (true, false) => Some((
                        Rule::ResponsePropertyBecameNotReadOnly,
                        "is no longer read-only",
                    )),
                    _ => None,
                };
                if let Some((rule, what)) = moved {
                    self.out
                        .rule(rule, None, loc.clone(), name, format!("{label} {what}"));
                }
                match (bs.write_only(), rs.write_only()) {
                    (false, true) => self.out.rule(
                        Rule::ResponsePropertyBecameWriteOnly,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became write-only (no longer returned)"),
                    ),
                    (true, false) => self.out.rule(
                        Rule::ResponsePropertyBecameNotWriteOnly,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} is no longer write-only"),
                    ),
                    _ => {}
                }
                match (breq.contains(name), rreq.contains(name)) {
                    (false, true) => self.out.rule(
                        Rule::ResponsePropertyBecameRequired,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became required"),
                    ),
                    (true, false) => self.out.rule(
                        Rule::ResponsePropertyBecameOptional,
                        None,
                        loc.clone(),
                        name,
                        format!("{label} became optional"),
                    ),
                    _ => {}
                }
            }
            self.compare(&child, &bs, &rs);
        }
        for (name, defs) in &rprops {
            if bprops.contains_key(name) {
                continue;
            }
            let rs = Schema::union(self.rev, defs);
            if (request && rs.read_only()) || (!request && rs.write_only()) {
                self.out.claim(&defs[0].1);
                continue;
            }
            let label = at.property(name).label();
            let required = rreq.contains(name);
            let rule = match (request, required) {
                (true, true) => Rule::NewRequiredRequestProperty,
                (true, false) => Rule::NewOptionalRequestProperty,
                (false, true) => Rule::ResponseRequiredPropertyAdded,
                (false, false) => Rule::ResponseOptionalPropertyAdded,
            };
            let what = if required { "required" } else { "optional" };
            self.out.rule(
                rule,
                None,
                Loc::Rev(defs[0].1.clone()),
                name,
                format!("{label} added ({what})"),
            );
        }
    }

    /// Names required without a property definition on either side (`required: [id]` alone,
    /// common under `contentSchema`, `then` or `dependentSchemas`): requiredness still moves.
    fn undefined_required(&mut self, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
        let (bprops, rprops) = (b.properties(), r.properties());
        let (breq, rreq) = (b.required(), r.required());
        let request = at.direction == Direction::Request;
        for name in breq.symmetric_difference(&rreq) {
            if bprops.contains_key(name) || rprops.contains_key(name) {
                continue; // judged with the property
            }
            let now = rreq.contains(name);
            let rule = match (request, now) {
                (true, true) => Rule::RequestPropertyBecameRequired,
                (true, false) => Rule::RequestPropertyBecameOptional,
                (false, true) => Rule::ResponsePropertyBecameRequired,
                (false, false) => Rule::ResponsePropertyBecameOptional,
            };
            let loc = match (r.get("required"), b.get("required")) {
                (Some((_, p)), _) => Loc::Rev(p),
                (None, Some((_, p))) => Loc::Base(p),
                (None, None) => Loc::Rev(r.ptr.clone()),
            };
            let what = if now { "required" } else { "optional" };
            let label = at.property(name).label();
            self.out
                .rule(rule, None, loc, name, format!("{label} became {what}"));
        }
    }

    fn additional(&mut self, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
        let (ba, ra) = (b.additional(), r.additional());
        let restricted = SchemaRule::Keyword(Keyword::AdditionalPropertiesRestricted);
        let relaxed = SchemaRule::Keyword(Keyword::AdditionalPropertiesRelaxed);
        let rev_loc = || match (r.get("additionalProperties"), b.get("additionalProperties")) {
            (Some((_, p)), _) => Loc::Rev(p),
            (None, Some((_, p))) => Loc::Base(p),
            (None, None) => Loc::Rev(r.ptr.clone()),
        };
        let describe = |a: &Additional| match a {
            Additional::Any => "any",
            Additional::Never => "false",
            Additional::Schema(..) => "a schema",
        };
        let message = format!(
            "{}: additionalProperties changed from {} to {}",
            at.label(),
            describe(&ba),
            describe(&ra)
        );
        match (&ba, &ra) {
            (Additional::Any, Additional::Any) | (Additional::Never, Additional::Never) => {}
            (Additional::Schema(bv, bp), Additional::Schema(rv, rp)) => {
                let (bs, rs) = (
                    Schema::new(self.base, bv, bp),
                    Schema::new(self.rev, rv, rp),
                );
                let child = At {
                    subject: Subject::Property,
                    ..at.suffixed("{*}")
                };
                self.compare(&child, &bs, &rs);
            }
            (Additional::Any, _) | (Additional::Schema(..), Additional::Never) => self.out.schema(
                restricted,
                at.direction,
                at.subject,
                None,
                rev_loc(),
                "additionalProperties",
                message,
            ),
            (Additional::Never, _) | (Additional::Schema(..), Additional::Any) => self.out.schema(
                relaxed,
                at.direction,
                at.subject,
                None,
                rev_loc(),
                "additionalProperties",
                message,
            ),
        }
    }
}

/// Claims a property on both sides, where it is used and where its schema is: one that is never
/// sent (or never received) in this direction constrains nothing there.
fn claim_both(
    out: &mut Emitter,
    bdefs: &[(&serde_json::Value, String)],
    rdefs: &[(&serde_json::Value, String)],
    bs: &Schema,
    rs: &Schema,
) {
    for (_, ptr) in bdefs.iter().chain(rdefs) {
        out.claim(ptr);
    }
    out.claim(&bs.ptr);
    out.claim(&rs.ptr);
}
