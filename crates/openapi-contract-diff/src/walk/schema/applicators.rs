//! The JSON Schema 2020-12 keywords OpenAPI 3.1 brings (and `not`), judged by direction like
//! every other keyword: a sub-schema added constrains (narrows), one removed releases (widens),
//! and where both sides have one it is walked, so changes deep inside `contains`, `then`,
//! `propertyNames`, `dependentSchemas`, `patternProperties`, `prefixItems`, `contentSchema` or
//! `unevaluated*` are found with the direction they travel in. `if` and `not` change the
//! meaning of what they hold (a narrower `if` can widen; a narrower `not` widens), so a change
//! inside them is judged as a whole: unknown (WARN).

use serde_json::{Map, Value};

use super::{At, Schema, Walker};
use crate::judge::rules::{Keyword, SchemaRule, Subject};
use crate::load::key_context::Ctx;
use crate::load::pointer;
use crate::walk::emitter::Loc;

/// How a one-sub-schema keyword is judged.
struct One {
    key: &'static str,
    added: Keyword,
    removed: Keyword,
    /// `Some(rule)`: a change inside is judged as a whole; `None`: it is walked.
    changed: Option<Keyword>,
    /// `true` and `{}` allow everything, the same as no keyword.
    empty_is_absent: bool,
}

const ONE: [One; 9] = [
    One {
        key: "contains",
        added: Keyword::ContainsAdded,
        removed: Keyword::ContainsRemoved,
        changed: None,
        empty_is_absent: false,
    },
    One {
        key: "then",
        added: Keyword::ThenAdded,
        removed: Keyword::ThenRemoved,
        changed: None,
        empty_is_absent: true,
    },
    One {
        key: "else",
        added: Keyword::ElseAdded,
        removed: Keyword::ElseRemoved,
        changed: None,
        empty_is_absent: true,
    },
    One {
        key: "if",
        added: Keyword::IfAdded,
        removed: Keyword::IfRemoved,
        changed: Some(Keyword::IfChanged),
        empty_is_absent: false,
    },
    One {
        key: "not",
        added: Keyword::NotAdded,
        removed: Keyword::NotRemoved,
        changed: Some(Keyword::NotChanged),
        empty_is_absent: false,
    },
    One {
        key: "propertyNames",
        added: Keyword::PropertyNamesAdded,
        removed: Keyword::PropertyNamesRemoved,
        changed: None,
        empty_is_absent: true,
    },
    One {
        key: "contentSchema",
        added: Keyword::ContentSchemaAdded,
        removed: Keyword::ContentSchemaRemoved,
        changed: None,
        empty_is_absent: true,
    },
    One {
        key: "unevaluatedProperties",
        added: Keyword::UnevaluatedPropertiesAdded,
        removed: Keyword::UnevaluatedPropertiesRemoved,
        changed: None,
        empty_is_absent: true,
    },
    One {
        key: "unevaluatedItems",
        added: Keyword::UnevaluatedItemsAdded,
        removed: Keyword::UnevaluatedItemsRemoved,
        changed: None,
        empty_is_absent: true,
    },
];

/// Compares the 2020-12 keywords of `b` and `r`.
pub fn compare<'a>(w: &mut Walker<'a, '_>, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
    for one in &ONE {
        single(w, at, b, r, one);
    }
    prefix_items(w, at, b, r);
    let maps = [
        (
            "patternProperties",
            Keyword::PatternPropertyAdded,
            Keyword::PatternPropertyRemoved,
        ),
        (
            "dependentSchemas",
            Keyword::DependentSchemaAdded,
            Keyword::DependentSchemaRemoved,
        ),
    ];
    for (key, added, removed) in maps {
        schema_map(w, at, b, r, key, (added, removed));
    }
    dependent_required(w, at, b, r);
    for (key, rule) in [
        ("contentMediaType", Keyword::ContentMediaTypeChanged),
        ("contentEncoding", Keyword::ContentEncodingChanged),
    ] {
        let (bv, rv) = (b.get(key), r.get(key));
        if bv.as_ref().map(|(v, _)| v) != rv.as_ref().map(|(v, _)| v) {
            let show = |v: &Option<(&Value, String)>| {
                v.as_ref().map_or("none".into(), |(v, _)| v.to_string())
            };
            let what = format!("{key} changed from {} to {}", show(&bv), show(&rv));
            let loc = match (rv, bv) {
                (Some((_, p)), _) => Loc::Rev(p),
                (None, Some((_, p))) => Loc::Base(p),
                (None, None) => continue,
            };
            emit(w, at, rule, loc, key, what);
        }
    }
}

