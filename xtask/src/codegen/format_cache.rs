//! Formatting the generated tokens, once per distinct token stream.
//!
//! Parsing progenitor's output with syn and printing it with prettyplease is most of a
//! `cargo xtask codegen` run, and it is a pure function of the token stream (and of the xtask
//! binary, which pins prettyplease). So the last formatted body of each provider is kept next to
//! the binary (`target/<profile>/codegen-cache/<provider>`) with the exact token text it came
//! from and a stamp of the binary; a run whose tokens match that text byte for byte reuses the
//! body, and any other run (new spec, new generator, new binary, no or unreadable cache) parses
//! and formats as usual and replaces the entry. progenitor, the lints and the comparison with the
//! committed file run every time either way.

use std::path::PathBuf;

use anyhow::{Context, Result};
use proc_macro2::TokenStream;

/// The formatted Rust source of `tokens` (a whole file), for provider `name`.
pub fn format(name: &str, tokens: TokenStream) -> Result<String> {
    let key = tokens.to_string();
    let entry = entry_path(name);
    let stamp = binary_stamp();
    if let (Some(path), Some(stamp)) = (&entry, &stamp)
        && let Some(body) = lookup(path, stamp, &key)
    {
        return Ok(body);
    }
    let file: syn::File = syn::parse2(tokens).context("the generated code is unparsable Rust")?;
    let body = prettyplease::unparse(&file);
    if let (Some(path), Some(stamp)) = (&entry, &stamp) {
        // Best effort: a cache that cannot be written only costs the next run its speed.
        store(path, stamp, &key, &body);
    }
    Ok(body)
}

/// `<directory of the xtask binary>/codegen-cache/<name>`.
fn entry_path(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join("codegen-cache").join(name))
}

/// Identifies the running binary (path, size, modification time): a rebuilt xtask, and so any
/// change of its code or of prettyplease, never reuses an entry an older binary wrote.
fn binary_stamp() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "xtask codegen cache 1 {} {} {}",
        exe.display(),
        meta.len(),
        modified.as_nanos()
    ))
}

/// An entry is `<stamp>\n<byte length of the key>\n<key><body>`.
fn lookup(path: &PathBuf, stamp: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix(stamp)?.strip_prefix('\n')?;
    let (len, rest) = rest.split_once('\n')?;
    let len: usize = len.parse().ok()?;
    let (cached_key, body) = (rest.get(..len)?, rest.get(len..)?);
    (cached_key == key).then(|| body.to_string())
}

fn store(path: &PathBuf, stamp: &str, key: &str, body: &str) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // A unique temporary name, renamed into place: concurrent runs never read half an entry.
    let tmp = dir.join(format!(
        ".{}.{}.{:?}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        std::thread::current().id()
    ));
    let text = format!("{stamp}\n{}\n{key}{body}", key.len());
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_used_only_for_the_same_stamp_and_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        store(&path, "stamp a", "fn f () { }", "fn f() {}\n");
        assert_eq!(
            lookup(&path, "stamp a", "fn f () { }").as_deref(),
            Some("fn f() {}\n")
        );
        assert_eq!(lookup(&path, "stamp b", "fn f () { }"), None);
        assert_eq!(lookup(&path, "stamp a", "fn g () { }"), None);
        assert_eq!(lookup(&path, "stamp a", "fn f () {"), None);
    }

    #[test]
    fn formatting_matches_prettyplease_with_or_without_the_cache() {
        let tokens: TokenStream = quote::quote! { pub mod types { pub struct A; } };
        let expected = prettyplease::unparse(&syn::parse2(tokens.clone()).unwrap());
        let name = format!("test-{}", std::process::id());
        assert_eq!(format(&name, tokens.clone()).unwrap(), expected);
        assert_eq!(format(&name, tokens).unwrap(), expected);
        if let Some(path) = entry_path(&name) {
            let _ = std::fs::remove_file(path);
        }
    }
}
