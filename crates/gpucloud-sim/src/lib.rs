//! # gpucloud-sim
//!
//! A fake control plane for Together AI, Runcrate and E2E Networks — what LocalStack is to AWS:
//! try everything, and test your own code, without an account or a bill.
//!
//! - **Each provider's documented API** on one port, one path prefix per provider
//!   ([`RunningSim::base_url`]): only the operations the specs in `specs/*.yaml` list, with
//!   each provider's way of checking credentials ([`credentials`]), its envelopes and its
//!   error shapes.
//! - **Validated against the specs**: every parameter and body is checked with a JSON Schema
//!   validator reading the embedded specs (independent of the generated clients), and every
//!   answer the simulator gives is checked against the documented response schema
//!   ([`RunningSim::spec_violations`]).
//! - **Clusters live through time** ([`SimClock`]): provisioning → ready with nodes gaining
//!   addresses, deletes that take a while, Runcrate's all-or-nothing failure and idempotent
//!   replay, resizes (Together's `num_gpus`, E2E's scale action) that take a while.
//!   `time_scale` speeds time up; 0 freezes it so a test moves it
//!   with [`SimClock::advance`].
//! - **Bounded for any client**: a connection idle for [`SimConfig::idle_timeout`] is
//!   closed, a header not complete [`SimConfig::header_read_timeout`] after its first byte is
//!   cut off, and a body longer than [`SimConfig::max_request_body_bytes`] is answered `413`
//!   after reading at most that much.
//! - **Faults on demand** ([`Faults`]): 429 with `Retry-After`, 5xx, slow answers, dropped
//!   connections, truncated bodies, HTML error pages, HTTP 200 carrying an error code, status
//!   values the spec does not list, clusters that fail while provisioning — per provider and
//!   operation; from the process, or from outside it over HTTP with the control API
//!   (`POST /_sim/faults`, [`RunningSim::control_url`]; see the README).
//! - **Capacity per offering** ([`Capacity`]): catalogs with H100 and H200 on every provider,
//!   creates and resizes that use capacity up and deletes that give it back, creates that do
//!   not fit refused in each provider's shape (Runcrate's documented 503 `launch_refused`;
//!   a 400 `insufficient_capacity` on Together and E2E, whose docs are silent); set from the
//!   process ([`RunningSim::capacity`]) or over HTTP (`PUT /_sim/capacity`).
//!
//! ```no_run
//! # async fn run() -> Result<(), gpucloud_sim::SimError> {
//! use gpucloud_sim::{Fault, FaultKind, Provider, SimConfig, Simulator};
//! let sim = Simulator::start(SimConfig { time_scale: 0.0, ..SimConfig::default() }).await?;
//! let url = sim.base_url(Provider::Runcrate); // give this to your client
//! sim.faults().inject(
//!     Fault::new(Provider::Runcrate, FaultKind::RateLimited { retry_after_secs: 1 }).on("get_cluster"),
//! );
//! sim.clock().advance(std::time::Duration::from_secs(120)); // provisioning → ready
//! sim.shutdown().await;
//! # let _ = url; Ok(()) }
//! ```

mod capacity;
mod clock;
mod control;
pub mod credentials;
mod exchange;
mod faults;
mod ids;
mod openapi;
mod prices;
mod provider;
mod providers;
mod reply;
mod running;
mod server;

pub use capacity::{
    CapacityFilter, CapacityUnit, E2E_DEFAULT_NODES, NoSuchOffering, Offering, OfferingKey,
    RUNCRATE_DEFAULT_NODES, TOGETHER_DEFAULT_GPUS, gpu_family,
};
pub use clock::SimClock;
pub use exchange::{ClusterSummary, Exchange};
pub use faults::{Fault, FaultKind, Faults};
pub use prices::SOURCE as PRICE_SOURCE;
pub use provider::{Provider, UnknownProvider};
pub use providers::capacity::Capacity;
pub use running::{RunningSim, SimConfig, SimError, Simulator};

/// The README's examples, compiled (and the runnable ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
