//! The structural reading of two schemas: every keyword of the `allOf`-flattened schema,
//! compared as a value, and every sub-schema walked. Keywords that mean the same thing written
//! differently are read as the rules read them (an inferred `type`, `nullable` from an enum's
//! `null`, the strictest bound, a pattern that matches everything, `uniqueItems: false`).

use std::collections::BTreeSet;

use serde_json::Value;

use super::Collector;
use crate::judge::levels::Direction;
use crate::judge::rules::Bound;
use crate::load::key_context::Ctx;
use crate::load::pointer;
use crate::walk::schema::Schema;

/// Keywords read below through a method of [`Schema`], or walked as sub-schemas: everything
/// else is compared as a value.
const HANDLED: [&str; 33] = [
    "discriminator",
    "allOf",
    "oneOf",
    "anyOf",
    "type",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "enum",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "pattern",
    "uniqueItems",
    "properties",
    "required",
    "prefixItems",
    "patternProperties",
    "dependentSchemas",
    "$ref",
    "additionalProperties",
    "items",
    "const",
    "maxContains",
    "minContains",
];

/// Keywords whose value is one sub-schema. For the first ones `true` and `{}` say nothing,
/// the same as leaving the keyword out.
const SUBSCHEMAS: [(&str, bool); 11] = [
    ("items", true),
    ("additionalProperties", true),
    ("unevaluatedProperties", true),
    ("unevaluatedItems", true),
    ("propertyNames", true),
    ("then", true),
    ("else", true),
    ("contentSchema", true),
    ("not", false),
    ("contains", false),
    ("if", false),
];

/// Keywords whose value maps names to sub-schemas.
const SCHEMA_MAPS: [&str; 2] = ["patternProperties", "dependentSchemas"];

/// Compares `b` with `r` in `dir`. `anchors` are where the rules report this schema's
/// `readOnly`/`writeOnly` (the properties that use it).
pub fn compare<'a>(
    c: &mut Collector<'a>,
    dir: Direction,
    b: &Schema<'a>,
    r: &Schema<'a>,
    anchors: &[String],
) {
    if !c.visited.insert((dir, b.ptr.clone(), r.ptr.clone())) || b.hash(c.base) == r.hash(c.rev) {
        return;
    }
    if (b.branches().is_some() || r.branches().is_some()) && !same_branches(c, b, r) {
        // Branches are paired by the rules (content, name, title, shape): any finding inside
        // the composition, or inside a branch, accounts for it.
        let mut subtrees = vec![b.ptr.clone(), r.ptr.clone()];
        for (s, doc) in [(b, c.base), (r, c.rev)] {
            for (v, p) in s.branches().map(|(_, l)| l).unwrap_or_default() {
                subtrees.push(doc.resolve(v, &p).1);
            }
        }
        c.differ(dir, "oneOf/anyOf", None, None);
        if let Some(d) = c.last() {
            d.base = Some(b.ptr.clone());
            d.rev = Some(r.ptr.clone());
            d.subtrees = subtrees;
        }
        return;
    }
    derived(c, dir, b, r, anchors);
    values(c, dir, b, r);
    shadowed(c, dir, b, r);
    properties(c, dir, b, r);
    for (key, empty_is_absent) in SUBSCHEMAS {
        let get = |s: &Schema<'a>| {
            s.get(key)
                .filter(|(v, _)| !(empty_is_absent && says_nothing(v)))
        };
        match (get(b), get(r)) {
            (Some((bv, bp)), Some((rv, rp))) if bv.is_object() && rv.is_object() => {
                let (bs, rs) = (Schema::new(c.base, bv, &bp), Schema::new(c.rev, rv, &rp));
                compare(c, dir, &bs, &rs, &[]);
            }
            (None, None) => {}
            (Some((bv, _)), Some((rv, _))) if c.same(bv, rv) => {}
            (bv, rv) => c.differ(dir, key, bv, rv),
        }
    }
    for key in SCHEMA_MAPS {
        let map = |s: &Schema<'a>| s.get(key).and_then(|(v, p)| v.as_object().map(|m| (m, p)));
        let (bm, rm) = (map(b), map(r));
        let names: BTreeSet<&String> = bm
            .iter()
            .chain(rm.iter())
            .flat_map(|(m, _)| m.keys())
            .collect();
        for name in names {
            let entry = |side: &Option<(&'a serde_json::Map<String, Value>, String)>| {
                side.as_ref().and_then(|(m, p)| {
                    m.get(name.as_str())
                        .map(|v| (v, format!("{p}/{}", pointer::escape(name))))
                })
            };
            match (entry(&bm), entry(&rm)) {
                (Some((bv, bp)), Some((rv, rp))) => {
                    let (bs, rs) = (Schema::new(c.base, bv, &bp), Schema::new(c.rev, rv, &rp));
                    compare(c, dir, &bs, &rs, &[]);
                }
                (bv, rv) => c.differ(dir, key, bv, rv),
            }
        }
    }
    let list = |s: &Schema<'a>| {
        s.get("prefixItems")
            .and_then(|(v, p)| v.as_array().map(|a| (a, p)))
    };
    let (bl, rl) = (list(b), list(r));
    let len = bl
        .iter()
        .chain(rl.iter())
        .map(|(a, _)| a.len())
        .max()
        .unwrap_or(0);
    for i in 0..len {
        let item = |side: &Option<(&'a Vec<Value>, String)>| {
            side.as_ref()
                .and_then(|(a, p)| a.get(i).map(|v| (v, format!("{p}/{i}"))))
        };
        match (item(&bl), item(&rl)) {
            (Some((bv, bp)), Some((rv, rp))) => {
                let (bs, rs) = (Schema::new(c.base, bv, &bp), Schema::new(c.rev, rv, &rp));
                compare(c, dir, &bs, &rs, &[]);
            }
            (bv, rv) => c.differ(dir, "prefixItems", bv, rv),
        }
    }
}

