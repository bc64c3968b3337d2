//! The operation skeleton every provider shares, written once against [`Provider`]: a get with
//! retries, a paged list, delete semantics, creates that are never doubled (keyed or reconciled
//! by name) and plans taken from the real request.
//!
//! A provider supplies single attempts (one get, one page, one delete, one create POST) and
//! how its creates are made safe ([`CreateSafety`]); repetition, pacing and the meaning of a
//! 404 after a retry are decided here and nowhere else.

use std::future::Future;

use gpucloud_core::RequestCapture;

use crate::cluster::{Cluster, ClusterId, ProviderKind};
use crate::config::ClientSettings;
use crate::error::Error;
use crate::journal::{CreateIntent, DeleteClaim, Journal as _};
use crate::providers::call::Answered;

mod create;
mod lookup;

use crate::plan::PlannedRequest;
use crate::spec::{ClusterSize, ClusterSpec};
pub(crate) use create::create;
pub(crate) use lookup::NameLookups;

/// The neutral methods every provider client offers, written once: `settings`, `plan`,
/// `create` and `get`, each a call into this module.
macro_rules! neutral_methods {
    ($provider:ty) => {
        impl $provider {
            /// The settings this client was built with.
            pub fn settings(&self) -> &$crate::config::ClientSettings {
                $crate::providers::ops::Provider::settings(self)
            }

            /// Records every create and delete in `journal` from now on (see
            /// [`crate::ClusterClient::with_journal`]).
            pub(crate) fn set_journal(
                &mut self,
                journal: ::std::sync::Arc<dyn $crate::journal::Journal>,
            ) {
                self.settings.journal = Some(journal);
            }

            /// The exact request [`Self::create`] would send, built by the generated client
            /// itself (credentials redacted); nothing is sent.
            pub async fn plan(
                &self,
                spec: &$crate::spec::ClusterSpec,
            ) -> Result<$crate::plan::PlannedRequest, $crate::error::Error> {
                $crate::providers::ops::plan(self, spec).await
            }

            /// Creates the cluster `spec` describes, never two (see [`crate::CreateOutcome`]).
            pub async fn create(
                &self,
                spec: &$crate::spec::ClusterSpec,
            ) -> Result<$crate::cluster::Created, $crate::error::Error> {
                let request = $crate::providers::ops::Provider::create_request(self, spec)?;
                $crate::providers::ops::create(self, &request, spec.ttl, spec.adopt).await
            }

            /// One cluster, retried while the error is retryable.
            pub async fn get(
                &self,
                id: &$crate::cluster::ClusterId,
            ) -> Result<$crate::cluster::Cluster, $crate::error::Error> {
                $crate::providers::ops::get(self, id).await
            }
        }
    };
}
pub(crate) use neutral_methods;

/// One page of a list.
#[derive(Debug)]
pub(crate) struct Page {
    /// The clusters on the page.
    pub clusters: Vec<Cluster>,
    /// Whether another page may follow.
    pub more: bool,
}

/// What a create POST answered.
#[derive(Debug)]
pub(crate) struct Sent {
    /// The cluster in the answer.
    pub cluster: Cluster,
    /// The answer said the cluster already existed (Runcrate's 200 replay of a key).
    pub replayed: bool,
}

/// How a provider's creates are kept from doubling.
#[derive(Debug)]
pub(crate) enum CreateSafety<'a, S> {
    /// The request carries an idempotency key: repeating the same request is safe, so it is
    /// retried after ambiguous failures too.
    Keyed,
    /// No key: look the cluster up by `name` in `scope` before the first POST and after every
    /// failure that may have reached the provider; re-send only if it is absent.
    ReconcileByName {
        /// The cluster name to look up.
        name: &'a str,
        /// Where to look (a project, a location).
        scope: S,
    },
}

/// A provider, as the skeleton sees it: single attempts, and its create request.
pub(crate) trait Provider: Sync {
    /// The provider.
    const KIND: ProviderKind;
    /// Pages read at most when listing.
    const MAX_PAGES: u32 = 1;
    /// The generated client.
    type Client: Sync;
    /// A validated create request.
    type Create: Sync;
    /// Where a list looks (a project, a location).
    type Scope: Clone + Send + Sync + std::fmt::Debug;

