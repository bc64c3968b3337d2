//! [`Deletion`]: a delete the provider has completed, as a verified delete reports it (and a
//! clean-up that deleted a cluster that did not become ready).

use std::time::Duration;

use serde::Serialize;

use crate::cluster::ClusterId;
use crate::waiter::Timeline;

/// A delete the provider has completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deletion {
    /// The cluster.
    pub id: ClusterId,
    /// The provider had no such cluster when the delete was sent (a success that says so).
    pub already_gone: bool,
    /// Another caller's delete held the claim on this one in the shared journal (who, host
    /// and process id): none was sent here, and this call waited for the cluster to be gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_by: Option<String>,
    /// From the DELETE to the provider's last word that the cluster is gone.
    pub took: Duration,
    /// The phases the cluster went through while it was deleted (`None` when it was already
    /// gone).
    pub timeline: Option<Timeline>,
}
