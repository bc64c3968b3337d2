//! The `gpucloud` binary, run for real: its output is compared with `tests/golden/`.

mod offline;
mod sim_command;
mod simulated;
mod support;