    /// The settings the client was built with.
    fn settings(&self) -> &ClientSettings;
    /// Where its requests go and as whom (see `config::origin`): a journal keeps it with each
    /// create, and only a 404 from it proves a cluster gone.
    fn origin(&self) -> &str;
    /// The look-ups by name its creates share (see [`NameLookups`]).
    fn name_lookups(&self) -> &NameLookups;
    /// The generated client that sends.
    fn client(&self) -> &Self::Client;
    /// A copy of the generated client that records requests instead of sending them.
    fn planning(&self) -> (Self::Client, RequestCapture);
    /// Maps `spec` to the provider's create request and checks its documented rules.
    fn create_request(&self, spec: &ClusterSpec) -> Result<Self::Create, Error>;
    /// How creates of `create` are kept from doubling.
    fn create_safety<'a>(&self, create: &'a Self::Create) -> CreateSafety<'a, Self::Scope>;
    /// What a journal records of `create` before it is sent.
    fn intent(&self, create: &Self::Create) -> CreateIntent;
    /// How long after its create the provider itself ends the cluster `create` asks for (a
    /// reservation that runs out), if it does. Default: never.
    fn ends_itself_after(&self, create: &Self::Create) -> Option<std::time::Duration> {
        let _ = create;
        None
    }

    /// One create POST through `client`.
    fn send_create(
        &self,
        client: &Self::Client,
        create: &Self::Create,
    ) -> impl Future<Output = Result<Answered<Sent>, Error>> + Send;
    /// Whether `answered`, an id in an answer, names the cluster `asked` names (the same
    /// text, unless the provider's ids have another canonical form).
    fn same_id(&self, asked: &ClusterId, answered: &ClusterId) -> bool {
        asked == answered
    }
    /// One get.
    fn get_once(
        &self,
        id: &ClusterId,
    ) -> impl Future<Output = Result<Answered<Cluster>, Error>> + Send;
    /// One page of the list (1-based).
    fn list_page(
        &self,
        scope: &Self::Scope,
        page: u32,
    ) -> impl Future<Output = Result<Answered<Page>, Error>> + Send;
    /// One delete.
    fn delete_once(&self, id: &ClusterId) -> impl Future<Output = Result<(), Error>> + Send;
    /// Changes the cluster's size; how (and whether it may be repeated) is the provider's.
    fn resize(
        &self,
        id: &ClusterId,
        size: ClusterSize,
    ) -> impl Future<Output = Result<Cluster, Error>> + Send;
}

/// The provider's catalog from `cache` while it is younger than the client's catalog TTL,
/// else fetched by `fetch` (each attempt of it retried while the error is retryable).
pub(crate) async fn catalog<P, F, Fut>(
    provider: &P,
    cache: &crate::catalog::CatalogCache,
    fetch: F,
) -> Result<std::sync::Arc<Vec<crate::catalog::Offering>>, Error>
where
    P: Provider,
    F: Fn() -> Fut,
    Fut: Future<Output = Result<Vec<crate::catalog::Offering>, Error>>,
{
    let settings = provider.settings();
    cache
        .get_or_fetch(settings.clock.as_ref(), settings.catalog_ttl, || {
            settings.retry.run(settings.pacing(), |_| fetch())
        })
        .await
}

/// One cluster, retried while the error is retryable.
pub(crate) async fn get<P: Provider>(provider: &P, id: &ClusterId) -> Result<Cluster, Error> {
    check_id::<P>(id)?;
    let settings = provider.settings();
    let answer = settings
        .retry
        .run(settings.pacing(), |_| provider.get_once(id))
        .await
        .and_then(|answer| about(provider, id, answer));
    if let Some(journal) = settings.journal() {
        let noted = match &answer {
            Ok(cluster) => journal.cluster_seen(cluster, provider.origin()),
            Err(Error::NotFound(_)) => journal.cluster_gone(P::KIND, id, provider.origin()),
            Err(_) => Ok(()),
        };
        if let Err(error) = noted {
            tracing::warn!(%error, "the journal did not record what a get saw");
        }
    }
    answer
}

