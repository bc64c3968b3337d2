//! The level table: how bad a change is, from who sends the value (its [`Direction`]), how
//! the change moves the set of valid values (its [`Effect`]) and the circumstances that re-aim
//! it (a [`Guard`]).
//!
//! Levels are never set per rule. A rule states its *effect* on the set of valid values at its
//! location; [`level`] turns (direction, effect, guard) into ERR/WARN/INFO with one small table,
//! the model oasdiff adopted in v1.30: narrowing breaks the side that *sends* (requests),
//! widening breaks the side that *receives* (responses), incomparable breaks both, unknown asks a
//! human. [`client_impact`] reads the same facts for the generated client.

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Level {
    #[serde(rename = "INFO")]
    Info,
    #[serde(rename = "WARN")]
    Warn,
    #[serde(rename = "ERR")]
    Err,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Err => "ERR",
        }
    }

    /// Parses `ERR`, `WARN`, `INFO` (any case).
    pub fn parse(text: &str) -> Option<Level> {
        match text.to_ascii_uppercase().as_str() {
            "ERR" | "ERROR" => Some(Level::Err),
            "WARN" | "WARNING" => Some(Level::Warn),
            "INFO" => Some(Level::Info),
            _ => None,
        }
    }
}

/// Who sends the value a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The client sends it (parameters, request bodies, credentials).
    Request,
    /// The server sends it (response bodies and headers, status codes).
    Response,
    /// Neither: the existence of operations and specs.
    None,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
            Direction::None => "none",
        }
    }
}

/// How a change moves the set of values (or operations, credentials) that are valid at its
/// location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// More values are valid than before.
    Widen,
    /// Fewer values are valid than before.
    Narrow,
    /// Some values became valid and others invalid (a type swap).
    Incomparable,
    /// The spec does not say enough to decide (a pattern rewritten, a default changed).
    Unknown,
    /// No value changes validity (documentation, an optional field added).
    None,
    /// The change breaks a declared policy rather than the wire: a deprecation without the
    /// sunset the minimum deprecation period requires, a stability level lowered.
    Violation,
}

/// A circumstance that re-aims or neutralises an effect (oasdiff's "guards").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// The removed thing was `deprecated: true` in BASE: its removal was announced.
    Deprecated,
    /// The client chooses it (a response media type is picked by `Accept`).
    Negotiated,
    /// The change only touches error responses, which a client already treats as failures.
    NonSuccess,
    /// The property may be left out: tightening its nullability only breaks clients that send an
    /// explicit `null` instead of omitting it (clients that skip unset fields, as serde's
    /// `skip_serializing_if` does, are unaffected).
    Omittable,
    /// The enum is open for the Rust clients the diff assumes: a named string enum in
    /// `components/schemas` is generated with an `Unknown(..)` variant that keeps unlisted
    /// values, and `x-extensible-enum: true` marks any enum open.
    OpenEnum,
    /// The operation was `x-stability-level: draft` or `alpha` in BASE: its clients were told
    /// it may change, so no change to it breaks (oasdiff's stability policy).
    Unstable,
}

/// The level table. Everything else in the diff only states facts.
pub fn level(direction: Direction, effect: Effect, guard: Option<Guard>) -> Level {
    match (guard, direction, effect) {
        (Some(Guard::Deprecated | Guard::Unstable), _, _) => Level::Info,
        (_, _, Effect::Violation) => Level::Err,
        (Some(Guard::Negotiated | Guard::NonSuccess), _, Effect::Widen) => Level::Info,
        // Explicit exception: a received enum that grows is WARN, not ERR, when the generated
        // type keeps unknown values (strict clients of other generators still break).
        (Some(Guard::OpenEnum), Direction::Response, Effect::Widen) => Level::Warn,
        (Some(Guard::Omittable), Direction::Request, Effect::Narrow) => Level::Warn,
        (_, _, Effect::Incomparable) => Level::Err,
        (_, _, Effect::Unknown) => Level::Warn,
        (_, _, Effect::None) => Level::Info,
        (_, Direction::Response, Effect::Widen) => Level::Err,
        (_, Direction::Response, Effect::Narrow) => Level::Info,
        (_, Direction::Request | Direction::None, Effect::Narrow) => Level::Err,
        (_, Direction::Request | Direction::None, Effect::Widen) => Level::Info,
    }
}

