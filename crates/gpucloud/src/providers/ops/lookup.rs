//! The look-up by name before a create, shared by the creates of one client for a short time.
//!
//! Together lists every cluster in one answer and E2E page by page; neither documents a filter
//! by name. Looked up afresh, each create of a batch would list the whole account, so a batch
//! of N creates would cost N lists of an account that grows with N. Here concurrent creates
//! wait for one list, and creates within [`crate::ReconcilePolicy::name_lookup_max_age`] of it
//! read the same answer, with the clusters this client has made since added to it. A cluster
//! someone else made in between can be missed, as it can between any list and the POST that
//! follows it; the look-ups after an ambiguous failure, which look for this create's own
//! cluster, are always fresh.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::{Provider, list};
use crate::cluster::Cluster;
use crate::error::Error;

/// A list and when (on the client's clock) it was taken.
type Kept = (Duration, Vec<Cluster>);

/// The last list of each scope, shared by a client's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameLookups {
    kept: Arc<tokio::sync::Mutex<HashMap<String, Kept>>>,
}

impl NameLookups {
    /// The cluster named `name` in `scope`, from a list at most `max_age` old (listed now if
    /// there is none). Concurrent callers wait for one list.
    pub(crate) async fn find<P: Provider>(
        &self,
        provider: &P,
        name: &str,
        scope: &P::Scope,
        max_age: Duration,
    ) -> Result<Option<Cluster>, Error> {
        let clock = provider.settings().clock.as_ref();
        let key = format!("{scope:?}");
        let mut kept = self.kept.lock().await;
        let fresh = kept
            .get(&key)
            .is_some_and(|(at, _)| clock.now().saturating_sub(*at) < max_age);
        if !fresh {
            let clusters = list(provider, scope).await?;
            kept.insert(key.clone(), (clock.now(), clusters));
        }
        Ok(kept
            .get(&key)
            .and_then(|(_, clusters)| clusters.iter().find(|c| c.name == name).cloned()))
    }

    /// `cluster`, which this client just made in `scope`, is in every kept list from now on.
    pub(crate) async fn made<S: std::fmt::Debug>(&self, scope: &S, cluster: &Cluster) {
        if let Some((_, clusters)) = self.kept.lock().await.get_mut(&format!("{scope:?}")) {
            clusters.push(cluster.clone());
        }
    }
}
