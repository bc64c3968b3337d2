//! The keywords of one schema level: type, format, nullable, enum, default, bounds, pattern,
//! multipleOf, uniqueItems, discriminator. Each comparison states a fact and its effect; the
//! level table decides what it means for the direction.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{At, Schema};
use crate::judge::levels::{Direction, Guard};
use crate::judge::rules::{Bound, BoundChange, Keyword, SchemaRule};
use crate::load::document::Doc;
use crate::walk::emitter::{Emitter, Loc};

/// Compares the keywords of `b` and `r`. Returns false when their types are incomparable, so
/// the caller stops descending.
pub fn compare(
    out: &mut Emitter,
    at: &At,
    (base, b): (&Doc, &Schema),
    (rev, r): (&Doc, &Schema),
) -> bool {
    let mut k = Keywords {
        out,
        at,
        b,
        r,
        base,
        rev,
    };
    if !k.types() {
        // The values listed change too, and a client reads both (oasdiff reports only the type).
        k.enums();
        return false;
    }
    k.nullable();
    k.format();
    k.enums();
    k.extensible_enum();
    k.default();
    for bound in Bound::ALL {
        k.bound(bound);
    }
    k.multiple_of();
    k.unique_items();
    k.pattern();
    k.discriminator();
    true
}

pub(super) struct Keywords<'x, 'a> {
    pub(super) out: &'x mut Emitter,
    pub(super) at: &'x At,
    pub(super) b: &'x Schema<'a>,
    pub(super) r: &'x Schema<'a>,
    /// The documents, to read the schemas a discriminator's mapping selects.
    base: &'x Doc,
    rev: &'x Doc,
}

/// What each value of a discriminator's `mapping` selects: the content hash of the schema it
/// names (`#/components/schemas/Cat`, or the bare name `Cat`), so a schema renamed together
/// with its mapping, same content, selects the same thing; the text as written where it names
/// nothing in the document.
pub fn discriminator_targets(doc: &Doc, discriminator: &Value) -> BTreeMap<String, String> {
    let mapping = discriminator.get("mapping").and_then(Value::as_object);
    mapping
        .into_iter()
        .flatten()
        .map(|(key, target)| {
            let text = target.as_str().unwrap_or_default();
            let ptr = match text.strip_prefix('#') {
                Some(ptr) => ptr.to_string(),
                None if !text.contains('/') => {
                    format!("/components/schemas/{}", crate::load::pointer::escape(text))
                }
                None => String::new(),
            };
            let selected = doc
                .at(&ptr)
                .filter(|_| !ptr.is_empty())
                .map_or_else(|| text.to_string(), |(v, _)| format!("#{}", doc.hash(v)));
            (key.clone(), selected)
        })
        .collect()
}

