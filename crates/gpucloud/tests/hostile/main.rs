//! The facade against a provider on a bad day: lists that lag behind creates, absurd
//! `Retry-After`s, conflicts, answers without ids, a retry budget that runs dry, ids that would
//! send a request to the wrong place. Every create is counted: where the first POST may have
//! landed, there is exactly one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../support/mod.rs"]
mod support;

mod bounded;
mod echoes;
mod lagging_list;