fn emit(w: &mut Walker, at: &At, rule: Keyword, loc: Loc, detail: &str, what: String) {
    let message = format!("{}: {what}", at.label());
    w.out.schema(
        SchemaRule::Keyword(rule),
        at.direction,
        at.subject,
        None,
        loc,
        detail,
        message,
    );
}

/// `true` or `{}` (annotations aside).
fn says_nothing(value: &Value) -> bool {
    value == &Value::Bool(true)
        || value
            .as_object()
            .is_some_and(|m| m.keys().all(|k| Ctx::Keywords.is_annotation(k)))
}

/// The walk below `key`: a property-like place named after the keyword.
fn below(at: &At, suffix: &str) -> At {
    At {
        subject: Subject::Property,
        ..at.suffixed(suffix)
    }
}

fn single<'a>(w: &mut Walker<'a, '_>, at: &At, b: &Schema<'a>, r: &Schema<'a>, one: &One) {
    let get = |s: &Schema<'a>| {
        s.get(one.key)
            .filter(|(v, _)| !(one.empty_is_absent && says_nothing(v)))
    };
    match (get(b), get(r)) {
        (None, None) => {}
        (None, Some((_, p))) => emit(
            w,
            at,
            one.added,
            Loc::Rev(p),
            one.key,
            format!("{} added", one.key),
        ),
        (Some((_, p)), None) => emit(
            w,
            at,
            one.removed,
            Loc::Base(p),
            one.key,
            format!("{} removed", one.key),
        ),
        (Some((bv, bp)), Some((rv, rp))) => {
            if w.base.hash(bv) == w.rev.hash(rv) {
                return;
            }
            match one.changed {
                Some(rule) => {
                    emit(
                        w,
                        at,
                        rule,
                        Loc::Rev(rp.clone()),
                        one.key,
                        format!("{} changed", one.key),
                    );
                    w.out.claim(&bp);
                    w.out.claim(&rp);
                }
                None if bv.is_object() && rv.is_object() => {
                    let (bs, rs) = (Schema::new(w.base, bv, &bp), Schema::new(w.rev, rv, &rp));
                    w.compare(&below(at, &format!("[{}]", one.key)), &bs, &rs);
                }
                // `false` on one side: nothing allowed there (an added constraint), or now
                // something is (a removed one).
                None if rv == &Value::Bool(false) => {
                    emit(
                        w,
                        at,
                        one.added,
                        Loc::Rev(rp),
                        one.key,
                        format!("{} became false", one.key),
                    );
                }
                None => emit(
                    w,
                    at,
                    one.removed,
                    Loc::Rev(rp),
                    one.key,
                    format!("{} is no longer false", one.key),
                ),
            }
        }
    }
}

/// `prefixItems`: positions walked pairwise; a position added or removed is judged by what
/// governs it otherwise (`items: false` closes the tuple, anything else leaves it open).
fn prefix_items<'a>(w: &mut Walker<'a, '_>, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
    let list = |s: &Schema<'a>| {
        s.get("prefixItems")
            .and_then(|(v, p)| v.as_array().map(|a| (a.as_slice(), p)))
    };
    let (bl, rl) = (
        list(b).unwrap_or((&[], String::new())),
        list(r).unwrap_or((&[], String::new())),
    );
    if bl.0.is_empty() && rl.0.is_empty() {
        return;
    }
    let closed = r
        .get("items")
        .is_some_and(|(v, _)| v == &Value::Bool(false));
    for i in 0..bl.0.len().max(rl.0.len()) {
        match (bl.0.get(i), rl.0.get(i)) {
            (Some(bv), Some(rv)) => {
                let (bp, rp) = (format!("{}/{i}", bl.1), format!("{}/{i}", rl.1));
                let (bs, rs) = (Schema::new(w.base, bv, &bp), Schema::new(w.rev, rv, &rp));
                w.compare(&below(at, &format!("[{i}]")), &bs, &rs);
            }
            (None, Some(_)) => {
                let rule = if closed {
                    Keyword::PrefixItemsAdded
                } else {
                    Keyword::PrefixItemsConstrained
                };
                let loc = Loc::Rev(format!("{}/{i}", rl.1));
                emit(
                    w,
                    at,
                    rule,
                    loc,
                    &format!("prefixItems/{i}"),
                    format!("prefixItems position {i} added"),
                );
            }
            (Some(_), None) => {
                let rule = if closed {
                    Keyword::PrefixItemsRemoved
                } else {
                    Keyword::PrefixItemsReleased
                };
                let loc = Loc::Base(format!("{}/{i}", bl.1));
                emit(
                    w,
                    at,
                    rule,
                    loc,
                    &format!("prefixItems/{i}"),
                    format!("prefixItems position {i} removed"),
                );
            }
            (None, None) => {}
        }
    }
}

