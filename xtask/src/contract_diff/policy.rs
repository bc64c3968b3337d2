//! What the team decided: acknowledged findings and per-rule level overrides, read from
//! `specs/contract-ack.yaml`.
//!
//! Findings are acknowledged by fingerprint (not by message text, which oasdiff users find
//! brittle: its issue #612), each with a reason, so a reviewed break stops failing CI without
//! hiding the next one.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;

use super::finding::{Finding, Level};
use crate::spec::SpecFile;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AckFile {
    #[serde(default)]
    acknowledged: Vec<Ack>,
    /// Rule id → `ERR`, `WARN`, `INFO`, or `NONE` (drop the finding).
    #[serde(default)]
    levels: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ack {
    fingerprint: String,
    /// Optional; when given, the finding must also have this id.
    #[serde(default)]
    id: Option<String>,
    reason: String,
}

/// The loaded policy.
#[derive(Debug, Default)]
pub struct Policy {
    acks: Vec<Ack>,
    /// `None` hides the rule.
    levels: BTreeMap<String, Option<Level>>,
}

/// Findings after the policy: the ones that count, and the acknowledged ones with their reason.
#[derive(Debug, Default)]
pub struct Judged {
    pub findings: Vec<Finding>,
    pub acknowledged: Vec<(Finding, String)>,
}

/// serde_path_to_error's path as a JSON pointer.
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let tokens: Vec<String> = path
        .iter()
        .map(|s| match s {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                crate::spec::escape_pointer_token(key)
            }
            Segment::Unknown => "?".into(),
        })
        .collect();
    format!("/{}", tokens.join("/"))
}

impl Policy {
    /// Reads `path`; a missing file is an empty policy.
    pub fn load(path: &Path) -> Result<Policy> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Policy::default()),
            Err(e) => bail!("{}: cannot read the file: {e}", path.display()),
        };
        if text.trim().is_empty() {
            return Ok(Policy::default());
        }
        let tree = SpecFile::parse(path, &text)?.tree;
        let file: AckFile = serde_path_to_error::deserialize(&tree).map_err(|e| {
            anyhow!(
                "{}: at {}: {}",
                path.display(),
                pointer(e.path()),
                e.inner()
            )
        })?;
        let mut levels = BTreeMap::new();
        for (id, level) in file.levels {
            let parsed = match level.to_ascii_uppercase().as_str() {
                "NONE" => None,
                other => Some(Level::parse(other).ok_or_else(|| {
                    anyhow!(
                        "{}: at /levels/{id}: unknown level {level:?} (ERR, WARN, INFO or NONE)",
                        path.display()
                    )
                })?),
            };
            levels.insert(id, parsed);
        }
        for (i, ack) in file.acknowledged.iter().enumerate() {
            let valid = ack.fingerprint.len() == 12
                && ack.fingerprint.chars().all(|c| c.is_ascii_hexdigit());
            if !valid {
                bail!(
                    "{}: at /acknowledged/{i}/fingerprint: {:?} is not 12 hex characters",
                    path.display(),
                    ack.fingerprint
                );
            }
            if ack.reason.trim().is_empty() {
                bail!(
                    "{}: at /acknowledged/{i}/reason: a reason is required",
                    path.display()
                );
            }
        }
        Ok(Policy {
            acks: file.acknowledged,
            levels,
        })
    }

    /// Applies overrides, then acknowledgements.
    pub fn judge(&self, findings: Vec<Finding>) -> Judged {
        let mut out = Judged::default();
        for mut finding in findings {
            match self.levels.get(&finding.id) {
                Some(None) => continue,
                Some(Some(level)) => finding.level = *level,
                None => {}
            }
            let ack = self.acks.iter().find(|a| {
                a.fingerprint.eq_ignore_ascii_case(&finding.fingerprint)
                    && a.id.as_ref().is_none_or(|id| *id == finding.id)
            });
            match ack {
                Some(ack) => out.acknowledged.push((finding, ack.reason.clone())),
                None => out.findings.push(finding),
            }
        }
        out
    }
}
