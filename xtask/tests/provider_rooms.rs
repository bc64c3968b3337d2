//! One room per provider: no code of the facade, the ledger or the command line names a
//! specific provider outside that provider's own folder (`providers/<name>/` in the facade,
//! `providers/<name>.rs` in the command line), except the registries listed below, each with
//! the number of lines it may spend on the providers. A provider fact written anywhere else is
//! a second source that drifts; it belongs in the provider's profile or folder.
//!
//! Tests are not scanned (files named `tests.rs`, files under a `tests/` folder, and what
//! follows a file's `#[cfg(test)]`): a test names the provider it exercises.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The crates whose sources are scanned, relative to the workspace root.
const SCANNED: &[&str] = &[
    "crates/gpucloud/src",
    "crates/gpucloud-ledger/src",
    "crates/gpucloud-cli/src",
];

/// The providers, as code names them: enum variants, crate and module names, type prefixes.
const VARIANTS: &[&str] = &["Together", "Runcrate", "E2e"];
const MODULES: &[&str] = &["together", "runcrate", "e2e"];

/// The files that may name providers, how many lines each may spend on it, and why. Adding a
/// provider adds one line to each.
const REGISTRIES: &[(&str, usize, &str)] = &[
    (
        "crates/gpucloud/src/cluster.rs",
        7,
        "ProviderKind: its variants, ALL and names",
    ),
    (
        "crates/gpucloud/src/provider_cluster.rs",
        7,
        "ProviderCluster: each provider's raw object, and its JSON with the provider's \
         credentials withheld",
    ),
    (
        "crates/gpucloud/src/providers/mod.rs",
        9,
        "the registry: each provider's profile, and the accessors of its raw cluster object",
    ),
    (
        "crates/gpucloud/src/client.rs",
        30,
        "ClusterClient: one variant, constructor and dispatch arm per provider",
    ),
    (
        "crates/gpucloud/src/lib.rs",
        8,
        "re-exports of each provider's config, options and generated crate",
    ),
    (
        "crates/gpucloud/src/spec.rs",
        6,
        "ProviderOptions: one field per provider, and the re-export of its options type",
    ),
    (
        "crates/gpucloud/src/catalog/mod.rs",
        6,
        "OfferingIds: one variant per provider (its catalog ids) and one arm of its label",
    ),
    (
        "crates/gpucloud-cli/src/flags/request.rs",
        6,
        "RequestArgs: one flag group per provider (from the provider's file)",
    ),
    (
        "crates/gpucloud-cli/src/request.rs",
        9,
        "each provider's options from its flags, the check that no other provider's are given, \
         and which flag sets each field its errors name",
    ),
    (
        "crates/gpucloud-cli/src/commands/demo.rs",
        6,
        "the demo's script: the providers it fails over between and what the simulated E2E \
         account needs in a request",
    ),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root")
        .to_path_buf()
}

/// Whether `path` (relative, with `/`) is a provider's own folder or file.
fn in_provider_room(path: &str) -> bool {
    MODULES.iter().any(|name| {
        path.contains(&format!("/providers/{name}/"))
            || path.ends_with(&format!("/providers/{name}.rs"))
    })
}

fn is_test_file(path: &str) -> bool {
    path.ends_with("/tests.rs") || path.contains("/tests/")
}

/// `line` without its comment and its string literals: the code a provider could be named in.
fn code_of(line: &str) -> String {
    let code = line.split("//").next().unwrap_or("");
    let mut kept = String::with_capacity(code.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in code.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            _ if !in_string => kept.push(c),
            _ => {}
        }
    }
    kept
}

/// Whether `line` names a specific provider: a variant or a type named after one
/// (`ProviderKind::E2e`, `Together(..)`, `RuncrateConfig`), or a module or crate of one
/// (`gpucloud_together`, `providers::e2e`, `runcrate::`).
fn names_a_provider(line: &str) -> bool {
    let code = code_of(line);
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let starts_word = |at: usize| !code[..at].ends_with(word);
    VARIANTS.iter().any(|variant| {
        code.match_indices(variant).any(|(at, _)| {
            let rest = &code[at + variant.len()..];
            starts_word(at)
                && (!rest.starts_with(word)
                    || ["Config", "Options", "Flags", "Clusters", "SfsMount"]
                        .iter()
                        .any(|suffix| rest.starts_with(suffix)))
        })
    }) || MODULES.iter().any(|module| {
        code.contains(&format!("gpucloud_{module}"))
            || code.contains(&format!("::{module}("))
            || code
                .match_indices(&format!("{module}::"))
                .any(|(at, _)| starts_word(at))
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every scanned file outside a provider's room, with the lines that name a provider.
fn provider_lines() -> BTreeMap<String, Vec<(usize, String)>> {
    let root = workspace_root();
    let mut found = BTreeMap::new();
    for dir in SCANNED {
        let mut files = Vec::new();
        rust_files(&root.join(dir), &mut files);
        for file in files {
            let relative = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if in_provider_room(&relative) || is_test_file(&relative) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let lines: Vec<(usize, String)> = code
                .lines()
                .enumerate()
                .filter(|(_, line)| names_a_provider(line))
                .map(|(i, line)| (i + 1, line.trim().to_string()))
                .collect();
            if !lines.is_empty() {
                found.insert(relative, lines);
            }
        }
    }
    found
}

#[test]
fn no_code_outside_a_providers_room_names_a_provider_beyond_the_registries() {
    let found = provider_lines();
    let mut problems = Vec::new();
    for (file, lines) in &found {
        let allowed = REGISTRIES
            .iter()
            .find(|(registry, _, _)| registry == file)
            .map_or(0, |(_, count, _)| *count);
        if lines.len() > allowed {
            let shown: Vec<String> = lines
                .iter()
                .map(|(n, l)| format!("  {file}:{n}: {l}"))
                .collect();
            problems.push(format!(
                "{file}: {} lines name a provider, {allowed} allowed:\n{}",
                lines.len(),
                shown.join("\n")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "provider knowledge outside its room:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_registry_is_still_one_and_counted_exactly() {
    // A registry that names fewer providers than it may has lost its reason (or a provider
    // moved out): its count is kept exact so the list stays the truth.
    let found = provider_lines();
    let wrong: Vec<String> = REGISTRIES
        .iter()
        .filter_map(|(registry, count, why)| {
            let lines = found.get(*registry).map_or(0, Vec::len);
            (lines != *count)
                .then(|| format!("{registry}: {lines} lines, listed as {count} ({why})"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_scan_sees_a_provider_where_one_is_named() {
    for line in [
        "ProviderKind::Together => x,",
        "Self::E2e(raw) => y,",
        "use gpucloud_runcrate::types;",
        "let c = TogetherConfig::new(k);",
        "crate::providers::e2e::view(x)",
        "Runcrate(Box<T>),",
    ] {
        assert!(names_a_provider(line), "{line}");
    }
    for line in [
        "provider.profile().display_name",
        "ProviderKind::ALL",
        "// Together documents no list",
        "let e2e_like = RuncrateLike;",
        "TogetherAI",
    ] {
        assert!(!names_a_provider(line), "{line}");
    }
}