/// Every cluster in `scope`, page by page (each page retried on its own), up to
/// [`Provider::MAX_PAGES`].
///
/// A list that could not be read to its end is an error, never a shorter list: the look-ups
/// that decide whether a create landed would take a cluster on an unread page for absent, and
/// send the create again. So pages are read while the provider says more may follow; reading
/// [`Provider::MAX_PAGES`] of them with more still to come, or a page that repeats clusters an
/// earlier page listed (a provider that ignores the page number), ends the list with
/// [`Error::Decode`].
pub(crate) async fn list<P: Provider>(
    provider: &P,
    scope: &P::Scope,
) -> Result<Vec<Cluster>, Error> {
    if !P::KIND.profile().lists_clusters {
        return Err(unsupported::<P>("listing clusters"));
    }
    let settings = provider.settings();
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for page in 1..=P::MAX_PAGES {
        let answer = settings
            .retry
            .run(settings.pacing(), |_| provider.list_page(scope, page))
            .await?;
        let (status, operation) = (answer.status, answer.operation);
        let more = answer.value.more;
        for cluster in answer.value.clusters {
            let cluster = with_id::<P>(Answered {
                value: cluster,
                status,
                operation,
            })?;
            if !seen.insert(cluster.id.clone()) {
                return Err(unfinished::<P>(
                    (operation, status, page),
                    format!(
                        "cluster {} is listed again: the pages do not advance, so the list \
                         cannot be read to its end",
                        cluster.id
                    ),
                ));
            }
            clusters.push(cluster);
        }
        if !more {
            return Ok(clusters);
        }
        if page == P::MAX_PAGES {
            return Err(unfinished::<P>(
                (operation, status, page),
                format!(
                    "more pages follow, and {page} is the most read: the clusters on them are \
                     unknown"
                ),
            ));
        }
    }
    Ok(clusters)
}