impl<'a> Keywords<'_, 'a> {
    pub(super) fn emit(&mut self, rule: Keyword, loc: Loc, detail: &str, what: String) {
        self.emit_guarded(SchemaRule::Keyword(rule), None, loc, detail, what);
    }

    pub(super) fn emit_guarded(
        &mut self,
        rule: SchemaRule,
        guard: Option<Guard>,
        loc: Loc,
        detail: &str,
        what: String,
    ) {
        let message = format!("{}: {what}", self.at.label());
        self.out.schema(
            rule,
            self.at.direction,
            self.at.subject,
            guard,
            loc,
            detail,
            message,
        );
    }

    /// Where REVISION has `key`, else where BASE had it, else the schema itself.
    fn loc(&self, key: &str) -> Loc {
        match (self.r.get(key), self.b.get(key)) {
            (Some((_, p)), _) => Loc::Rev(p),
            (None, Some((_, p))) => Loc::Base(p),
            (None, None) => Loc::Rev(self.r.ptr.clone()),
        }
    }

    fn types(&mut self) -> bool {
        if self.b.branches().is_some() || self.r.branches().is_some() {
            return true;
        }
        if let Some(comparable) = self.type_lists() {
            return comparable;
        }
        let (bt, rt) = (self.b.type_name(), self.r.type_name());
        // A response header is text on the wire: a client that read a string still reads the
        // digits or `true` it now gets, so string → integer there narrows (oasdiff's finer rule).
        let header_text = self.at.subject == crate::judge::rules::Subject::Header
            && self.at.direction == Direction::Response;
        let scalar = |t: Option<&str>| matches!(t, Some("integer" | "number" | "boolean"));
        let rule = match (bt, rt) {
            (x, y) if x == y => return true,
            (Some("string"), y) if header_text && scalar(y) => Keyword::TypeSpecialized,
            (x, Some("string")) if header_text && scalar(x) => Keyword::TypeGeneralized,
            (Some("integer"), Some("number")) | (Some(_), None) => Keyword::TypeGeneralized,
            (Some("number"), Some("integer")) | (None, Some(_)) => Keyword::TypeSpecialized,
            _ => Keyword::TypeChanged,
        };
        let show = |t: Option<&str>| t.unwrap_or("any").to_string();
        let what = format!("type changed from {} to {}", show(bt), show(rt));
        let loc = self.loc("type");
        self.emit(rule, loc, "type", what);
        rule != Keyword::TypeChanged
    }

    /// A 3.1 list of types on either side, compared as sets: a superset widens, a subset
    /// narrows, anything else is a type change. `None` when neither side has a list.
    fn type_lists(&mut self) -> Option<bool> {
        let list = |s: &Schema| matches!(s.get("type"), Some((Value::Array(_), _)));
        if !list(self.b) && !list(self.r) {
            return None;
        }
        let (Some(bt), Some(rt)) = (self.b.types(), self.r.types()) else {
            return None; // one side has no type: the single-type rules say it
        };
        let rule = if bt == rt {
            return Some(true);
        } else if bt.is_subset(&rt) {
            Keyword::ListOfTypesWidened
        } else if rt.is_subset(&bt) {
            Keyword::ListOfTypesNarrowed
        } else {
            Keyword::TypeChanged
        };
        let show = |t: &std::collections::BTreeSet<&str>| format!("{t:?}");
        let what = format!("types changed from {} to {}", show(&bt), show(&rt));
        let loc = self.loc("type");
        self.emit(rule, loc, "type", what);
        Some(rule != Keyword::TypeChanged)
    }

    fn nullable(&mut self) {
        let rule = match (self.b.nullable(), self.r.nullable()) {
            (false, true) => Keyword::BecameNullable,
            (true, false) => Keyword::BecameNotNullable,
            _ => return,
        };
        let omittable = rule == Keyword::BecameNotNullable && self.at.optional;
        let mut what = rule.slug().replace('-', " ");
        if omittable && self.at.direction == Direction::Request {
            what.push_str(" (optional: clients that omit it rather than send null are unaffected)");
        }
        let loc = self.loc("nullable");
        let guard = omittable.then_some(Guard::Omittable);
        self.emit_guarded(SchemaRule::Keyword(rule), guard, loc, "nullable", what);
    }

    fn format(&mut self) {
        let (bf, rf) = (self.b.format(), self.r.format());
        let rule = match (bf, rf) {
            (x, y) if x == y => return,
            (None, Some(_)) => Keyword::FormatSet,
            (Some(_), None) => Keyword::FormatRemoved,
            (Some("int32"), Some("int64")) | (Some("float"), Some("double")) => {
                Keyword::FormatGeneralized
            }
            (Some("int64"), Some("int32")) | (Some("double"), Some("float")) => {
                Keyword::FormatSpecialized
            }
            _ => Keyword::FormatChanged,
        };
        let what = format!(
            "format changed from {} to {}",
            bf.unwrap_or("none"),
            rf.unwrap_or("none")
        );
        let loc = self.loc("format");
        self.emit(rule, loc, "format", what);
    }

    fn default(&mut self) {
        if self.at.required {
            for s in [self.b, self.r] {
                if let Some((_, p)) = s.get("default") {
                    self.out.claim(&p);
                }
            }
            return;
        }
        let (bd, rd) = (self.b.get("default"), self.r.get("default"));
        match (bd, rd) {
            (Some((x, _)), Some((y, p))) if x != y => {
                self.emit(
                    Keyword::DefaultValueChanged,
                    Loc::Rev(p),
                    "default",
                    format!("default changed from {x} to {y}"),
                );
            }
            (None, Some((y, p))) => self.emit(
                Keyword::DefaultValueSet,
                Loc::Rev(p),
                "default",
                format!("default {y} set"),
            ),
            (Some((x, p)), None) => {
                self.emit(
                    Keyword::DefaultValueRemoved,
                    Loc::Base(p),
                    "default",
                    format!("default {x} removed"),
                );
            }
            _ => {}
        }
    }

    fn bound(&mut self, bound: Bound) {
        let key = bound.keyword();
        let upper = bound.is_upper();
        let (bb, rb) = (self.b.bound(key, upper), self.r.bound(key, upper));
        let show = |v: f64, exclusive: bool| {
            let n = if v.fract() == 0.0 {
                format!("{}", v as i64)
            } else {
                v.to_string()
            };
            if exclusive {
                format!("{n} (exclusive)")
            } else {
                n
            }
        };
        let (change, loc, what) = match (bb, rb) {
            (None, None) => return,
            (None, Some((v, e, p))) => (
                BoundChange::Set,
                Loc::Rev(p),
                format!("{key} {} set", show(v, e)),
            ),
            (Some((v, e, p)), None) => (
                BoundChange::Removed,
                Loc::Base(p),
                format!("{key} {} removed", show(v, e)),
            ),
            (Some((bv, be, _)), Some((rv, re, p))) => {
                // An exclusive bound is a hair stricter than the inclusive one at the same value.
                let tighter = |v: f64, e: bool| if upper { (v, !e) } else { (-v, !e) };
                let (bt, rt) = (tighter(bv, be), tighter(rv, re));
                if bt == rt {
                    return;
                }
                let narrowed = rt < bt;
                let change = match (narrowed, upper) {
                    (true, true) | (false, false) => BoundChange::Decreased,
                    (true, false) | (false, true) => BoundChange::Increased,
                };
                (
                    change,
                    Loc::Rev(p),
                    format!("{key} changed from {} to {}", show(bv, be), show(rv, re)),
                )
            }
        };
        self.emit_guarded(SchemaRule::Bound(bound, change), None, loc, key, what);
    }

    fn multiple_of(&mut self) {
        let (bm, rm) = (self.b.get("multipleOf"), self.r.get("multipleOf"));
        let (rule, loc, what) = match (bm, rm) {
            (Some((x, _)), Some((y, p))) if x != y => (
                Keyword::MultipleOfChanged,
                Loc::Rev(p),
                format!("multipleOf changed from {x} to {y}"),
            ),
            (None, Some((y, p))) => (
                Keyword::MultipleOfSet,
                Loc::Rev(p),
                format!("multipleOf {y} set"),
            ),
            (Some((x, p)), None) => (
                Keyword::MultipleOfRemoved,
                Loc::Base(p),
                format!("multipleOf {x} removed"),
            ),
            _ => return,
        };
        self.emit(rule, loc, "multipleOf", what);
    }

    fn unique_items(&mut self) {
        let flag = |s: &Schema| {
            s.get("uniqueItems")
                .and_then(|(v, _)| v.as_bool())
                .unwrap_or(false)
        };
        let rule = match (flag(self.b), flag(self.r)) {
            (false, true) => Keyword::UniqueItemsSet,
            (true, false) => Keyword::UniqueItemsRemoved,
            _ => return,
        };
        let loc = self.loc("uniqueItems");
        self.emit(rule, loc, "uniqueItems", rule.slug().replace('-', " "));
    }

    /// A pattern that matches every string (`""`, `.*`) constrains nothing: setting it is no
    /// change, and replacing a real pattern by it removes the pattern.
    fn pattern(&mut self) {
        let (bp, rp) = (self.b.pattern(), self.r.pattern());
        let (rule, loc, what) = match (bp, rp) {
            (Some((x, _)), Some((y, p))) if x != y => (
                Keyword::PatternChanged,
                Loc::Rev(p),
                format!("pattern changed from {x} to {y}"),
            ),
            (None, Some((y, p))) => (Keyword::PatternSet, Loc::Rev(p), format!("pattern {y} set")),
            (Some((x, p)), None) => (
                Keyword::PatternRemoved,
                Loc::Base(p),
                format!("pattern {x} removed"),
            ),
            _ => return,
        };
        self.emit(rule, loc, "pattern", what);
    }

    /// The discriminator picks the variant a message decodes to: its property renamed or a
    /// value mapped elsewhere sends messages to other variants (incomparable), a value mapped
    /// anew is one more a reader must know (widening), one unmapped is one less (narrowing);
    /// a discriminator added or removed changes how variants are chosen (unknown).
    fn discriminator(&mut self) {
        let (bd, rd) = (self.b.get("discriminator"), self.r.get("discriminator"));
        let (bd, rd) = match (bd, rd) {
            (None, None) => return,
            (None, Some((_, p))) => {
                let what = "discriminator added".to_string();
                return self.emit(
                    Keyword::DiscriminatorAdded,
                    Loc::Rev(p),
                    "discriminator",
                    what,
                );
            }
            (Some((_, p)), None) => {
                let what = "discriminator removed".to_string();
                return self.emit(
                    Keyword::DiscriminatorRemoved,
                    Loc::Base(p),
                    "discriminator",
                    what,
                );
            }
            (Some(b), Some(r)) => (b, r),
        };
        let name = |v: &Value| {
            v.get("propertyName")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        if let (Some(x), Some(y)) = (name(bd.0), name(rd.0))
            && x != y
        {
            self.emit(
                Keyword::DiscriminatorChanged,
                Loc::Rev(rd.1.clone()),
                "discriminator",
                format!("discriminator property changed from `{x}` to `{y}`"),
            );
        }
        let mapping = |v: &Value| {
            v.get("mapping")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let (bm, rm) = (mapping(bd.0), mapping(rd.0));
        // Compared by the schema each value selects, not by the name it is written with.
        let (bsel, rsel) = (
            discriminator_targets(self.base, bd.0),
            discriminator_targets(self.rev, rd.0),
        );
        let at =
            |ptr: &str, key: &str| format!("{ptr}/mapping/{}", crate::load::pointer::escape(key));
        for (key, target) in &rm {
            let (rule, what) = match bm.get(key) {
                None => (
                    Keyword::DiscriminatorMappingAdded,
                    format!("discriminator value `{key}` mapped to {target}"),
                ),
                // Another name that selects a schema of the same content is the same variant.
                Some(old) if old != target && bsel.get(key) != rsel.get(key) => (
                    Keyword::DiscriminatorMappingChanged,
                    format!("discriminator value `{key}` now maps to {target} (was {old})"),
                ),
                Some(_) => continue,
            };
            self.emit(rule, Loc::Rev(at(&rd.1, key)), key, what);
        }
        for key in bm.keys().filter(|k| !rm.contains_key(*k)) {
            let what = format!("discriminator value `{key}` no longer mapped");
            self.emit(
                Keyword::DiscriminatorMappingDeleted,
                Loc::Base(at(&bd.1, key)),
                key,
                what,
            );
        }
    }
}
