//! The facade's integration tests, in one binary: each test binary links the whole facade
//! and its dependencies again, so one binary is one link instead of eleven.
//!
//! One module per subject: the three providers through the facade (`together`, `runcrate`,
//! `e2e`), a provider on a bad day (`hostile`), secrets (`secrets`), journaled calls
//! (`journal`), the answers to a claim on a name (`claims`), plans (`plan`), resizing
//! (`resize`), waiting (`waiter`) and what follows a create (`lifecycle`), against a mock API
//! (its fixtures in `support`); and the facade end to end against the simulator (`sim`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod claims;
mod e2e;
mod hostile;
mod journal;
mod lifecycle;
mod lookups;
mod plan;
mod reaching;
mod resize;
mod runcrate;
mod secrets;
mod sim;
mod together;
mod waiter;
