//! The values a schema allows by listing them: `enum` (and 3.1 `const`, an enum of one value)
//! and the `x-extensible-enum` lists of Zalando's guidelines. Part of the keyword comparison
//! of one schema level ([`Keywords`]).

use serde_json::Value;

use super::keywords::Keywords;
use crate::judge::levels::{Direction, Guard};
use crate::judge::rules::{Keyword, SchemaRule};
use crate::walk::emitter::Loc;

impl<'a> Keywords<'_, 'a> {
    pub(super) fn enums(&mut self) {
        let (be, re) = (self.b.enum_values(), self.r.enum_values());
        match (be, re) {
            (None, None) => {}
            // A 3.1 `const` is an enum of one value, with oasdiff's own ids.
            (None, Some((values, ptr))) if self.r.is_const() => {
                let what = format!("const {} set", list(&values));
                self.emit(Keyword::ConstAdded, Loc::Rev(ptr), "const", what);
            }
            (Some((values, ptr)), None) if self.b.is_const() => {
                let what = format!("const {} removed (any value allowed)", list(&values));
                self.emit(Keyword::ConstRemoved, Loc::Base(ptr), "const", what);
            }
            (Some((bv, _)), Some((rv, ptr))) if self.b.is_const() && self.r.is_const() => {
                if bv != rv {
                    let what = format!("const changed from {} to {}", list(&bv), list(&rv));
                    self.emit(Keyword::ConstChanged, Loc::Rev(ptr), "const", what);
                }
            }
            (None, Some((values, ptr))) => {
                let what = format!("became an enum of {}", list(&values));
                self.emit(Keyword::BecameEnum, Loc::Rev(ptr), "enum", what);
            }
            (Some((values, ptr)), None) => {
                let what = format!("enum of {} removed (any value allowed)", list(&values));
                self.emit(Keyword::EnumRemoved, Loc::Base(ptr), "enum", what);
            }
            (Some((bv, bp)), Some((rv, rp))) => {
                // A `const` side has no list: its value is at the keyword itself.
                let item = |ptr: &str, is_const: bool, i: usize| {
                    if is_const {
                        ptr.to_string()
                    } else {
                        format!("{ptr}/{i}")
                    }
                };
                let (bc, rc) = (self.b.is_const(), self.r.is_const());
                for (i, value) in rv.iter().enumerate() {
                    if !bv.contains(value) {
                        self.enum_added(value, item(&rp, rc, i));
                    }
                }
                for (i, value) in bv.iter().enumerate() {
                    if !rv.contains(value) {
                        let what = format!("enum value {value} removed");
                        self.emit(
                            Keyword::EnumValueRemoved,
                            Loc::Base(item(&bp, bc, i)),
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
    /// `x-extensible-enum: [..]` lists the values known today and promises more: removing one
    /// narrows what a client may send, adding one is what the marker announced.
    pub(super) fn extensible_enum(&mut self) {
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
}

fn list(values: &[&Value]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(|v| v.to_string()).collect();
    let more = if values.len() > 8 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}