type Entries<'a> = Option<(&'a Map<String, Value>, String)>;

fn entries<'a>(s: &Schema<'a>, key: &str) -> Entries<'a> {
    s.get(key).and_then(|(v, p)| v.as_object().map(|m| (m, p)))
}

/// A map of names to sub-schemas: an entry added narrows, one removed widens, common ones are
/// walked.
fn schema_map<'a>(
    w: &mut Walker<'a, '_>,
    at: &At,
    b: &Schema<'a>,
    r: &Schema<'a>,
    key: &str,
    (added, removed): (Keyword, Keyword),
) {
    let (bm, rm) = (entries(b, key), entries(r, key));
    let names: std::collections::BTreeSet<&String> = bm
        .iter()
        .chain(rm.iter())
        .flat_map(|(m, _)| m.keys())
        .collect();
    for name in names {
        let entry = |side: &Entries<'a>| {
            side.as_ref().and_then(|(m, p)| {
                m.get(name.as_str())
                    .map(|v| (v, format!("{p}/{}", pointer::escape(name))))
            })
        };
        match (entry(&bm), entry(&rm)) {
            (Some((bv, bp)), Some((rv, rp))) => {
                let (bs, rs) = (Schema::new(w.base, bv, &bp), Schema::new(w.rev, rv, &rp));
                w.compare(&below(at, &format!("[{key} {name}]")), &bs, &rs);
            }
            (None, Some((_, p))) => emit(
                w,
                at,
                added,
                Loc::Rev(p),
                name,
                format!("{key} `{name}` added"),
            ),
            (Some((_, p)), None) => emit(
                w,
                at,
                removed,
                Loc::Base(p),
                name,
                format!("{key} `{name}` removed"),
            ),
            (None, None) => {}
        }
    }
}

/// `dependentRequired`: property → the properties it makes required.
fn dependent_required<'a>(w: &mut Walker<'a, '_>, at: &At, b: &Schema<'a>, r: &Schema<'a>) {
    let key = "dependentRequired";
    let (bm, rm) = (entries(b, key), entries(r, key));
    let names: std::collections::BTreeSet<&String> = bm
        .iter()
        .chain(rm.iter())
        .flat_map(|(m, _)| m.keys())
        .collect();
    for name in names {
        let entry = |side: &Entries<'a>| {
            side.as_ref().and_then(|(m, p)| {
                m.get(name.as_str()).map(|v| {
                    let set: std::collections::BTreeSet<String> = v
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(Value::to_string)
                        .collect();
                    (set, format!("{p}/{}", pointer::escape(name)))
                })
            })
        };
        match (entry(&bm), entry(&rm)) {
            (Some((bs, _)), Some((rs, rp))) if bs != rs => {
                let rule = if bs.is_subset(&rs) {
                    Keyword::DependentRequiredAdded
                } else if rs.is_subset(&bs) {
                    Keyword::DependentRequiredRemoved
                } else {
                    Keyword::DependentRequiredChanged
                };
                let what = format!("{key} of `{name}` changed from {bs:?} to {rs:?}");
                emit(w, at, rule, Loc::Rev(rp), name, what);
            }
            (None, Some((rs, p))) => emit(
                w,
                at,
                Keyword::DependentRequiredAdded,
                Loc::Rev(p),
                name,
                format!("{key} of `{name}` set to {rs:?}"),
            ),
            (Some((bs, p)), None) => emit(
                w,
                at,
                Keyword::DependentRequiredRemoved,
                Loc::Base(p),
                name,
                format!("{key} of `{name}` ({bs:?}) removed"),
            ),
            _ => {}
        }
    }
}
