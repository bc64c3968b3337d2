//! What the team decided: acknowledged findings and per-rule level overrides, read from an
//! acknowledgement file (the command's default is `specs/contract-ack.yaml`).
//!
//! Findings are acknowledged by fingerprint (not by message text, which oasdiff users find
//! brittle: its issue #612), each with a reason, so a reviewed break stops failing CI without
//! hiding the next one.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;

use crate::judge::finding::Finding;
use crate::judge::levels::Level;
use crate::load::{pointer, yaml};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AckFile {
    #[serde(default)]
    acknowledged: Vec<Ack>,
    /// Rule id → `ERR`, `WARN`, `INFO`, or `NONE` (drop the finding).
    #[serde(default)]
    levels: BTreeMap<String, String>,
    /// Minimum deprecation periods (see `Lifecycle`).
    #[serde(default)]
    deprecation_days: DeprecationDays,
}

/// `deprecation_days: {stable: 90, beta: 30}` in the acknowledgement file.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeprecationDays {
    #[serde(default)]
    stable: Option<u32>,
    #[serde(default)]
    beta: Option<u32>,
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

/// Acknowledged findings and per-rule level overrides, from a YAML (or JSON) file:
///
/// ```yaml
/// acknowledged:
///   - fingerprint: 3f2a9c0d1e4b   # the finding's 12 hex characters
///     id: response-property-enum-value-added   # optional; must match if given
///     reason: the provider added Suspended; our enums are open   # required
/// levels:                          # per-rule override: ERR, WARN, INFO, or NONE (hide)
///   api-operation-id-removed: INFO
/// deprecation_days:                # minimum days from deprecation to x-sunset (optional)
///   stable: 90
///   beta: 30
/// ```
///
/// The default policy is empty: every finding counts at its derived level.
#[derive(Debug, Default)]
pub struct Policy {
    acks: Vec<Ack>,
    /// `None` hides the rule.
    levels: BTreeMap<String, Option<Level>>,
    deprecation_days: DeprecationDays,
}

/// Findings after the policy: the ones that count, and the acknowledged ones with their reason.
#[derive(Debug, Default)]
pub struct Judged {
    /// Unacknowledged findings, at their level after overrides.
    pub findings: Vec<Finding>,
    /// Acknowledged findings, each with the reason the acknowledgement gives.
    pub acknowledged: Vec<(Finding, String)>,
}

impl Policy {
    /// Reads the acknowledgement file at `path`; a missing or empty file is the empty policy.
    /// Only a regular file of at most [`ACK_LIMIT`](crate::load::input::ACK_LIMIT) bytes is read.
    /// Errors name the file and the JSON pointer of the bad entry.
    pub fn load(path: &Path) -> Result<Policy, crate::load::error::Error> {
        Ok(Policy::read(path)?)
    }

    /// Parses the content of an acknowledgement file, named `name` in errors.
    pub fn parse(name: &str, text: &str) -> Result<Policy, crate::load::error::Error> {
        Ok(Policy::from_text(name, text)?)
    }

    /// A regular file of at most [`crate::load::input::ACK_LIMIT`] bytes.
    pub(crate) fn read(path: &Path) -> Result<Policy> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Policy::default()),
            Err(e) => bail!("{}: cannot read the file: {e}", path.display()),
            Ok(_) => {}
        }
        let text = crate::load::input::read(
            path,
            crate::load::input::ACK_LIMIT,
            "an acknowledgement file",
        )?;
        Policy::from_text(&path.display().to_string(), &text)
    }

    fn from_text(name: &str, text: &str) -> Result<Policy> {
        if text.trim().is_empty() {
            return Ok(Policy::default());
        }
        let tree = yaml::tree(name, text)?;
        let file: AckFile = serde_path_to_error::deserialize(&tree).map_err(|e| {
            anyhow!(
                "{name}: at {}: {}",
                pointer::from_serde_path(e.path()),
                e.inner()
            )
        })?;
        let mut levels = BTreeMap::new();
        for (id, level) in file.levels {
            let parsed = match level.to_ascii_uppercase().as_str() {
                "NONE" => None,
                other => Some(Level::parse(other).ok_or_else(|| {
                    anyhow!(
                        "{name}: at /levels/{id}: unknown level {level:?} (ERR, WARN, INFO or NONE)"
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
                    "{name}: at /acknowledged/{i}/fingerprint: {:?} is not 12 hex characters",
                    ack.fingerprint
                );
            }
            if ack.reason.trim().is_empty() {
                bail!("{name}: at /acknowledged/{i}/reason: a reason is required");
            }
        }
        Ok(Policy {
            acks: file.acknowledged,
            levels,
            deprecation_days: file.deprecation_days,
        })
    }

    /// The file's minimum deprecation periods, `(stable, beta)`, where it gives them.
    pub fn deprecation_days(&self) -> (Option<u32>, Option<u32>) {
        (self.deprecation_days.stable, self.deprecation_days.beta)
    }

    /// Applies overrides (a `NONE` override drops the finding), then acknowledgements: a finding
    /// is acknowledged when an entry has its fingerprint (any case) and, if the entry names an
    /// id, its id.
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
