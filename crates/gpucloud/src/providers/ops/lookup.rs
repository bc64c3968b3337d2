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
//!
//! With a journal, the names of each list are kept in it too ([`Journal::record_names`]), so
//! that separate processes sharing the journal (a shell loop of `gpucloud clusters create`, a
//! team's PostgreSQL ledger) share a list within the same max age: a create that finds one
//! lists nothing, and reads the cluster of its name by id, if the list has one. Clusters made
//! since by a process sharing the journal are the journal's claims on their names, which a
//! create meets before it looks anything up.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use super::{Provider, get, list};
use crate::cluster::{Cluster, ClusterId};
use crate::error::Error;
use crate::journal::{Journal as _, ListedAt, ListedName};

/// A list and when (on the client's clock) it was taken.
type Kept = (Duration, Vec<Cluster>);

/// The last list of each scope, shared by a client's clones, and the clusters they made.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameLookups {
    state: Arc<tokio::sync::Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    kept: HashMap<String, Kept>,
    /// The clusters this client made (by scope and id): a later create of the same name that
    /// finds one is finding its own, even without a journal to say so.
    made: HashSet<(String, ClusterId)>,
}

/// A cluster of the name, and whether this client made it.
#[derive(Debug)]
pub(crate) struct Found {
    pub cluster: Cluster,
    pub made_here: bool,
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
    ) -> Result<Option<Found>, Error> {
        let clock = provider.settings().clock.as_ref();
        let key = format!("{scope:?}");
        let mut state = self.state.lock().await;
        let fresh = state
            .kept
            .get(&key)
            .is_some_and(|(at, _)| clock.now().saturating_sub(*at) < max_age);
        if !fresh {
            if let Some(names) = shared_names(provider, &key, max_age) {
                let Some(listed) = names.into_iter().find(|n| n.name == name) else {
                    return Ok(None);
                };
                return Ok(match get(provider, &listed.id).await {
                    Ok(cluster) if cluster.name == name => Some(Found {
                        made_here: state.made.contains(&(key, cluster.id.clone())),
                        cluster,
                    }),
                    // Gone (or renamed) since the list was taken.
                    Ok(_) | Err(Error::NotFound(_)) => None,
                    Err(error) => return Err(error),
                });
            }
            let clusters = list(provider, scope).await?;
            share_names(provider, &key, &clusters, max_age);
            state.kept.insert(key.clone(), (clock.now(), clusters));
        }
        let cluster = state
            .kept
            .get(&key)
            .and_then(|(_, clusters)| clusters.iter().find(|c| c.name == name).cloned());
        Ok(cluster.map(|cluster| Found {
            made_here: state.made.contains(&(key, cluster.id.clone())),
            cluster,
        }))
    }

    /// `cluster`, which this client just made in `scope`, is in every kept list from now on,
    /// and known as this client's.
    pub(crate) async fn made<S: std::fmt::Debug>(&self, scope: &S, cluster: &Cluster) {
        let key = format!("{scope:?}");
        let mut state = self.state.lock().await;
        if let Some((_, clusters)) = state.kept.get_mut(&key) {
            clusters.push(cluster.clone());
        }
        state.made.insert((key, cluster.id.clone()));
    }
}

/// The names of a list of `scope` that a process sharing the client's journal took within
/// `max_age`. A journal that cannot be read is a warning: the account is listed instead.
fn shared_names<P: Provider>(
    provider: &P,
    scope: &str,
    max_age: Duration,
) -> Option<Vec<ListedName>> {
    if max_age.is_zero() {
        return None;
    }
    let journal = provider.settings().journal()?;
    match journal.names_listed(listed_at(provider, scope), max_age) {
        Ok(names) => names,
        Err(error) => {
            tracing::warn!(%error, "the journal's shared list could not be read: listing");
            None
        }
    }
}

/// Keeps the names of `clusters`, just listed in `scope`, in the client's journal for the
/// processes that share it. One that cannot be kept is a warning: the list was taken.
fn share_names<P: Provider>(provider: &P, scope: &str, clusters: &[Cluster], max_age: Duration) {
    let Some(journal) = provider.settings().journal() else {
        return;
    };
    if max_age.is_zero() {
        return;
    }
    let names: Vec<ListedName> = clusters
        .iter()
        .map(|c| ListedName {
            name: c.name.clone(),
            id: c.id.clone(),
        })
        .collect();
    if let Err(error) = journal.record_names(listed_at(provider, scope), &names) {
        tracing::warn!(%error, "the list could not be kept in the journal for other processes");
    }
}

/// Where a list of `scope` through `provider`'s client is taken: its provider, origin and
/// scope.
fn listed_at<'a, P: Provider>(provider: &'a P, scope: &'a str) -> ListedAt<'a> {
    ListedAt {
        provider: P::KIND,
        origin: provider.origin(),
        scope,
    }
}
