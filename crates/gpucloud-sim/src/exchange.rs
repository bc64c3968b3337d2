//! What the simulator did, for tests to assert on: every request it answered (or dropped), and
//! the clusters it holds.

use crate::faults::FaultKind;
use crate::provider::Provider;

/// One request and what the simulator did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The provider the path belongs to; `None` for a path under no provider's prefix.
    pub provider: Option<Provider>,
    /// The spec's `operationId`, when the request matched a documented operation.
    pub operation: Option<String>,
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, without the query string (which may hold E2E's `apikey`).
    pub path: String,
    /// The HTTP status sent; `None` when the connection was dropped.
    pub status: Option<u16>,
    /// The fault that hit this request, if any.
    pub fault: Option<FaultKind>,
    /// How the simulator's own answer (before any fault altered it) broke the spec: an
    /// undocumented status or a body that does not match the documented schema. Always empty
    /// unless the simulator has a bug.
    pub spec_violations: Vec<String>,
}

/// A cluster as the simulator holds it right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSummary {
    /// The provider's id for it.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its current status in the provider's own words (`Ready`, `provisioning`, `Creating`).
    pub status: String,
}
