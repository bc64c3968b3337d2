//! Servers: where a client sends its requests. The servers that apply to an operation are its
//! own `servers`, else its path item's, else the document's (OpenAPI 3.0 §4.7.10), so a change
//! at any of the three levels is reported for every operation it reaches, at the level where
//! it was made.
//!
//! A client generated from BASE has a server URL (or a choice of them) built in: a server
//! removed or its URL changed sends that client to a host or base path that no longer serves
//! the API, as does a value of a server variable no longer listed. A server added is one more
//! place a client may go. A variable's default changed moves the clients that never set it, to
//! a server that may or may not serve them the same: a review.
//!
//! Servers pair by URL with the variable names ignored (`https://{region}.x` ≡
//! `https://{zone}.x`, as path parameters are); left over on both sides, they pair in order
//! as a URL changed. Webhooks are sent by the API to URLs their clients register, so servers
//! do not apply to them.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::judge::rules::Rule;
use crate::load::document::Doc;
use crate::walk::emitter::{Emitter, Loc};
use crate::walk::operation::{Operation, normalise_path};

/// One server object as it applies: its URL, its variables and where it is written.
struct Server<'a> {
    url: &'a str,
    variables: Option<&'a Map<String, Value>>,
    ptr: String,
}

impl Server<'_> {
    /// The URL with its variable names ignored.
    fn key(&self) -> String {
        normalise_path(self.url)
    }
}

/// The servers that apply to `op`, with where they are written; an empty list where no level
/// declares any (the API is then reached wherever the document is served).
fn effective<'a>(doc: &'a Doc, op: &Operation<'a>) -> Vec<Server<'a>> {
    let levels = [
        (op.node.get("servers"), format!("{}/servers", op.ptr)),
        (
            op.path_item.get("servers"),
            format!("{}/servers", op.path_item_ptr),
        ),
        (doc.tree.get("servers"), "/servers".to_string()),
    ];
    for (list, ptr) in levels {
        let Some(Value::Array(list)) = list else {
            continue;
        };
        let servers = list
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                Some(Server {
                    url: s.get("url")?.as_str()?,
                    variables: s.get("variables").and_then(Value::as_object),
                    ptr: format!("{ptr}/{i}"),
                })
            })
            .collect();
        return servers;
    }
    Vec::new()
}

/// Compares the servers of two matched operations.
pub fn compare(base: &Doc, rev: &Doc, out: &mut Emitter, b: &Operation, r: &Operation) {
    if b.webhook || r.webhook {
        return;
    }
    let (bs, rs) = (effective(base, b), effective(rev, r));
    let mut left: Vec<&Server> = bs.iter().collect();
    let mut added: Vec<&Server> = Vec::new();
    let mut pairs: Vec<(&Server, &Server)> = Vec::new();
    for s in &rs {
        match left.iter().position(|x| x.key() == s.key()) {
            Some(i) => pairs.push((left.remove(i), s)),
            None => added.push(s),
        }
    }
    // Left over on both sides: the same server at a new URL, in order.
    let renamed = left.len().min(added.len());
    for (x, y) in left.drain(..renamed).zip(added.drain(..renamed)) {
        let message = format!("server URL changed from `{}` to `{}`", x.url, y.url);
        out.rule(
            Rule::ServerUrlChanged,
            None,
            Loc::Rev(format!("{}/url", y.ptr)),
            x.url,
            message,
        );
    }
    for x in left {
        let message = format!(
            "server `{}` removed: clients that call it reach nothing",
            x.url
        );
        out.rule(
            Rule::ServerRemoved,
            None,
            Loc::Base(x.ptr.clone()),
            x.url,
            message,
        );
    }
    for y in added {
        let loc = Loc::Rev(y.ptr.clone());
        out.rule(
            Rule::ServerAdded,
            None,
            loc,
            y.url,
            format!("server `{}` added", y.url),
        );
    }
    for (x, y) in pairs {
        variables(out, x, y);
    }
}

/// The variables of a server that kept its URL, matched by their place in the URL (a variable
/// renamed with the URL is the same variable).
fn variables<'a>(out: &mut Emitter, x: &Server<'a>, y: &Server<'a>) {
    let names = |s: &Server| -> Vec<String> {
        s.url
            .split('{')
            .skip(1)
            .filter_map(|t| t.split('}').next())
            .map(str::to_string)
            .collect()
    };
    let (bn, rn) = (names(x), names(y));
    for (bname, rname) in bn.iter().zip(&rn) {
        let var = |s: &Server<'a>, name: &str| s.variables.and_then(|v| v.get(name));
        let (Some(bv), Some(rv)) = (var(x, bname), var(y, rname)) else {
            continue;
        };
        let at = |key: &str| {
            format!(
                "{}/variables/{}/{key}",
                y.ptr,
                crate::load::pointer::escape(rname)
            )
        };
        let values = |v: &Value| -> Option<BTreeSet<String>> {
            v.get("enum")?
                .as_array()
                .map(|a| a.iter().map(Value::to_string).collect())
        };
        match (values(bv), values(rv)) {
            (Some(bset), Some(rset)) => {
                for gone in bset.difference(&rset) {
                    let message = format!(
                        "server `{}`: variable `{rname}` no longer takes {gone}",
                        y.url
                    );
                    let detail = format!("{} {rname} {gone}", y.url);
                    let loc = Loc::Rev(at("enum"));
                    out.rule(
                        Rule::ServerVariableEnumValueRemoved,
                        None,
                        loc,
                        &detail,
                        message,
                    );
                }
                for new in rset.difference(&bset) {
                    let message = format!("server `{}`: variable `{rname}` takes {new}", y.url);
                    let detail = format!("{} {rname} {new}", y.url);
                    let loc = Loc::Rev(at("enum"));
                    out.rule(
                        Rule::ServerVariableEnumValueAdded,
                        None,
                        loc,
                        &detail,
                        message,
                    );
                }
            }
            (None, Some(rset)) => {
                let message = format!("server `{}`: variable `{rname}` limited to {rset:?}", y.url);
                let detail = format!("{} {rname}", y.url);
                let loc = Loc::Rev(at("enum"));
                out.rule(
                    Rule::ServerVariableEnumValueRemoved,
                    None,
                    loc,
                    &detail,
                    message,
                );
            }
            (Some(_), None) => {
                let message = format!("server `{}`: variable `{rname}` takes any value", y.url);
                let detail = format!("{} {rname}", y.url);
                let loc = Loc::Rev(format!(
                    "{}/variables/{}",
                    y.ptr,
                    crate::load::pointer::escape(rname)
                ));
                out.rule(
                    Rule::ServerVariableEnumValueAdded,
                    None,
                    loc,
                    &detail,
                    message,
                );
            }
            (None, None) => {}
        }
        let (bd, rd) = (bv.get("default"), rv.get("default"));
        if bd != rd {
            let show = |v: Option<&Value>| v.map_or("none".to_string(), Value::to_string);
            let message = format!(
                "server `{}`: variable `{rname}` default changed from {} to {}",
                y.url,
                show(bd),
                show(rd)
            );
            let detail = format!("{} {rname}", y.url);
            let loc = Loc::Rev(at("default"));
            out.rule(
                Rule::ServerVariableDefaultChanged,
                None,
                loc,
                &detail,
                message,
            );
        }
    }
}
