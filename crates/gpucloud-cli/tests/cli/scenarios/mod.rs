//! The hostile-provider scenarios: what goes wrong — statuses, headers, bodies, delays,
//! resets, echoes, lagging lists, huge and endless bodies, escape sequences — in a small,
//! stateful world per provider (`world.rs`; the faults in `faults.rs`). `matrix.rs` runs every
//! scenario against the real binary for each provider and command.

mod faults;
mod world;

pub use world::{Command, Faulted, Landed, Provider, Scope, Text, World};

use crate::fake::Reply;
use faults::*;
use world::Op;

/// One scenario.
pub struct Scenario {
    pub name: &'static str,
    pub family: &'static str,
    pub scope: Scope,
    /// How many calls of each operation the fault hits (`u32::MAX`: all).
    pub times: u32,
    /// A create hit by the fault landed: the cluster exists, only its answer went wrong.
    pub lands: bool,
    /// List calls after a creation that do not show it yet (eventual consistency).
    pub list_lag: u32,
    pub text: Text,
    pub fault: fn(&Faulted<'_>) -> Reply,
    /// Every supported command must exit 0.
    pub expect_ok: bool,
}

const ALWAYS: u32 = u32::MAX;

impl Scenario {
    /// A fault on every operation, on every call, that loses nothing a create did.
    fn new(name: &'static str, family: &'static str, fault: fn(&Faulted<'_>) -> Reply) -> Self {
        Self {
            name,
            family,
            scope: Scope::All,
            times: ALWAYS,
            lands: false,
            list_lag: 1,
            text: Text::Plain,
            fault,
            expect_ok: false,
        }
    }

    /// No fault, only the world's own text.
    fn text(name: &'static str, family: &'static str, text: Text) -> Self {
        Self {
            times: 0,
            text,
            ..Self::new(name, family, none)
        }
    }

    fn on(self, scope: Scope) -> Self {
        Self { scope, ..self }
    }

    /// Only the first call of each operation.
    fn once(self) -> Self {
        Self { times: 1, ..self }
    }

    /// A create hit by the fault created its cluster.
    fn lands(self) -> Self {
        Self {
            lands: true,
            ..self
        }
    }

    fn lag(self, list_lag: u32) -> Self {
        Self { list_lag, ..self }
    }

    /// Every supported command must succeed.
    fn ok(self) -> Self {
        Self {
            expect_ok: true,
            ..self
        }
    }
}

impl Scenario {
    /// Whether the list answers normally after a create (the fault hits at most its first
    /// call, the look-up before the POST): then a landed create must be found, never re-sent.
    pub fn list_recovers(&self) -> bool {
        !self.scope.hits(Op::List) || self.times <= 1
    }
}

/// Every scenario the matrix runs.
pub fn all() -> Vec<Scenario> {
    use Scenario as S;
    vec![
        S::text("healthy", "control", Text::Plain).ok(),
        S::new("500 once", "status", status_500).once().lands().ok(),
        S::new("503 always", "status", status_503).lands(),
        S::new("502 HTML page", "status", html_502).lands(),
        S::new("503 plain text, on create", "status", plain_text_503)
            .on(Scope::Create)
            .lands(),
        S::new("404 always", "status", not_found),
        S::new("create 400", "create 4xx", bad_request).on(Scope::Create),
        S::new("create 401", "create 4xx", unauthorized).on(Scope::Create),
        S::new("create 402", "create 4xx", payment_required).on(Scope::Create),
        S::new("create 409", "create 4xx", conflict).on(Scope::Create),
        S::new("429 Retry-After: 100000", "Retry-After", retry_after_100000),
        S::new(
            "429 Retry-After beyond u64",
            "Retry-After",
            retry_after_beyond_u64,
        ),
        S::new(
            "429 Retry-After in year 9999",
            "Retry-After",
            retry_after_far_date,
        ),
        S::new(
            "429 Retry-After garbage",
            "Retry-After",
            retry_after_garbage,
        ),
        S::new("429 Retry-After: 1, once", "Retry-After", retry_after_1)
            .once()
            .ok(),
        S::new("reset once", "transport", reset).once().lands().ok(),
        S::new("reset on create", "transport", reset)
            .on(Scope::Create)
            .lands(),
        S::new("create slower than the timeout", "transport", slow)
            .on(Scope::Create)
            .once()
            .lands()
            .ok(),
        S::new("reads slower than the timeout", "transport", slow).on(Scope::Reads),
        S::new("truncated bodies", "transport", truncated).lands(),
        S::new("truncated create answer", "transport", truncated)
            .on(Scope::Create)
            .lands(),
        S::new("40 MiB bodies", "size", huge).lands(),
        S::new("40 MiB create answer", "size", huge)
            .on(Scope::Create)
            .lands(),
        S::new("endless chunked bodies", "size", endless).on(Scope::Reads),
        S::new("endless create answer", "size", endless)
            .on(Scope::Create)
            .lands(),
        S::new("400 echoing the request", "echo", echo_400),
        S::new("500 echoing the request, once", "echo", echo_500)
            .once()
            .lands(),
        S::text("names echoing the request", "echo", Text::Echo).ok(),
        S::text("escapes in names and statuses", "escapes", Text::Escapes).ok(),
        S::new("escapes in error messages", "escapes", escapes_in_error),
        S::text(
            "unknown status with escapes",
            "escapes",
            Text::UnknownStatus,
        ),
        S::new("HTTP 200 whose code is 500", "bad data", ok_with_code_500).lands(),
        S::new("invalid JSON", "bad data", invalid_json).lands(),
        S::new("empty 200 body", "bad data", empty_200).lands(),
        S::new("wrong types", "bad data", wrong_types).lands(),
        S::new("answers without ids", "bad data", missing_ids).lands(),
        S::new("create 500, list lags 3 calls", "lagging list", status_500)
            .on(Scope::Create)
            .once()
            .lands()
            .lag(3)
            .ok(),
        S::new("create times out, list lags 2 calls", "lagging list", slow)
            .on(Scope::Create)
            .once()
            .lands()
            .lag(2)
            .ok(),
    ]
}
