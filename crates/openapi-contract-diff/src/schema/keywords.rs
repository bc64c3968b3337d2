//! The keywords of one schema level: type, format, nullable, enum, default, bounds, pattern,
//! multipleOf, uniqueItems, discriminator. Each comparison states a fact and its effect; the
//! level table decides what it means for the direction.

use serde_json::Value;

use super::{At, Schema};
use crate::emit::{Emitter, Loc};
use crate::finding::{Direction, Guard};
use crate::rules::{Bound, BoundChange, Keyword, SchemaRule};

/// Compares the keywords of `b` and `r`. Returns false when their types are incomparable, so
/// the caller stops descending.
pub fn compare(out: &mut Emitter, at: &At, b: &Schema, r: &Schema) -> bool {
    let mut k = Keywords { out, at, b, r };
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

struct Keywords<'x, 'a> {
    out: &'x mut Emitter,
    at: &'x At,
    b: &'x Schema<'a>,
    r: &'x Schema<'a>,
}

impl<'a> Keywords<'_, 'a> {
    fn emit(&mut self, rule: Keyword, loc: Loc, detail: &str, what: String) {
        self.emit_guarded(SchemaRule::Keyword(rule), None, loc, detail, what);
    }

    fn emit_guarded(
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
        let (bt, rt) = (self.b.type_name(), self.r.type_name());
        // A response header is text on the wire: a client that read a string still reads the
        // digits or `true` it now gets, so string → integer there narrows (oasdiff's finer rule).
        let header_text = self.at.subject == crate::rules::Subject::Header
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

    fn enums(&mut self) {
        let (be, re) = (self.b.enum_values(), self.r.enum_values());
        match (be, re) {
            (None, None) => {}
            (None, Some((values, ptr))) => {
                let what = format!("became an enum of {}", list(&values));
                self.emit(Keyword::BecameEnum, Loc::Rev(ptr), "enum", what);
            }
            (Some((values, ptr)), None) => {
                let what = format!("enum of {} removed (any value allowed)", list(&values));
                self.emit(Keyword::EnumRemoved, Loc::Base(ptr), "enum", what);
            }
            (Some((bv, bp)), Some((rv, rp))) => {
                for (i, value) in rv.iter().enumerate() {
                    if !bv.contains(value) {
                        self.enum_added(value, format!("{rp}/{i}"));
                    }
                }
                for (i, value) in bv.iter().enumerate() {
                    if !rv.contains(value) {
                        let what = format!("enum value {value} removed");
                        self.emit(
                            Keyword::EnumValueRemoved,
                            Loc::Base(format!("{bp}/{i}")),
                            &value.to_string(),
                            what,
                        );
                    }
                }
            }
        }
    }

    /// The one exception in the level table: a received enum that grows is WARN when the Rust
    /// clients generated from BASE (the ones users run) keep unknown values.
    fn enum_added(&mut self, value: &Value, ptr: String) {
        let open = self.at.direction == Direction::Response && self.b.open_enum();
        let note = match (self.at.direction, open) {
            (Direction::Response, true) => {
                "; the generated Rust enum is open (`Unknown(..)` keeps it), strict clients of other generators break"
            }
            (Direction::Response, false) => {
                "; this enum is inline, so the generated Rust enum is closed and decoding fails"
            }
            _ => "",
        };
        let what = format!("enum value {value} added{note}");
        let guard = open.then_some(Guard::OpenEnum);
        self.emit_guarded(
            SchemaRule::Keyword(Keyword::EnumValueAdded),
            guard,
            Loc::Rev(ptr),
            &value.to_string(),
            what,
        );
    }

    /// A default on something required on both sides never applies (oasdiff's finer rule).
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

    /// `x-extensible-enum: [..]` lists the values known today and promises more: removing one
    /// narrows what a client may send, adding one is what the marker announced.
    fn extensible_enum(&mut self) {
        let list = |found: Option<(&'a Value, String)>| {
            found.and_then(|(v, p)| v.as_array().map(|a| (a, p)))
        };
        let (b, r) = (
            self.b.get("x-extensible-enum"),
            self.r.get("x-extensible-enum"),
        );
        let (Some((bv, bp)), Some((rv, rp))) = (list(b), list(r)) else {
            return;
        };
        for (i, value) in rv.iter().enumerate() {
            if !bv.contains(value) {
                let what = format!("x-extensible-enum value {value} added");
                let loc = Loc::Rev(format!("{rp}/{i}"));
                self.emit(
                    Keyword::XExtensibleEnumValueAdded,
                    loc,
                    &value.to_string(),
                    what,
                );
            }
        }
        for (i, value) in bv.iter().enumerate() {
            if !rv.contains(value) {
                let what = format!("x-extensible-enum value {value} removed");
                let loc = Loc::Base(format!("{bp}/{i}"));
                self.emit(
                    Keyword::XExtensibleEnumValueRemoved,
                    loc,
                    &value.to_string(),
                    what,
                );
            }
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

    fn discriminator(&mut self) {
        let name = |s: &Schema| {
            s.get("discriminator").and_then(|(v, _)| {
                v.get("propertyName")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
        };
        if let (Some(x), Some(y)) = (name(self.b), name(self.r))
            && x != y
        {
            let loc = self.loc("discriminator");
            self.emit(
                Keyword::DiscriminatorChanged,
                loc,
                "discriminator",
                format!("discriminator property changed from `{x}` to `{y}`"),
            );
        }
    }
}

fn list(values: &[&Value]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(|v| v.to_string()).collect();
    let more = if values.len() > 8 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}
