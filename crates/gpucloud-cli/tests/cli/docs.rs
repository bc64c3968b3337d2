//! The documentation is checked against the tree and the binary: every relative link and
//! every repository path a README or `docs/` file names exists (placeholders such as
//! `<name>`, `{a,b}` and `*` expanded), every local URL uses the port `gpucloud sim` listens
//! on, and every `gpucloud …` command in a code block names real subcommands and flags.

use std::path::{Path, PathBuf};

use regex::Regex;

use crate::support::{COMMANDS, gpucloud};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md, docs/*.md and each crate's README, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "crates"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for path in entries {
            if dir == "docs" && path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            } else if dir == "crates" && path.join("README.md").is_file() {
                files.push(path.join("README.md"));
            }
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            (path, text)
        })
        .collect()
}

/// `pattern` with `<…>` placeholders and `{a,b}` alternatives expanded.
fn expansions(pattern: &str) -> Vec<String> {
    if let (Some(open), Some(close)) = (pattern.find('<'), pattern.find('>'))
        && open < close
    {
        return ["together", "runcrate", "e2e"]
            .iter()
            .flat_map(|p| expansions(&format!("{}{p}{}", &pattern[..open], &pattern[close + 1..])))
            .collect();
    }
    if let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}'))
        && open < close
    {
        return pattern[open + 1..close]
            .split(',')
            .flat_map(|alt| {
                expansions(&format!(
                    "{}{alt}{}",
                    &pattern[..open],
                    &pattern[close + 1..]
                ))
            })
            .collect();
    }
    vec![pattern.to_string()]
}

/// Whether `path` (relative to `base`) exists; a `*` in its last part matches anything.
fn exists(base: &Path, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    match path.rsplit_once('/') {
        Some((dir, last)) if last.contains('*') => {
            let (head, tail) = last.split_once('*').unwrap_or((last, ""));
            std::fs::read_dir(base.join(dir)).is_ok_and(|entries| {
                entries.filter_map(Result::ok).any(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with(head) && name.ends_with(tail)
                })
            })
        }
        _ => base.join(path).exists(),
    }
}

#[test]
fn every_link_and_repository_path_in_the_docs_exists() {
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let named = Regex::new(r"`((?:crates|specs|xtask|tests|docs|\.ci)/[^`\s]*)`").unwrap();
    let mut missing = Vec::new();
    for (file, text) in documents() {
        let dir = file.parent().unwrap().to_path_buf();
        for found in link.captures_iter(&text) {
            let target = &found[1];
            if target.starts_with("http")
                || target.starts_with('#')
                || target.starts_with("mailto:")
            {
                continue;
            }
            let target = target.split('#').next().unwrap_or(target);
            if !exists(&dir, target) {
                missing.push(format!("{}: link {target}", file.display()));
            }
        }
        for found in named.captures_iter(&text) {
            for path in expansions(&found[1]) {
                // Paths in a crate's README are often the crate's own; the README of the
                // workspace and docs/ name them from the root.
                if !exists(&root(), &path) && !exists(&dir, &path) {
                    missing.push(format!("{}: path {path}", file.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "missing:\n{}", missing.join("\n"));
}

#[test]
fn every_local_url_in_the_docs_uses_the_simulators_port() {
    let help = gpucloud(&["sim", "--help"], &[]);
    help.expect_code(0);
    assert!(help.stdout.contains("8480"), "{}", help.stdout);
    let local = Regex::new(r"(?:localhost|127\.0\.0\.1):(\d+)").unwrap();
    let mut wrong = Vec::new();
    for (file, text) in documents() {
        for found in local.captures_iter(&text) {
            if &found[1] != "8480" {
                wrong.push(format!("{}: {}", file.display(), &found[0]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "not the simulator's port:\n{}",
        wrong.join("\n")
    );
}

/// The `gpucloud …` lines of the docs' code blocks: each names subcommands that exist and
/// flags those subcommands take.
#[test]
fn every_command_in_the_docs_names_real_subcommands_and_flags() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (file, text) in documents() {
        let mut in_block = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
                continue;
            }
            let line = line.trim().trim_start_matches("$ ");
            if !in_block || !line.starts_with("gpucloud ") {
                continue;
            }
            let line = line.split('#').next().unwrap_or(line);
            let words: Vec<&str> = line.split_whitespace().skip(1).collect();
            let path: Vec<&str> = words
                .iter()
                .take_while(|w| {
                    w.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !w.starts_with('-')
                })
                .copied()
                .collect();
            // The longest prefix of the words that is a command.
            let Some((command, help)) = (1..=path.len()).rev().find_map(|n| {
                let mut args: Vec<&str> = path[..n].to_vec();
                args.push("--help");
                let run = gpucloud(&args, &[]);
                (run.code == 0).then(|| (path[..n].join(" "), run.stdout))
            }) else {
                wrong.push(format!("{}: `{line}`: no such command", file.display()));
                continue;
            };
            let global = gpucloud(&["--help"], &[]).stdout;
            for flag in words.iter().filter(|w| w.starts_with("--")) {
                let flag = flag.split('=').next().unwrap_or(flag);
                let flag = flag.trim_matches([',', ')', '(', '`', ']', '[', '|']);
                if !help.contains(flag) && !global.contains(flag) {
                    wrong.push(format!(
                        "{}: `{line}`: {command} has no {flag}",
                        file.display()
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} commands found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every command's `--help` ends with examples (as `gh` does), and each example names flags
/// its command has.
#[test]
fn every_command_has_examples_that_name_its_own_flags() {
    let global = gpucloud(&["--help"], &[]).stdout;
    for command in COMMANDS {
        let args: Vec<&str> = command.iter().copied().chain(["--help"]).collect();
        let help = gpucloud(&args, &[]);
        help.expect_code(0);
        let (_, examples) = help
            .stdout
            .split_once("Examples:\n")
            .unwrap_or_else(|| panic!("{command:?} has no examples:\n{}", help.stdout));
        let lines: Vec<&str> = examples
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("gpucloud "))
            .collect();
        assert!(!lines.is_empty(), "{command:?}: {examples}");
        for line in lines {
            for flag in line.split_whitespace().filter(|w| w.starts_with("--")) {
                let target = command.iter().copied().filter(|w| line.contains(*w));
                let sub: Vec<&str> = target.chain(["--help"]).collect();
                let own = gpucloud(&sub, &[]).stdout;
                // `clusters`' examples name its subcommands' flags.
                let sub_help = line
                    .split_whitespace()
                    .skip(1)
                    .take_while(|w| !w.starts_with('-'))
                    .take(2)
                    .chain(["--help"])
                    .collect::<Vec<_>>();
                let theirs = gpucloud(&sub_help, &[]).stdout;
                assert!(
                    own.contains(flag) || theirs.contains(flag) || global.contains(flag),
                    "{command:?}: `{line}`: no {flag}"
                );
            }
        }
    }
}

#[test]
fn the_json_output_section_documents_every_command() {
    let text = std::fs::read_to_string(root().join("docs/cli.md")).unwrap_or_default();
    let section = text
        .split_once("## JSON output")
        .map(|(_, section)| section)
        .unwrap_or_default();
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    // `clusters` alone only lists its subcommands.
    for command in crate::support::COMMANDS
        .iter()
        .filter(|c| **c != ["clusters"])
    {
        let (first, rest) = command.split_first().unwrap_or((&"", &[]));
        let documented = rows.iter().any(|row| {
            let cell = row.split('|').nth(1).unwrap_or_default();
            match rest.first() {
                // `clusters get`, `wait`, `resize` share a row: the subcommand may stand alone.
                Some(sub) => {
                    cell.contains(&format!("`{first} {sub}")) || cell.contains(&format!("`{sub}`"))
                }
                None => cell.contains(&format!("`{first}")),
            }
        });
        assert!(
            documented,
            "docs/cli.md's JSON output has no row for {command:?}"
        );
    }
}

#[test]
fn the_readme_s_ten_lines_are_the_example_that_compiles() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap_or_default();
    let section = readme
        .split("## The library in ten lines")
        .nth(1)
        .unwrap_or_else(|| panic!("no ten-line section in the README"));
    let code = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .unwrap_or_else(|| panic!("no rust block in the ten-line section"));
    let example =
        std::fs::read_to_string(root().join("crates/gpucloud-ledger/examples/ten_lines.rs"))
            .unwrap_or_default();
    let body: String = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(code, body, "the README shows the example, byte for byte");
}

#[test]
fn every_configuration_file_in_the_docs_is_one_gpucloud_reads() {
    let mut checked = 0;
    for (path, text) in documents() {
        for block in text.split("```toml\n").skip(1) {
            let Some(body) = block.split("```").next() else {
                continue;
            };
            // A configuration file is one with a provider's section or a price book.
            if !(body.contains("price_book") || body.contains("[e2e]")) {
                continue;
            }
            if let Err(e) = gpucloud::config_file::ConfigFile::parse(&path, body) {
                panic!("{}: {e}\n{body}", path.display());
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 2,
        "the README's and docs/cli.md's examples: {checked}"
    );
}