/// [`Error::Decode`] for a list that could not be read to its end at `page`.
fn unfinished<P: Provider>(
    (operation, status, page): (&'static str, u16, u32),
    message: String,
) -> Error {
    Error::Decode(crate::error::DecodeError {
        provider: P::KIND,
        operation,
        status: Some(status),
        path: format!("page {page}"),
        message,
        body_excerpt: String::new(),
    })
}

/// The cluster named `name` in `scope`, if any (one list, with its own retries).
pub(crate) async fn find_by_name<P: Provider>(
    provider: &P,
    name: &str,
    scope: &P::Scope,
) -> Result<Option<Cluster>, Error> {
    Ok(list(provider, scope)
        .await?
        .into_iter()
        .find(|c| c.name == name))
}

/// Deletes a cluster, retried while the error is retryable. A 404 on a retry means an earlier
/// attempt of this call worked, and is success; a 404 on the first attempt is
/// [`Error::NotFound`]. With a journal, the delete is claimed first: where another caller's
/// delete of the cluster holds the claim, none is sent and its owner is returned.
pub(crate) async fn delete<P: Provider>(
    provider: &P,
    id: &ClusterId,
) -> Result<Option<String>, Error> {
    check_id::<P>(id)?;
    // Refused before anything is journaled: an intent row for an operation that cannot
    // exist would only be a delete that never finishes.
    if !P::KIND.profile().deletes_clusters {
        return Err(unsupported::<P>("deleting clusters"));
    }
    let settings = provider.settings();
    let Some(journal) = settings.journal() else {
        return delete_unjournaled(provider, id).await.map(|()| None);
    };
    let intent = match journal
        .claim_delete(P::KIND, id, settings.claim.lease)
        .map_err(Error::Journal)?
    {
        DeleteClaim::Owned(intent) => intent,
        DeleteClaim::Held { owner } => {
            tracing::info!(%owner, "another caller's delete of this cluster holds the claim");
            // Already gone is said as a DELETE would have said it (the provider's 404).
            return get(provider, id).await.map(|_| Some(owner));
        }
    };
    let result = delete_unjournaled(provider, id).await;
    if let Err(error) = journal.delete_finished(intent, result.as_ref().err()) {
        tracing::warn!(%error, "the journal did not record a delete's outcome");
    }
    result.map(|()| None)
}

async fn delete_unjournaled<P: Provider>(provider: &P, id: &ClusterId) -> Result<(), Error> {
    let settings = provider.settings();
    settings
        .retry
        .run(settings.pacing(), |attempt| async move {
            match provider.delete_once(id).await {
                Err(Error::NotFound(_)) if attempt > 1 => Ok(()),
                other => other,
            }
        })
        .await
}

/// Resizes a cluster to `size` (after checking the id).
pub(crate) async fn resize<P: Provider>(
    provider: &P,
    id: &ClusterId,
    size: ClusterSize,
) -> Result<Cluster, Error> {
    check_id::<P>(id)?;
    if P::KIND.profile().resize == crate::providers::profile::Resize::Unsupported {
        return Err(unsupported::<P>("resizing clusters"));
    }
    let cluster = provider.resize(id, size).await?;
    about(
        provider,
        id,
        Answered {
            value: cluster,
            status: 200,
            operation: "resize",
        },
    )
}

/// [`Error::Unsupported`]: the provider's profile says it lacks `operation`.
fn unsupported<P: Provider>(operation: &'static str) -> Error {
    Error::Unsupported {
        provider: P::KIND,
        operation,
    }
}

/// A cluster id must be something a provider could have issued and a URL keeps as one path
/// segment: not empty (which would send the request to the collection), not `.` or `..`
/// (which a URL resolves to the collection or its parent), no `/`, `\`, `?` or `#` (which a
/// URL reads as structure, even though the generated clients percent-encode all but `\`),
/// not absurdly long, no control characters. The same rule holds for ids from a user (the
/// CLI checks with [`crate::ClusterId::problem`]) and ids in a provider's answers.
fn check_id<P: Provider>(id: &ClusterId) -> Result<(), Error> {
    match crate::cluster::id_rule(id.as_str()) {
        None => Ok(()),
        Some(rule) => Err(Error::Validation(crate::error::ValidationError {
            provider: P::KIND,
            field: "cluster id".into(),
            rule: rule.into(),
            source: "gpucloud ClusterId",
        })),
    }
}

/// A cluster the provider answered with must carry an id that [`check_id`] accepts: one
/// without is a decoding failure, never a cluster (a create reported with an empty id would be
/// lost from sight, and a get or delete of `..` would reach another resource).
fn with_id<P: Provider>(answer: Answered<Cluster>) -> Result<Cluster, Error> {
    let Answered {
        value: cluster,
        status,
        operation,
    } = answer;
    let problem = if cluster.id.as_str().trim().is_empty() {
        Some("the answer has no cluster id".to_string())
    } else {
        crate::cluster::id_rule(cluster.id.as_str())
            .map(|rule| format!("the answer's cluster id {rule}"))
    };
    if let Some(message) = problem {
        return Err(Error::Decode(crate::error::DecodeError {
            provider: P::KIND,
            operation,
            status: Some(status),
            path: "id".into(),
            message,
            body_excerpt: crate::error::excerpt(
                &serde_json::to_string(&cluster.raw).unwrap_or_default(),
                512,
            ),
        }));
    }
    Ok(cluster)
}

/// A get's answer must be about the cluster asked for ([`Provider::same_id`]): an answer
/// naming another id (a cache or a proxy that mixed answers up, a provider bug) is a decoding
/// failure, never taken for the cluster asked about.
fn about<P: Provider>(
    provider: &P,
    asked: &ClusterId,
    answer: Answered<Cluster>,
) -> Result<Cluster, Error> {
    let (status, operation) = (answer.status, answer.operation);
    let cluster = with_id::<P>(answer)?;
    if provider.same_id(asked, &cluster.id) {
        return Ok(cluster);
    }
    Err(Error::Decode(crate::error::DecodeError {
        provider: P::KIND,
        operation,
        status: Some(status),
        path: "id".into(),
        message: format!(
            "the answer is about cluster {}, not cluster {asked} asked for",
            cluster.id
        ),
        body_excerpt: crate::error::excerpt(
            &serde_json::to_string(&cluster.raw).unwrap_or_default(),
            512,
        ),
    }))
}

/// The request a create of `spec` would send, taken from the generated client itself: the
/// same builder runs on a planning copy of the client, whose hooks record the finished request
/// (authentication and query encoding included, credentials redacted) instead of sending it.
pub(crate) async fn plan<P: Provider>(
    provider: &P,
    spec: &ClusterSpec,
) -> Result<PlannedRequest, Error> {
    let create = provider.create_request(spec)?;
    let (planner, capture) = provider.planning();
    // Nothing is sent, so the answer means nothing once the request is in the capture; without
    // one, the generated client refused to build the request and its error says why.
    let answer = provider.send_create(&planner, &create).await;
    match (capture.take(), answer) {
        (Some(captured), _) => Ok(PlannedRequest::from_captured(P::KIND, captured)),
        (None, Err(error)) => Err(error),
        (None, Ok(_)) => Err(Error::Validation(crate::error::ValidationError {
            provider: P::KIND,
            field: "request".into(),
            rule: "the generated client built no request".into(),
            source: "the provider's OpenAPI spec",
        })),
    }
}
