//! Fault injection: make the next answers of one provider (and, optionally, one operation) fail
//! the ways real APIs fail, so retry and reconciliation code can be tested on purpose.
//!
//! Faults come in two kinds, and the difference matters for "never create a cluster twice":
//!
//! - **Refusals** ([`FaultKind::RateLimited`], [`FaultKind::ServerError`],
//!   [`FaultKind::OkWithErrorCode`]) answer instead of the operation: nothing happens.
//! - **Lost or damaged answers** ([`FaultKind::Slow`], [`FaultKind::DropConnection`],
//!   [`FaultKind::TruncatedBody`], [`FaultKind::HtmlBody`], [`FaultKind::UnknownStatus`]): the
//!   operation takes effect, then its answer is delayed, dropped, cut, replaced by a proxy's
//!   HTML page or altered. A create hit by one of these did create the cluster, which is exactly
//!   the case a client must reconcile.
//! - **Doomed clusters** ([`FaultKind::FailProvisioning`]): a create is answered normally, then
//!   the cluster walks into the provider's failed state while provisioning.
//! - **Automated remediations** ([`FaultKind::AutomatedRemediation`]): a Together remediation
//!   created through the API is recorded as one Together's own automation raised, waiting for
//!   approval, so `approve_remediation` and `reject_remediation` can be driven.
//!
//! Faults can also be injected from outside the process, over HTTP: `POST /_sim/faults` on the
//! simulator's port (see the crate's README).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::provider::Provider;

/// The only operation a [`FaultKind::FailProvisioning`] fault hits.
pub(crate) const CREATE: &str = "create_cluster";

/// The only operation a [`FaultKind::AutomatedRemediation`] fault hits (Together's).
pub(crate) const CREATE_REMEDIATION: &str = "create_remediation";

/// One injected fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Whose requests it hits.
    pub provider: Provider,
    /// The spec's `operationId` it hits (`create_cluster`, `get_cluster`, …); `None` hits any.
    pub operation: Option<String>,
    /// What goes wrong.
    pub kind: FaultKind,
    /// How many matching requests it hits before it is used up (0 hits none).
    pub times: u32,
}

impl Fault {
    /// A fault hitting the next request of `provider`, whatever the operation.
    pub fn new(provider: Provider, kind: FaultKind) -> Self {
        Self {
            provider,
            operation: None,
            kind,
            times: 1,
        }
    }

    /// Only requests of this `operationId`.
    pub fn on(mut self, operation: impl Into<String>) -> Self {
        self.operation = Some(operation.into());
        self
    }

    /// Hits `times` matching requests instead of one.
    pub fn times(mut self, times: u32) -> Self {
        self.times = times;
        self
    }
}

/// How a request fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// HTTP 429 in the provider's error shape, with `Retry-After: <secs>`. Nothing happens.
    RateLimited {
        /// The `Retry-After` value in seconds.
        retry_after_secs: u64,
    },
    /// An HTTP 5xx (or any status) in the provider's error shape. Nothing happens.
    ServerError {
        /// The status to answer with.
        status: u16,
    },
    /// The operation happens; its answer is sent `delay` (real time) later.
    Slow {
        /// Real time to wait before answering.
        delay: Duration,
    },
    /// The operation happens; the connection is closed without an answer.
    DropConnection,
    /// The operation happens; the answer is a complete HTTP message carrying only the first
    /// half of the JSON body.
    TruncatedBody,
    /// The operation happens; the answer is a proxy's HTML error page with this status (E2E's
    /// HTML 502).
    HtmlBody {
        /// The status of the HTML page.
        status: u16,
    },
    /// HTTP 200 whose body is the provider's error envelope with `code` (E2E reports some
    /// failures this way: HTTP 200, `code` ≥ 400). Nothing happens.
    OkWithErrorCode {
        /// The error code in the body.
        code: u16,
    },
    /// The operation happens; every cluster in the answer shows this status, which the spec
    /// does not list (a status the provider added after our spec was written).
    UnknownStatus {
        /// The status value to show.
        status: String,
    },
    /// The operation happens; every cluster in the answer states this price per hour, in
    /// hundredths of the provider's currency (Runcrate's `hourly_rate`; on E2E the plan's
    /// `unit_price`, per node, set so that the cluster's nodes cost this; Together states no
    /// price). A provider whose answer disagrees with its own catalog.
    StatedPrice {
        /// The price per hour the cluster states, in hundredths.
        cents_per_hour: u64,
    },
    /// The create happens and is answered normally; the cluster then fails while provisioning
    /// (Together: a failed acceptance-tests phase; Runcrate: `failed` with a `failure_reason`;
    /// E2E: `Failed`). Hits only `create_cluster` requests, whatever the fault's operation.
    FailProvisioning,
    /// The remediation created is recorded as raised by Together's automation
    /// (`REMEDIATION_TRIGGER_AUTOMATED`, `PENDING_APPROVAL`): only such a remediation can be
    /// approved or rejected, and the API never creates one itself. Hits only Together's
    /// `create_remediation` requests, whatever the fault's operation.
    AutomatedRemediation,
}

