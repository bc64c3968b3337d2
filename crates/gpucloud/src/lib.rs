//! # gpucloud
//!
//! Create, watch and delete GPU clusters on Together AI, Runcrate and E2E Networks, safely.
//!
//! - **One API** ([`ClusterClient`], [`ClusterSpec`], [`Cluster`], [`ClusterState`]) over the
//!   three providers, with each provider's own generated client one call away
//!   ([`together`], [`runcrate`], [`e2e`]) for everything else.
//! - **Nothing doubled**: a create is never re-sent blindly. Runcrate gets one
//!   `Idempotency-Key` per logical create, reused across retries; Together and E2E, which have
//!   no such key, are reconciled by cluster name after any failure that may have reached them.
//!   [`Created::outcome`] says whether the cluster is new.
//! - **Nothing lost**: reads and deletes retry 408/429/5xx and connection failures with
//!   jittered backoff, honouring `Retry-After`; responses decode even when a provider adds a
//!   status or a field (open enums).
//! - **Checked before sent**: each provider's documented rules are enforced before any network
//!   call, as [`Error::Validation`] naming the field, the rule and the doc.
//! - **Waiting**, one way ([`ClusterClient::wait`] with [`Ready`], [`SizeReached`],
//!   [`Deleted`] or your own [`Acceptor`]; the end is its output or a typed [`WaitError`], each
//!   with the [`Timeline`] of the phases): backoff, a maximum wait, progress
//!   on every phase change, an early failure on terminal states, an injectable
//!   [`clock::Clock`] and [`random::Random`].
//! - **Secrets stay secret**: keys are never in `Debug`, `Display`, logs or errors.
//! - **Dry runs**: [`ClusterClient::plan`] returns the exact request the generated client
//!   builds, without sending it.
//!
//! - **One error**: every call returns [`Error`], so its kinds match the same way whether they
//!   come from a create, a placement over several providers or a create that waits.
//! - **Placement** ([`Placement`]): one request over several providers and regions, cheapest
//!   first under a price ceiling, failing over only on answers that certainly created nothing.
//!
//! Configuration comes from the environment ([`ClusterClient::from_env`], [`TogetherConfig`]
//! and friends) or from `with_*` overrides; [`ClientSettings`] configures several providers
//! alike. Runnable examples for each everyday task are in the crate's `examples/` (create and
//! wait, placement, resize, a custom acceptor, a dry run; the ledger and its sweep are the
//! `gpucloud-ledger` crate's), against an account or `gpucloud sim`.
//!
//! ```no_run
//! use gpucloud::{
//!     Candidate, ClusterClient, ClusterSize, ClusterSpec, CreateAndWait, Error, Placement,
//!     ProviderKind,
//! };
//!
//! # async fn run() -> Result<(), Error> {
//! let spec = ClusterSpec::new("train-42", ClusterSize::Gpus(16)).with_gpu_model("H100");
//!
//! // One provider: create, wait until ready; a cluster that fails is deleted and the delete
//! // verified.
//! let together = ClusterClient::from_env(ProviderKind::Together)?;
//! match together.create_and_wait(&spec, &CreateAndWait::default(), |_| {}).await {
//!     Ok(ready) => println!("{} ready", ready.cluster.id),
//!     Err(Error::NoCapacity(answer)) => println!("nothing created: {answer}"),
//!     Err(Error::NotReady(failed)) => println!("{failed}"), // names the cluster and its clean-up
//!     Err(other) => return Err(other),
//! }
//!
//! // Several providers: the same error type, the same kinds.
//! let placement = Placement::new([
//!     Candidate::new(together.clone(), spec.clone()),
//!     Candidate::new(ClusterClient::from_env(ProviderKind::E2e)?, spec.clone()),
//! ])
//! .with_max_price_per_hour(5000.0, "INR");
//! match placement.create().await {
//!     Ok(placed) => println!("{} made {}", placed.provider, placed.created.cluster.id),
//!     Err(Error::NoCapacity(_) | Error::NoMatchingOffering { .. }) => println!("nowhere"),
//!     Err(Error::PriceAboveCeiling { deleted, .. }) => println!("too dear; deleted: {deleted}"),
//!     Err(other) => return Err(other),
//! }
//! # Ok(()) }
//! ```

// `Error` keeps the provider's status, code, message and raw body inline (about 140 bytes):
// errors are the cold path, and boxing would cost an allocation per error and make matching on
// kinds clumsier for users.
#![allow(clippy::result_large_err)]

mod answered_price;
mod budget;
pub mod catalog;
mod client;
pub mod clock;
mod cluster;
mod config;
pub mod config_file;
mod deletion;
mod error;
pub mod journal;
mod lifecycle;
mod pacing;
mod placement;
mod plan;
mod provider_cluster;
mod provider_defaults;
pub mod providers;
pub mod random;
mod retry;
pub mod settle;
mod spec;
mod wait;
mod waiter;

pub use client::ClusterClient;
pub use cluster::{
    Cluster, ClusterId, ClusterState, CreateOutcome, Created, Node, Price, ProviderCluster,
    ProviderKind,
};
pub use config::{ApiKeyConfig, ClientSettings, KeyedProvider};
pub use deletion::Deletion;
pub use error::{
    ApiError, Cleanup, DecodeError, Error, ErrorKind, FailureClass, FieldDifference, KindFacts,
    NotReady, Result, RetryKind, Unrecorded, ValidationError,
};
pub use lifecycle::{CreateAndWait, CreatedReady};
pub use pacing::Pacing;
pub use placement::{
    Attempt, AttemptOutcome, Candidate, CandidatePlan, Order, Placed, Placement, PriceCheck,
    Unplaced,
};
pub use plan::PlannedRequest;
pub use providers::e2e::config::E2eConfig;
pub use providers::profile::{CreateSafetyKind, FailedStart, Kubeconfig, Profile, Resize};
pub use providers::runcrate::config::{RuncrateConfig, RuncrateKey};
pub use providers::together::config::{TogetherConfig, TogetherKey};
pub use retry::{ReconcilePolicy, RetryBudget, RetryPolicy};
pub use spec::{
    Billing, ClusterSize, ClusterSpec, E2eOptions, E2eSfsMount, MAX_TTL, MIN_TTL, ProviderOptions,
    RuncrateOptions, SharedStorage, SoftwareStack, TogetherOptions, nodes_for_gpus,
};
pub use wait::Wait;
pub use waiter::{
    Acceptor, Deleted, MAX_PHASES, Observation, PhaseSpan, Progress, Ready, SizeReached, Timeline,
    TimelineSource, Verdict, WaitEnd, WaitError, WaitOptions, Waited,
};

/// The generated Together AI client.
pub use gpucloud_together as together;

/// The generated Runcrate client.
pub use gpucloud_runcrate as runcrate;

/// The generated E2E Networks client.
pub use gpucloud_e2e as e2e;
