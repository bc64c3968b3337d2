//! Collects the changes of one operation (or one spec) while the comparison walks it.

use crate::judge::finding::Change;
use crate::judge::levels::{Direction, Effect, Guard};
use crate::judge::rules::{Rule, SchemaRule, Subject};

/// A location: a JSON pointer into REVISION, or into BASE for things REVISION no longer has.
#[derive(Debug, Clone)]
pub enum Loc {
    Rev(String),
    Base(String),
}

/// Where the changes go, and which operation they belong to.
#[derive(Debug, Default)]
pub struct Emitter {
    /// `METHOD /path`, empty for spec-wide changes.
    pub operation: String,
    pub changes: Vec<Change>,
    /// Pointers (into either document) whose whole subtree a rule has judged, with or without
    /// a finding: a type swap (nothing below compares any more), a property never sent, a
    /// default that never applies. The completeness pass leaves differences under them alone.
    pub claims: Vec<String>,
}

impl Emitter {
    pub fn new(operation: String) -> Emitter {
        Emitter {
            operation,
            changes: Vec::new(),
            claims: Vec::new(),
        }
    }

    /// Claims the subtree at `ptr` as judged (see [`Emitter::claims`]).
    pub fn claim(&mut self, ptr: &str) {
        self.claims.push(ptr.to_string());
    }

    /// A fixed-id rule, with an extra guard that holds in this instance (e.g. deprecation).
    pub fn rule(
        &mut self,
        rule: Rule,
        guard: Option<Guard>,
        loc: Loc,
        detail: &str,
        message: String,
    ) {
        self.push(
            rule.id().to_string(),
            rule.direction(),
            rule.effect(),
            rule.guard().or(guard),
            loc,
            detail,
            message,
        );
    }

    /// A schema keyword rule at a place.
    #[allow(clippy::too_many_arguments)]
    pub fn schema(
        &mut self,
        rule: SchemaRule,
        direction: Direction,
        subject: Subject,
        guard: Option<Guard>,
        loc: Loc,
        detail: &str,
        message: String,
    ) {
        self.push(
            rule.id(direction, subject),
            direction,
            rule.effect(),
            guard,
            loc,
            detail,
            message,
        );
    }

    /// A difference no rule claims ([`crate::judge::rules::UNCLASSIFIED`]): unknown effect, so WARN.
    pub fn unclassified(&mut self, direction: Direction, loc: Loc, detail: &str, message: String) {
        self.push(
            crate::judge::rules::UNCLASSIFIED.to_string(),
            direction,
            Effect::Unknown,
            None,
            loc,
            detail,
            message,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        id: String,
        direction: Direction,
        effect: Effect,
        guard: Option<Guard>,
        loc: Loc,
        detail: &str,
        message: String,
    ) {
        let (location, in_base) = match loc {
            Loc::Rev(p) => (p, false),
            Loc::Base(p) => (p, true),
        };
        self.changes.push(Change {
            id,
            direction,
            effect,
            guard,
            operation: self.operation.clone(),
            location,
            in_base,
            detail: detail.to_string(),
            message,
        });
    }
}