impl FaultKind {
    /// Whether the fault answers instead of the operation (nothing happens).
    pub(crate) fn refuses(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::ServerError { .. } | Self::OkWithErrorCode { .. }
        )
    }
}

/// The simulator's pending faults; a cheap handle to clone into tests or a CLI.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    pending: Arc<Mutex<Vec<Fault>>>,
}

impl Faults {
    /// Adds a fault; faults are matched in the order they were injected.
    pub fn inject(&self, fault: Fault) {
        if fault.times == 0 {
            return;
        }
        if let Ok(mut pending) = self.pending.lock() {
            pending.push(fault);
        }
    }

    /// Removes every pending fault.
    pub fn clear(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.clear();
        }
    }

    /// The faults not used up yet.
    pub fn pending(&self) -> Vec<Fault> {
        self.pending.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Uses one hit of the first fault matching this request, if any.
    pub(crate) fn take(&self, provider: Provider, operation: &str) -> Option<FaultKind> {
        let mut pending = self.pending.lock().ok()?;
        let index = pending.iter().position(|f| {
            f.provider == provider
                && f.operation.as_deref().is_none_or(|op| op == operation)
                && (f.kind != FaultKind::FailProvisioning || operation == CREATE)
                && (f.kind != FaultKind::AutomatedRemediation
                    || (provider == Provider::Together && operation == CREATE_REMEDIATION))
        })?;
        let fault = &mut pending[index];
        fault.times -= 1;
        let kind = fault.kind.clone();
        if fault.times == 0 {
            pending.remove(index);
        }
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_match_provider_and_operation_and_are_used_up() {
        let faults = Faults::default();
        faults.inject(
            Fault::new(Provider::Runcrate, FaultKind::DropConnection)
                .on("get_cluster")
                .times(2),
        );
        faults.inject(Fault::new(Provider::Runcrate, FaultKind::TruncatedBody));
        faults.inject(Fault::new(Provider::E2e, FaultKind::DropConnection).times(0));
        assert_eq!(faults.take(Provider::Together, "get_cluster"), None);
        assert_eq!(
            faults.take(Provider::Runcrate, "create_cluster"),
            Some(FaultKind::TruncatedBody)
        );
        assert_eq!(faults.take(Provider::Runcrate, "create_cluster"), None);
        for _ in 0..2 {
            assert_eq!(
                faults.take(Provider::Runcrate, "get_cluster"),
                Some(FaultKind::DropConnection)
            );
        }
        assert!(faults.pending().is_empty());
    }

    #[test]
    fn fail_provisioning_waits_for_a_create() {
        let faults = Faults::default();
        faults.inject(Fault::new(Provider::E2e, FaultKind::FailProvisioning));
        assert_eq!(faults.take(Provider::E2e, "list_clusters"), None);
        assert_eq!(
            faults.take(Provider::E2e, CREATE),
            Some(FaultKind::FailProvisioning)
        );
    }

    #[test]
    fn automated_remediation_waits_for_a_together_remediation_create() {
        let faults = Faults::default();
        faults.inject(Fault::new(
            Provider::Together,
            FaultKind::AutomatedRemediation,
        ));
        assert_eq!(faults.take(Provider::Together, CREATE), None);
        assert_eq!(
            faults.take(Provider::Together, CREATE_REMEDIATION),
            Some(FaultKind::AutomatedRemediation)
        );
    }
}