/// The same kind of composition with the same branches, in any order.
fn same_branches(c: &Collector, b: &Schema, r: &Schema) -> bool {
    let hashes = |s: &Schema, doc| {
        s.branches().map(|(kind, list)| {
            let mut h: Vec<u64> = list
                .iter()
                .map(|(v, _)| crate::load::document::Doc::hash(doc, v))
                .collect();
            h.sort_unstable();
            (kind, h)
        })
    };
    hashes(b, c.base) == hashes(r, c.rev)
}

/// `true` or `{}`: a sub-schema that allows everything.
fn says_nothing(value: &Value) -> bool {
    value == &Value::Bool(true)
        || value
            .as_object()
            .is_some_and(|m| m.keys().all(|k| Ctx::Keywords.is_annotation(k)))
}

/// Keywords the rules read through a [`Schema`] method, compared the same way.
fn derived<'a>(
    c: &mut Collector<'a>,
    dir: Direction,
    b: &Schema<'a>,
    r: &Schema<'a>,
    anchors: &[String],
) {
    // Where the rules put a finding about `key`: REVISION's keyword, BASE's, else the schema.
    let locate = |key: &str| match (r.get(key), b.get(key)) {
        (Some((_, p)), _) => (None, Some(p)),
        (None, Some((_, p))) => (Some(p), None),
        (None, None) => (None, Some(r.ptr.clone())),
    };
    let text = |v: String| Value::String(v);
    let mut facts: Vec<(&str, Value, Value, Vec<String>)> = Vec::new();
    let show_type = |s: &Schema| {
        s.types().map_or(Value::Null, |t| {
            Value::from(t.into_iter().map(str::to_string).collect::<Vec<_>>())
        })
    };
    facts.push(("type", show_type(b), show_type(r), Vec::new()));
    facts.push((
        "nullable",
        Value::Bool(b.nullable()),
        Value::Bool(r.nullable()),
        Vec::new(),
    ));
    facts.push((
        "readOnly",
        Value::Bool(b.read_only()),
        Value::Bool(r.read_only()),
        anchors.to_vec(),
    ));
    facts.push((
        "writeOnly",
        Value::Bool(b.write_only()),
        Value::Bool(r.write_only()),
        anchors.to_vec(),
    ));
    let enum_set = |s: &Schema| {
        s.enum_values().map_or(Value::Null, |(vs, _)| {
            let set: BTreeSet<String> = vs.iter().map(|v| v.to_string()).collect();
            Value::from(set.into_iter().collect::<Vec<_>>())
        })
    };
    if enum_set(b) != enum_set(r) {
        // Where the rules put it: the `enum` (or 3.1 `const`) keyword of either side.
        let at = |s: &Schema| s.enum_values().map(|(_, p)| p);
        let (bp, rp) = (at(b), at(r));
        let rp = rp.or_else(|| bp.is_none().then(|| r.ptr.clone()));
        push(
            c,
            dir,
            "enum",
            (enum_set(b), bp),
            (enum_set(r), rp),
            Vec::new(),
        );
    }
    let unique = |s: &Schema| {
        s.get("uniqueItems")
            .and_then(|(v, _)| v.as_bool())
            .unwrap_or(false)
    };
    facts.push((
        "uniqueItems",
        Value::Bool(unique(b)),
        Value::Bool(unique(r)),
        Vec::new(),
    ));
    // A discriminator as the rules read it: a mapping value written alike is the same (the
    // schema it names is compared where it is used); written otherwise, it is compared by the
    // content of the schema it selects.
    let (bd, rd) = (b.get("discriminator"), r.get("discriminator"));
    let discriminator = |d: &Option<(&Value, String)>, other: &Option<(&Value, String)>, doc| {
        d.as_ref().map_or(Value::Null, |(v, _)| {
            let mut targets = crate::walk::schema::discriminator_targets(doc, v);
            for (key, target) in &mut targets {
                let written = |x: &Value| x.get("mapping").and_then(|m| m.get(key)).cloned();
                if other
                    .as_ref()
                    .is_some_and(|(o, _)| written(o) == written(v))
                {
                    *target = String::new();
                }
            }
            serde_json::json!({"propertyName": v.get("propertyName"), "mapping": targets})
        })
    };
    facts.push((
        "discriminator",
        discriminator(&bd, &rd, c.base),
        discriminator(&rd, &bd, c.rev),
        Vec::new(),
    ));
    let pattern = |s: &Schema| s.pattern().map_or(Value::Null, |(v, _)| v.clone());
    facts.push(("pattern", pattern(b), pattern(r), Vec::new()));
    for (key, bv, rv, anchors) in facts {
        if bv != rv {
            let (bp, rp) = locate(key);
            push(c, dir, key, (bv, bp), (rv, rp), anchors);
        }
    }
    for bound in Bound::ALL {
        let key = bound.keyword();
        let (bb, rb) = (
            b.bound(key, bound.is_upper()),
            r.bound(key, bound.is_upper()),
        );
        let same = match (&bb, &rb) {
            (Some((x, xe, _)), Some((y, ye, _))) => x == y && xe == ye,
            (None, None) => true,
            _ => false,
        };
        if !same {
            let show = |v: &Option<(f64, bool, String)>| {
                v.as_ref().map_or(Value::Null, |(n, e, _)| {
                    text(if *e {
                        format!("{n} (exclusive)")
                    } else {
                        n.to_string()
                    })
                })
            };
            let (bshow, rshow) = (show(&bb), show(&rb));
            let (bp, rp) = (bb.map(|(_, _, p)| p), rb.map(|(_, _, p)| p));
            push(c, dir, key, (bshow, bp), (rshow, rp), Vec::new());
        }
    }
}

