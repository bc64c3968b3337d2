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
    /// From the DELETE to the provider's last word that the cluster is gone.
    pub took: Duration,
    /// The phases the cluster went through while it was deleted (`None` when it was already
    /// gone).
    pub timeline: Option<Timeline>,
}
