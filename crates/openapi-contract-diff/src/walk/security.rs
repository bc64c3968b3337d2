//! Security requirements, per operation (its own `security`, else the document's).
//!
//! A requirement list is a set of alternatives; each alternative is a set of schemes that must
//! all be satisfied. Schemes are compared by what a client sends (`http bearer`, `apiKey in
//! header X-Key`, …), not by their component name, so renaming `bearerAuth` is no change while
//! turning it into an API key is a scheme removed (ERR) and a scheme added (INFO). Even a client
//! that adds credentials by itself (in hooks, say) needs its caller to hold the right credential.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::judge::rules::Rule;
use crate::load::document::Doc;
use crate::load::pointer;
use crate::walk::emitter::{Emitter, Loc};
use crate::walk::operation::Operation;

/// Scheme identity → (scheme name as written, scopes).
type Alternative = BTreeMap<String, (String, BTreeSet<String>)>;

struct Requirements {
    alternatives: Vec<(Alternative, String)>,
    /// Some alternative needs nothing (or there is no requirement at all).
    anonymous: bool,
    ptr: String,
}

/// What a client must send for scheme `name`.
fn identity(doc: &Doc, name: &str) -> String {
    let ptr = format!("/components/securitySchemes/{}", pointer::escape(name));
    let Some((scheme, _)) = doc.at(&ptr) else {
        return format!("undefined:{name}");
    };
    let field = |k: &str| {
        scheme
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    match field("type").as_str() {
        "http" => format!("http {}", field("scheme").to_ascii_lowercase()),
        "apiKey" => {
            let key = if field("in") == "header" {
                field("name").to_ascii_lowercase()
            } else {
                field("name")
            };
            format!("apiKey in {} {key}", field("in"))
        }
        "openIdConnect" => format!("openIdConnect {}", field("openIdConnectUrl")),
        other => other.to_string(),
    }
}

fn requirements(doc: &Doc, op: &Operation) -> Requirements {
    let (list, ptr) = match op.node.get("security") {
        Some(list) => (Some(list), format!("{}/security", op.ptr)),
        None => (doc.tree.get("security"), "/security".to_string()),
    };
    let mut alternatives = Vec::new();
    let mut anonymous = true;
    if let Some(Value::Array(list)) = list {
        anonymous = list.is_empty();
        for (i, alt) in list.iter().enumerate() {
            let Some(map) = alt.as_object() else {
                continue;
            };
            if map.is_empty() {
                anonymous = true;
                continue;
            }
            // Two schemes of one requirement that ask for the same thing (two OAuth 2 servers,
            // say) are told apart by their names, or one would hide the other.
            let identities: Vec<String> = map.keys().map(|name| identity(doc, name)).collect();
            let shared = |id: &String| identities.iter().filter(|x| *x == id).count() > 1;
            let alternative: Alternative = map
                .iter()
                .zip(&identities)
                .map(|((name, scopes), id)| {
                    let scopes = scopes
                        .as_array()
                        .map(|s| {
                            s.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    let id = if shared(id) {
                        format!("{id} `{name}`")
                    } else {
                        id.clone()
                    };
                    (id, (name.clone(), scopes))
                })
                .collect();
            alternatives.push((alternative, format!("{ptr}/{i}")));
        }
    }
    Requirements {
        alternatives,
        anonymous,
        ptr,
    }
}

fn describe(alt: &Alternative) -> String {
    let names: Vec<String> = alt
        .iter()
        .map(|(id, (name, _))| format!("`{name}` ({id})"))
        .collect();
    names.join(" + ")
}

/// Compares the security of two matched operations.
pub fn compare(base: &Doc, rev: &Doc, out: &mut Emitter, b: &Operation, r: &Operation) {
    let (bs, rs) = (requirements(base, b), requirements(rev, r));
    let all = |reqs: &Requirements| -> Vec<String> {
        reqs.alternatives.iter().map(|(a, _)| describe(a)).collect()
    };
    if bs.anonymous && !rs.anonymous {
        let message = format!(
            "operation became authenticated: it now requires {}",
            all(&rs).join(" or ")
        );
        out.rule(
            Rule::AuthenticationAdded,
            None,
            Loc::Rev(rs.ptr.clone()),
            "",
            message,
        );
        return;
    }
    if !bs.anonymous && rs.anonymous {
        out.rule(
            Rule::AuthenticationRemoved,
            None,
            Loc::Rev(rs.ptr.clone()),
            "",
            "operation no longer requires authentication".into(),
        );
        return;
    }
    let same_schemes = |x: &Alternative, y: &Alternative| x.keys().eq(y.keys());
    let same_scopes = |x: &Alternative, y: &Alternative| {
        same_schemes(x, y) && x.values().map(|(_, s)| s).eq(y.values().map(|(_, s)| s))
    };
    // One alternative's schemes contain the other's: the same requirement with a scheme more
    // (every caller must now also present it) or less.
    let nested = |x: &Alternative, y: &Alternative| {
        x.keys().all(|k| y.contains_key(k)) || y.keys().all(|k| x.contains_key(k))
    };
    // Alternatives pair exactly first, then by their schemes, then by schemes one contains:
    // `[{a: [read]}, {a: [write]}]` is two alternatives, not one whose scopes changed.
    let mut pairing: Vec<Option<usize>> = vec![None; bs.alternatives.len()];
    let mut used = vec![false; rs.alternatives.len()];
    for pass in [
        &same_scopes as &dyn Fn(&Alternative, &Alternative) -> bool,
        &same_schemes,
        &nested,
    ] {
        for (bi, (balt, _)) in bs.alternatives.iter().enumerate() {
            if pairing[bi].is_some() {
                continue;
            }
            let found = rs
                .alternatives
                .iter()
                .enumerate()
                .position(|(ri, (ralt, _))| !used[ri] && pass(balt, ralt));
            if let Some(ri) = found {
                pairing[bi] = Some(ri);
                used[ri] = true;
            }
        }
    }
    for ((balt, bptr), paired) in bs.alternatives.iter().zip(&pairing) {
        let Some((ralt, rptr)) = paired.map(|ri| &rs.alternatives[ri]) else {
            let message = format!(
                "security requirement {} removed: callers using it are rejected",
                describe(balt)
            );
            out.rule(
                Rule::SecuritySchemeRemoved,
                None,
                Loc::Base(bptr.clone()),
                &key(balt),
                message,
            );
            continue;
        };
        for (id, (rname, _)) in ralt.iter().filter(|(id, _)| !balt.contains_key(*id)) {
            let message = format!(
                "security scheme `{rname}` ({id}) added to the requirement {}: every caller must now also present it",
                describe(balt)
            );
            out.rule(
                Rule::SecurityRequirementSchemeAdded,
                None,
                Loc::Rev(rptr.clone()),
                id,
                message,
            );
        }
        for (id, (name, _)) in balt.iter().filter(|(id, _)| !ralt.contains_key(*id)) {
            let message = format!(
                "security scheme `{name}` ({id}) no longer part of the requirement {}",
                describe(ralt)
            );
            out.rule(
                Rule::SecurityRequirementSchemeRemoved,
                None,
                Loc::Rev(rptr.clone()),
                id,
                message,
            );
        }
        for (id, (name, bscopes)) in balt {
            let Some((rname, rscopes)) = ralt.get(id) else {
                continue;
            };
            oauth_flows(base, rev, out, name, rname);
            for scope in rscopes.difference(bscopes) {
                let message = format!(
                    "security scope `{scope}` of `{name}` added: existing tokens may lack it"
                );
                out.rule(
                    Rule::SecurityScopeAdded,
                    None,
                    Loc::Rev(rptr.clone()),
                    &format!("{id} {scope}"),
                    message,
                );
            }
            for scope in bscopes.difference(rscopes) {
                let message = format!("security scope `{scope}` of `{name}` removed");
                out.rule(
                    Rule::SecurityScopeRemoved,
                    None,
                    Loc::Rev(rptr.clone()),
                    &format!("{id} {scope}"),
                    message,
                );
            }
        }
    }
    for ((ralt, rptr), paired) in rs.alternatives.iter().zip(&used) {
        if !paired {
            let message = format!(
                "security requirement {} added as an alternative",
                describe(ralt)
            );
            out.rule(
                Rule::SecuritySchemeAdded,
                None,
                Loc::Rev(rptr.clone()),
                &key(ralt),
                message,
            );
        }
    }
}

fn key(alt: &Alternative) -> String {
    alt.keys().cloned().collect::<Vec<_>>().join("+")
}

fn scheme_of<'d>(doc: &'d Doc, name: &str) -> Option<(&'d Value, String)> {
    doc.at(&format!(
        "/components/securitySchemes/{}",
        pointer::escape(name)
    ))
}

/// An OAuth 2 scheme edited in place: where clients get and refresh tokens, and the scopes its
/// flows offer. Reported per operation that requires the scheme.
fn oauth_flows(base: &Doc, rev: &Doc, out: &mut Emitter, bname: &str, rname: &str) {
    let (Some((bs, bptr)), Some((rs, rptr))) = (scheme_of(base, bname), scheme_of(rev, rname))
    else {
        return;
    };
    let flows = |s: &Value| {
        s.get("flows")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (bf, rf) = (flows(bs), flows(rs));
    // A flow removed: clients that get tokens that way can no longer; one added is one more way.
    for (kind, rule, what, loc) in bf
        .keys()
        .filter(|k| !rf.contains_key(*k))
        .map(|k| {
            let at = format!("{bptr}/flows/{}", pointer::escape(k));
            (k, Rule::OAuthFlowRemoved, "removed", Loc::Base(at))
        })
        .chain(rf.keys().filter(|k| !bf.contains_key(*k)).map(|k| {
            let at = format!("{rptr}/flows/{}", pointer::escape(k));
            (k, Rule::OAuthFlowAdded, "added", Loc::Rev(at))
        }))
    {
        let message = format!("`{rname}`: OAuth {kind} flow {what}");
        out.rule(rule, None, loc, &format!("{rname} {kind}"), message);
    }
    for (kind, rflow) in &rf {
        let Some(bflow) = bf.get(kind) else { continue };
        let at = |key: &str| format!("{rptr}/flows/{}/{key}", pointer::escape(kind));
        for (key, rule) in [
            ("tokenUrl", Rule::OAuthTokenUrlChanged),
            ("authorizationUrl", Rule::OAuthUrlChanged),
            ("refreshUrl", Rule::OAuthUrlChanged),
        ] {
            let (x, y) = (bflow.get(key), rflow.get(key));
            if x != y {
                let show =
                    |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("none").to_string();
                let message = format!(
                    "`{rname}` {kind} flow: {key} changed from {} to {}",
                    show(x),
                    show(y)
                );
                out.rule(
                    rule,
                    None,
                    Loc::Rev(at(key)),
                    &format!("{rname} {kind} {key}"),
                    message,
                );
            }
        }
        let scopes = |f: &Value| {
            f.get("scopes")
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect::<BTreeSet<String>>())
                .unwrap_or_default()
        };
        let (bsc, rsc) = (scopes(bflow), scopes(rflow));
        for (list, rule, what) in [
            (rsc.difference(&bsc), Rule::OAuthScopeAdded, "offered"),
            (
                bsc.difference(&rsc),
                Rule::OAuthScopeRemoved,
                "no longer offered",
            ),
        ] {
            for scope in list {
                let message = format!("`{rname}` {kind} flow: scope `{scope}` {what}");
                let detail = format!("{rname} {kind} scope {scope}");
                out.rule(rule, None, Loc::Rev(at("scopes")), &detail, message);
            }
        }
    }
}