/// Records a derived difference whose values are computed, not read from a document.
fn push(
    c: &mut Collector,
    dir: Direction,
    key: &str,
    (bv, bp): (Value, Option<String>),
    (rv, rp): (Value, Option<String>),
    anchors: Vec<String>,
) {
    c.diffs.push(super::Difference {
        direction: dir,
        base: bp,
        rev: rp,
        anchors,
        subtrees: Vec::new(),
        what: key.to_string(),
        before: Some(super::show(&bv)),
        after: Some(super::show(&rv)),
    });
}

/// Every other keyword of the flattened schema, compared as a value.
fn values<'a>(c: &mut Collector<'a>, dir: Direction, b: &Schema<'a>, r: &Schema<'a>) {
    let keys: BTreeSet<&str> = b
        .parts
        .iter()
        .chain(&r.parts)
        .flat_map(|p| p.node.keys().map(String::as_str))
        .filter(|k| !HANDLED.contains(k) && !Ctx::Keywords.is_annotation(k))
        .filter(|k| !SUBSCHEMAS.iter().any(|(s, _)| s == k) && !SCHEMA_MAPS.contains(k))
        .collect();
    for key in keys {
        match (b.get(key), r.get(key)) {
            (Some((bv, _)), Some((rv, _))) if c.same(bv, rv) => {}
            (bv, rv) => c.differ(dir, key, bv, rv),
        }
    }
}

