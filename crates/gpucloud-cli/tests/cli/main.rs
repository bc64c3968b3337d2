//! The `gpucloud` binary, run for real: its output is compared with `tests/golden/`.
//!
//! The tests that need the simulator (`gpucloud sim`, `gpucloud demo`, the cluster commands
//! against a simulated provider) need the `sim` feature, as the commands do.

mod bounds;
mod completions;
#[cfg(feature = "sim")]
mod contract;
mod docs;
mod fake;
mod hostile;
#[cfg(feature = "sim")]
mod json_contract;
mod matrix;
#[cfg(feature = "sim")]
mod money;
#[cfg(feature = "sim")]
mod offers;
mod offline;
#[cfg(feature = "sim")]
mod placement;
mod scenarios;
mod schema;
#[cfg(feature = "sim")]
mod sim_command;
#[cfg(feature = "sim")]
mod sim_logs;
#[cfg(feature = "sim")]
mod simulated;
mod support;
