//! What a comparison produces: a [`Change`] (a rule, where, and how it moves the set of valid
//! messages) and the [`Finding`] it becomes once the level table ([`levels`](crate::judge::levels))
//! has judged it, with the fingerprint acknowledgements name it by.

use serde::Serialize;

use sha2::{Digest, Sha256};

use crate::judge::levels::{ClientImpact, Direction, Effect, Guard, Level, client_impact, level};

/// One fact found by comparing BASE with REVISION, before judgement.
#[derive(Debug, Clone)]
pub struct Change {
    pub id: String,
    pub direction: Direction,
    pub effect: Effect,
    pub guard: Option<Guard>,
    /// `METHOD /path` as written in REVISION (BASE for removals); empty for spec-wide changes.
    pub operation: String,
    /// JSON pointer into REVISION for things that exist there, into BASE for removals.
    pub location: String,
    /// `location` points into BASE (the thing is gone from REVISION).
    pub in_base: bool,
    /// The stable argument of the change (a property name, an enum value), hashed into the
    /// fingerprint so two findings at one location stay apart while wording may change.
    pub detail: String,
    pub message: String,
}

/// A judged change, as printed.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub id: String,
    pub level: Level,
    pub direction: Direction,
    pub operation: String,
    pub location: String,
    pub message: String,
    pub fingerprint: String,
    /// What the change does to gpucloud's own generated client ([`ClientImpact`]).
    pub client_impact: ClientImpact,
}

impl Change {
    /// Judges the change with the level table.
    pub fn into_finding(self) -> Finding {
        let fingerprint = fingerprint(&self.id, &self.operation, &self.location, &self.detail);
        Finding {
            level: level(self.direction, self.effect, self.guard),
            client_impact: client_impact(self.direction, self.effect, self.guard),
            id: self.id,
            direction: self.direction,
            operation: self.operation,
            location: self.location,
            message: self.message,
            fingerprint,
        }
    }
}

/// 12 hex characters of SHA-256 over the stable parts of a finding (never its message), so an
/// acknowledgement survives rewording.
pub fn fingerprint(id: &str, operation: &str, location: &str, detail: &str) -> String {
    let text = format!("{id}\u{0}{operation}\u{0}{location}\u{0}{detail}");
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_message() {
        let a = fingerprint("x", "GET /a", "/paths", "v");
        assert_eq!(a.len(), 12);
        assert_ne!(a, fingerprint("x", "GET /a", "/paths", "w"));
    }
}