/// What the change does to a client generated from BASE the way gpucloud's are (progenitor and
/// typify, with open enums), which no wire-level rule can tell: `client_impact` in JSON, a
/// `[breaks our client]` marker in text, and the `--fail-on-client-impact` gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClientImpact {
    /// The generated client keeps working: it takes new values of open enums, ignores extra
    /// fields, never sends a field it leaves unset, and an announced removal was deprecated.
    Unaffected,
    /// Nobody can tell from the spec (a pattern rewritten, a default changed).
    Unknown,
    /// The generated client stops working: a field that became optional or nullable no longer
    /// fits a required Rust field, a closed enum meets a new value, a removed operation or a
    /// newly required input fails the call.
    Breaks,
}

impl ClientImpact {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientImpact::Unaffected => "unaffected",
            ClientImpact::Unknown => "unknown",
            ClientImpact::Breaks => "breaks",
        }
    }
}

/// The client-impact table, beside the level table: the same facts, read for the generated
/// client rather than for any client.
pub fn client_impact(direction: Direction, effect: Effect, guard: Option<Guard>) -> ClientImpact {
    match (guard, direction, effect) {
        (_, _, Effect::None | Effect::Violation) => ClientImpact::Unaffected,
        (_, _, Effect::Unknown) => ClientImpact::Unknown,
        // An open enum keeps a value it does not know as `Unknown(..)`.
        (Some(Guard::OpenEnum), Direction::Response, Effect::Widen) => ClientImpact::Unaffected,
        // Error answers are already errors; a media type is chosen with `Accept`.
        (Some(Guard::NonSuccess | Guard::Negotiated), _, Effect::Widen) => ClientImpact::Unaffected,
        // Unset fields are skipped when serialising, so an explicit `null` is never sent.
        (Some(Guard::Omittable), Direction::Request, Effect::Narrow) => ClientImpact::Unaffected,
        (_, _, Effect::Incomparable) => ClientImpact::Breaks,
        (_, Direction::Response, Effect::Widen) => ClientImpact::Breaks,
        (_, Direction::Response, Effect::Narrow) => ClientImpact::Unaffected,
        (_, Direction::Request | Direction::None, Effect::Narrow) => ClientImpact::Breaks,
        (_, Direction::Request | Direction::None, Effect::Widen) => ClientImpact::Unaffected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_follows_direction() {
        let (req, resp, none) = (Direction::Request, Direction::Response, Direction::None);
        assert_eq!(level(req, Effect::Narrow, None), Level::Err);
        assert_eq!(level(req, Effect::Widen, None), Level::Info);
        assert_eq!(level(resp, Effect::Widen, None), Level::Err);
        assert_eq!(level(resp, Effect::Narrow, None), Level::Info);
        assert_eq!(level(resp, Effect::Incomparable, None), Level::Err);
        assert_eq!(level(req, Effect::Unknown, None), Level::Warn);
        assert_eq!(
            level(resp, Effect::Widen, Some(Guard::OpenEnum)),
            Level::Warn
        );
        assert_eq!(
            level(req, Effect::Widen, Some(Guard::OpenEnum)),
            Level::Info
        );
        assert_eq!(
            level(none, Effect::Narrow, Some(Guard::Deprecated)),
            Level::Info
        );
    }

    #[test]
    fn client_impact_reads_the_generated_client() {
        let (req, resp) = (Direction::Request, Direction::Response);
        let open = Some(Guard::OpenEnum);
        assert_eq!(
            client_impact(resp, Effect::Widen, open),
            ClientImpact::Unaffected
        );
        assert_eq!(
            client_impact(resp, Effect::Widen, None),
            ClientImpact::Breaks
        );
        assert_eq!(
            client_impact(resp, Effect::None, None),
            ClientImpact::Unaffected
        );
        assert_eq!(
            client_impact(req, Effect::Narrow, None),
            ClientImpact::Breaks
        );
        let omittable = Some(Guard::Omittable);
        assert_eq!(
            client_impact(req, Effect::Narrow, omittable),
            ClientImpact::Unaffected
        );
        let deprecated = Some(Guard::Deprecated);
        assert_eq!(
            client_impact(Direction::None, Effect::Narrow, deprecated),
            ClientImpact::Breaks
        );
    }
}
