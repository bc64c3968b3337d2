//! Money safety through the real binary, against a simulator running faster than real time:
//! verified deletes, failed creates cleaned up, the ledger across processes, resize, access,
//! the sweep — and a CLI killed at every step of a create, after which the next run finds the
//! cluster and never creates a second one.
//!
//! `bench` holds what every test here shares; each other module is one concern.

mod access;
mod bench;
mod deadlines;
mod deletes;
mod killed;
mod ledger;
mod library;
mod names;
mod ownership;
mod reaper;
mod unseen;