/// Keywords of a later `allOf` part that an earlier part also has: the rules read the first
/// (or the strictest bound), so a change in the later one is compared here, part by part, when
/// both sides have the same parts at the same places.
fn shadowed<'a>(c: &mut Collector<'a>, dir: Direction, b: &Schema<'a>, r: &Schema<'a>) {
    // Only parts that are the same members (same places on both sides) pair up.
    let aligned =
        b.parts.len() == r.parts.len() && b.parts.iter().zip(&r.parts).all(|(x, y)| x.ptr == y.ptr);
    if !aligned {
        return;
    }
    for i in 1..b.parts.len() {
        let (bp, rp) = (&b.parts[i], &r.parts[i]);
        let keys: BTreeSet<&str> = bp
            .node
            .keys()
            .chain(rp.node.keys())
            .map(String::as_str)
            .collect();
        for key in keys {
            let earlier = |s: &Schema| s.parts[..i].iter().any(|p| p.node.contains_key(key));
            let plain = !Ctx::Keywords.is_annotation(key)
                && !matches!(key, "allOf" | "oneOf" | "anyOf" | "properties" | "required");
            if !plain || !(earlier(b) || earlier(r)) {
                continue;
            }
            let at = |part: &crate::walk::schema::Part<'a>| {
                part.node
                    .get(key)
                    .map(|v| (v, format!("{}/{}", part.ptr, pointer::escape(key))))
            };
            match (at(bp), at(rp)) {
                (None, None) => {}
                (Some((bv, _)), Some((rv, _))) if c.same(bv, rv) => {}
                (bv, rv) => c.differ(dir, key, bv, rv),
            }
        }
    }
}

fn properties<'a>(c: &mut Collector<'a>, dir: Direction, b: &Schema<'a>, r: &Schema<'a>) {
    let (bprops, rprops) = (b.properties(), r.properties());
    let names: BTreeSet<&str> = bprops.keys().chain(rprops.keys()).copied().collect();
    for name in &names {
        match (bprops.get(name), rprops.get(name)) {
            (Some(bdefs), Some(rdefs)) => {
                let (bs, rs) = (Schema::union(c.base, bdefs), Schema::union(c.rev, rdefs));
                let anchors = [bdefs[0].1.clone(), rdefs[0].1.clone()];
                compare(c, dir, &bs, &rs, &anchors);
            }
            (bdefs, rdefs) => {
                let first =
                    |d: Option<&Vec<(&'a Value, String)>>| d.and_then(|d| d.first().cloned());
                c.differ(dir, "property", first(bdefs), first(rdefs));
            }
        }
    }
    let (breq, rreq) = (b.required(), r.required());
    for name in breq.symmetric_difference(&rreq) {
        // The rules report requiredness at the property (where it is defined).
        let def = |props: &std::collections::BTreeMap<&str, Vec<(&Value, String)>>| {
            props
                .get(name)
                .and_then(|d| d.first())
                .map(|(_, p)| p.clone())
        };
        let anchors: Vec<String> = [def(&bprops), def(&rprops)].into_iter().flatten().collect();
        let required = |set: &BTreeSet<&str>| Value::Bool(set.contains(name));
        let at = |s: &Schema| s.get("required").map(|(_, p)| p);
        push(
            c,
            dir,
            &format!("required `{name}`"),
            (required(&breq), at(b)),
            (required(&rreq), at(r)),
            anchors,
        );
        if let Some(d) = c.last() {
            // A property added or removed together with its requiredness is one finding.
            d.subtrees = d.anchors.clone();
        }
    }
}
