//! The providers behind the neutral API.
//!
//! Each folder holds only what is truly that provider's: its operations on the generated
//! client (`mod.rs`), its create request with the documented rules (`request.rs`), its status
//! table (`state.rs`), its neutral view (`view.rs`) and its error rules (`errors.rs`). The
//! steps all three share — the retried get, the paged list, delete semantics, reconcile-by-name,
//! keyed creates and plans — are written once, in `ops.rs`, against its `Provider` trait.

pub(crate) mod call;
pub mod e2e;
pub(crate) mod ops;
pub mod runcrate;
pub mod together;
