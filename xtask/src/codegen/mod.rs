//! `cargo xtask codegen`: lint each spec, generate its client module, and write it (or, with
//! `--check`, compare it with the committed file and fail on drift).

mod format_cache;
mod generate;
mod lint;
mod open_enum;
pub mod providers;
mod tables;

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use similar::TextDiff;

use crate::spec::SpecFile;
use providers::{PROVIDERS, Provider};

/// Options of `cargo xtask codegen`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Regenerate in memory, print a unified diff against the committed files, and fail if any differ.
    #[arg(long)]
    pub check: bool,
    /// Only this provider (together, runcrate, e2e).
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(PROVIDERS.iter().map(|p| p.name)))]
    pub provider: Option<String>,
}

/// A spec that could not be read (missing, not a regular file, over 32 MiB) or parsed (not
/// YAML/JSON, a broken outline, Swagger 2.0, not the OpenAPI 3.0 model): `cargo xtask codegen`
/// exits 2 for it, as `contract-diff` does for input it cannot use. The message is one line.
#[derive(Debug)]
pub struct BrokenSpec(String);

impl BrokenSpec {
    /// Wraps the reason `error` gives, on one line.
    pub fn wrap(error: anyhow::Error) -> anyhow::Error {
        anyhow::Error::new(BrokenSpec(format!("{error:#}").replace('\n', " ")))
    }
}

impl std::fmt::Display for BrokenSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BrokenSpec {}

/// Runs the command from the workspace root `root`. A [`BrokenSpec`] error means a spec could
/// not be read or parsed.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    let selected: Vec<&Provider> = PROVIDERS
        .iter()
        .filter(|p| args.provider.as_deref().is_none_or(|name| p.name == name))
        .collect();

    // Generate everything before touching any file: a broken spec changes nothing.
    let mut outputs = Vec::new();
    let mut failures = Vec::new();
    let mut broken = false;
    // Providers are independent: generate each on its own thread (progenitor's tokens are not
    // `Send`, so each thread runs one provider from spec to text), and take the results in
    // provider order so messages and files come out as from a sequential run.
    let results: Vec<Result<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = selected
            .iter()
            .map(|provider| scope.spawn(move || generate_one(root, provider)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    for (provider, result) in selected.iter().zip(results) {
        match result {
            Ok(text) => outputs.push((root.join(provider.generated_file()), text)),
            Err(e) => {
                broken |= e.downcast_ref::<BrokenSpec>().is_some();
                failures.push(format!("{e:#}"));
            }
        }
    }
    if !failures.is_empty() {
        // One failure stays on the line of the verdict.
        let separator = if failures.len() == 1 { " " } else { "\n" };
        let message = format!(
            "codegen failed; no file was written:{separator}{}",
            failures.join("\n")
        );
        if broken {
            return Err(anyhow::Error::new(BrokenSpec(message)));
        }
        bail!(message);
    }

    let mut stale = Vec::new();
    for (path, text) in &outputs {
        let current = std::fs::read_to_string(path).unwrap_or_default();
        // Git on some platforms checks files out with CRLF; that is not drift.
        if current.replace("\r\n", "\n") == *text {
            continue;
        }
        if args.check {
            print_diff(root, path, &current, text);
            stale.push(path.clone());
        } else {
            write_atomically(path, text)?;
            println!("wrote {}", relative(root, path).display());
        }
    }
    if !stale.is_empty() {
        bail!(
            "{} generated file(s) do not match the specs; run `cargo xtask codegen` and commit the result",
            stale.len()
        );
    }
    if args.check {
        println!(
            "generated code is up to date ({} provider(s))",
            outputs.len()
        );
    }
    Ok(())
}

/// Loads, lints and generates one provider; errors name the spec file and location.
fn generate_one(root: &Path, provider: &Provider) -> Result<String> {
    let spec = SpecFile::load(&root.join(provider.spec)).map_err(BrokenSpec::wrap)?;
    let spec = SpecFile {
        path: PathBuf::from(provider.spec),
        ..spec
    };
    // A spec that does not fit the OpenAPI 3.0 model is broken, whatever the lints would say.
    let openapi = spec.openapi().map_err(BrokenSpec::wrap)?;
    let violations = lint::lint(&spec);
    if !violations.is_empty() {
        let lines: Vec<String> = violations
            .iter()
            .map(|v| format!("{}: {v}", provider.spec))
            .collect();
        bail!(
            "{} violates the rules progenitor needs:\n{}",
            provider.spec,
            lines.join("\n")
        );
    }
    let generated = generate::generate(provider, &spec, &openapi)?;
    check_manifest(root, provider, &generated.required_dependencies)?;
    Ok(generated.text)
}

/// The hand-written crate manifest must list every crate the generated code uses.
fn check_manifest(root: &Path, provider: &Provider, required: &[&str]) -> Result<()> {
    let manifest_path = format!("{}/Cargo.toml", provider.crate_dir);
    let manifest = std::fs::read_to_string(root.join(&manifest_path)).unwrap_or_default();
    let missing: Vec<&&str> = required
        .iter()
        .filter(|dep| {
            !manifest.lines().any(|l| {
                l.trim_start().starts_with(&format!("{dep}."))
                    || l.trim_start().starts_with(&format!("{dep} "))
            })
        })
        .collect();
    if !missing.is_empty() {
        bail!("{manifest_path}: the generated code needs these dependencies: {missing:?}");
    }
    Ok(())
}

fn print_diff(root: &Path, path: &Path, old: &str, new: &str) {
    let name = relative(root, path).display().to_string();
    let diff = TextDiff::from_lines(old, new);
    print!(
        "{}",
        diff.unified_diff().context_radius(3).header(
            &format!("a/{name} (committed)"),
            &format!("b/{name} (from spec)")
        )
    );
}

/// Writes through a temporary file in the same directory and renames it into place, so a reader
/// (or an interrupted run) never sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    use anyhow::Context;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

fn relative<'a>(root: &Path, path: &'a Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}
