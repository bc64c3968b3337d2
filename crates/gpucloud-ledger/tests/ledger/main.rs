//! The ledger's integration tests, one binary (each test binary links the facade, the
//! simulator and both database drivers again).
//!
//! One module per subject: what is recorded (`records`), what can be read back (`observe`),
//! the schema and its migrations (`schema`), settling pending creates (`settle`), a ledger
//! that cannot record (`locked`), a process that dies mid-create (`crash`), several processes
//! writing at once (`processes`), the suite both backends pass (`shared`) and the throwaway
//! PostgreSQL server it uses (`pg_server`, the server in `postgres`). The simulator, clients
//! and specs they share are in `support`. The process tests run this binary again as their
//! children, on one ignored test each.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod postgres;
mod support;

mod crash;
mod locked;
mod observe;
mod pg_server;
mod processes;
mod records;
mod schema;
mod settle;
mod shared;
mod sweep;
