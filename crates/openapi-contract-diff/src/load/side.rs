//! Where a side comes from: a file, or `GITREV:path` read with `git show` in a root directory
//! (the current directory for the `openapi-contract-diff` binary).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, anyhow, bail};

use crate::load::document::Doc;
use crate::load::input::{self, SPEC_LIMIT};

/// One side of a comparison as given on the command line: a spec file, or a spec at a git
/// revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    /// A file, read as it is (relative paths against the current directory).
    File(PathBuf),
    /// `rev:path`, `path` relative to the repository root.
    Git { rev: String, path: String },
}

impl Side {
    /// A path that exists is a file even if it contains `:`; otherwise `REV:path` is git.
    pub fn parse(text: &str) -> Side {
        if !Path::new(text).exists()
            && let Some((rev, path)) = text.split_once(':')
            && !rev.is_empty()
            && !path.is_empty()
        {
            return Side::Git {
                rev: rev.to_string(),
                path: path.to_string(),
            };
        }
        Side::File(PathBuf::from(text))
    }

    /// How messages and reports name the side: the path, or `REV:path`.
    pub fn name(&self) -> String {
        match self {
            Side::File(p) => p.display().to_string(),
            Side::Git { rev, path } => format!("{rev}:{path}"),
        }
    }

    /// The side's text, at most [`SPEC_LIMIT`] bytes: a file only if it is a regular file
    /// ([`input::read_file`]); a git side runs `git -C root show REV:path` once `git cat-file`
    /// has said it is a file (a blob) of at most that size. `root` may be empty (the current
    /// directory).
    pub fn read(&self, root: &Path) -> Result<String, crate::load::error::Error> {
        Ok(self.text(root)?)
    }

    fn text(&self, root: &Path) -> Result<String> {
        match self {
            Side::File(path) => input::read(path, SPEC_LIMIT, "a spec"),
            Side::Git { rev, path } => {
                let object = format!("{rev}:{path}");
                let unknown =
                    |e: anyhow::Error| anyhow!("{object}: unknown git revision or path ({e})");
                let kind = git(root, &["cat-file", "-t", &object]).map_err(unknown)?;
                if kind.trim() != "blob" {
                    bail!("{object}: a git {}, not a file", kind.trim());
                }
                let size = git(root, &["cat-file", "-s", &object]).map_err(unknown)?;
                let size: u64 = size.trim().parse().unwrap_or(u64::MAX);
                if size > SPEC_LIMIT {
                    bail!("{object}: {}", input::too_large(size, SPEC_LIMIT, "a spec"));
                }
                git(root, &["show", &object]).map_err(unknown)
            }
        }
    }

    /// Reads, parses and checks the side.
    pub fn load(&self, root: &Path) -> Result<Doc> {
        Doc::parse(self.name(), &self.text(root)?)
    }
}

/// Runs git in `root`; returns stdout, or stderr's first line as the error.
fn git(root: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| anyhow!("cannot run git: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .next()
            .unwrap_or("git failed")
            .trim()
            .to_string();
        bail!("{line}");
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Why `rev` cannot be compared against, when that is expected rather than an error: a shallow
/// clone (history cut off) or a first commit (no parent). `None` when `rev` resolves or when
/// its absence is a real mistake.
pub fn skip_reason(root: &Path, rev: &str) -> Option<String> {
    if git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .is_ok()
    {
        return None;
    }
    let shallow =
        git(root, &["rev-parse", "--is-shallow-repository"]).is_ok_and(|s| s.trim() == "true");
    if shallow {
        return Some(format!(
            "skipped: {rev} is not in this shallow clone; nothing to compare against"
        ));
    }
    let has_head = git(root, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).is_ok();
    let has_parent = git(
        root,
        &["rev-parse", "--verify", "--quiet", "HEAD^1^{commit}"],
    )
    .is_ok();
    if !has_head || !has_parent {
        return Some(format!(
            "skipped: {rev} does not exist on a first commit; nothing to compare against"
        ));
    }
    None
}

/// `specs/*.yaml` in the work tree, as root-relative paths.
pub fn work_tree_specs(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("specs");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| anyhow!("{}: cannot list: {e}", dir.display()))?;
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| is_spec(n))
        .map(|n| format!("specs/{n}"))
        .collect();
    out.sort();
    Ok(out)
}

/// `specs/*.yaml` at `rev`.
pub fn specs_at(root: &Path, rev: &str) -> Result<Vec<String>> {
    let listing = git(root, &["ls-tree", "--name-only", rev, "specs/"])
        .map_err(|e| anyhow!("{rev}: unknown git revision ({e})"))?;
    let mut out: Vec<String> = listing
        .lines()
        .filter(|p| p.rsplit('/').next().is_some_and(is_spec))
        .map(str::to_string)
        .collect();
    out.sort();
    Ok(out)
}

/// Spec files, not the acknowledgement file that lives beside them.
fn is_spec(name: &str) -> bool {
    name.ends_with(".yaml") && name != "contract-ack.yaml"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides() {
        assert_eq!(
            Side::parse("HEAD~1:specs/x.yaml"),
            Side::Git {
                rev: "HEAD~1".into(),
                path: "specs/x.yaml".into()
            }
        );
        assert_eq!(
            Side::parse("specs/x.yaml"),
            Side::File("specs/x.yaml".into())
        );
    }
}
