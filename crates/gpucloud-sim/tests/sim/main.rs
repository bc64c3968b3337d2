//! The simulator's tests, in one binary: each file here was a test binary of its own, and
//! every one compiled `common` and linked the simulator, the facade and their HTTP stacks
//! again. One module per concern, as the files were.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod abuse;
mod auth;
mod capacity;
mod capacity_control;
mod catalogs;
mod control_api;
mod faults;
mod lifecycle;
mod official_sdk_wire;
mod runcrate_lifecycle;
mod spec_conformance;
mod validation;
