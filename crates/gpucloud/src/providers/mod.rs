//! One module per provider: its create request (mapped from a [`crate::ClusterSpec`] and
//! validated), its status table, its neutral view, and its create strategy.

pub mod e2e;
pub(crate) mod errors;
pub(crate) mod reconcile;
pub mod runcrate;
pub mod together;
