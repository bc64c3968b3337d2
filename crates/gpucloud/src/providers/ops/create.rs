//! Creates that are never doubled: journaled, then keyed (Runcrate) or reconciled by name over
//! a settle window (Together, E2E).

use std::time::Duration;

use super::{CreateSafety, Provider, find_by_name, get, with_id};
use crate::cluster::{Cluster, ClusterId, ClusterState, CreateOutcome, Created};
use crate::error::{Error, FieldDifference};
use crate::journal::{
    Claim, CreateIntent, CreateRecord, IntentId, Journal, JournalError, TakenOver,
};
use crate::random::PollBackoff;

/// Creates the cluster `create` describes, never two. `create` has been validated already.
///
/// With a journal, the name is claimed first (see [`crate::journal::Claim`]): another
/// caller's create of it in flight is waited for, and its cluster is the answer; a claim taken
/// over from a caller that died is reconciled before anything is sent; and the claim's lease
/// is renewed while the create runs.
///
/// `ttl` (the request's) becomes the intent's deadline: the time of the intent plus `ttl`.
/// `adopt` (the request's): a live same-name cluster that gpucloud did not create is taken as
/// the result ([`CreateOutcome::Adopted`]) instead of [`Error::NameTaken`].
pub(crate) async fn create<P: Provider>(
    provider: &P,
    create: &P::Create,
    ttl: Option<Duration>,
    adopt: bool,
) -> Result<Created, Error> {
    let settings = provider.settings();
    let Some(journal) = settings.journal() else {
        if ttl.is_some() {
            tracing::warn!("a ttl without a journal is recorded nowhere: no sweep will see it");
        }
        return create_unjournaled(provider, create, adopt).await;
    };
    // Boxed: the claim, the lease and a take-over make this future large, and an unjournaled
    // create should not carry its size (nor a debug build's stack).
    Box::pin(create_journaled(provider, create, ttl, adopt, &journal)).await
}

async fn create_journaled<P: Provider>(
    provider: &P,
    create: &P::Create,
    ttl: Option<Duration>,
    adopt: bool,
    journal: &dyn Journal,
) -> Result<Created, Error> {
    let settings = provider.settings();
    let mut intent = provider.intent(create);
    intent.origin = Some(provider.origin().to_string());
    let after = |d: Duration| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let at = i64::try_from(now.checked_add(d)?.as_millis()).ok()?;
        chrono::DateTime::from_timestamp_millis(at)
    };
    intent.deadline = ttl.and_then(after);
    intent.provider_ends_at = provider.ends_itself_after(create).and_then(after);
    // No intent recorded, no request sent: never a cluster the journal does not know.
    let (id, took_over) = match claim(provider, journal, &intent).await? {
        Claimed::Owned { intent, took_over } => (intent, took_over),
        Claimed::Existing(created) => return Ok(created),
    };
    let work = async {
        match &took_over {
            Some(stale) => create_taken_over(provider, create, &intent, stale, adopt).await,
            None => create_unjournaled(provider, create, adopt).await,
        }
    };
    // The deadline is this create's own (recorded with its intent).
    let result = with_lease(settings, journal, id, work)
        .await
        .map(|created| Created {
            deadline: intent.deadline,
            ..created
        });
    let record = match &result {
        Ok(created) => CreateRecord::Cluster {
            id: &created.cluster.id,
            outcome: created.outcome,
        },
        Err(error) => CreateRecord::Failed { error },
    };
    let finished = journal.create_finished(id, &record);
    match (result, finished) {
        // A cluster the journal does not know of bills where no sweep sees it: said as an
        // error, with the cluster, rather than a success with a log line.
        (Ok(created), Err(error)) => Err(Error::Unrecorded(Box::new(crate::error::Unrecorded {
            created,
            error,
        }))),
        (Ok(created), Ok(())) => {
            if let Err(error) = journal.cluster_seen(&created.cluster, provider.origin()) {
                tracing::warn!(%error, "the journal did not record what a create saw");
            }
            Ok(created)
        }
        // The error is returned; its intent stays pending (and leased) for a sweep to settle.
        (Err(failed), Err(error)) => {
            tracing::warn!(%error, "the journal did not record a create's failure");
            Err(failed)
        }
        (Err(failed), Ok(())) => Err(failed),
    }
}

/// What a claim came to: this caller's to create, or another create's cluster.
enum Claimed {
    Owned {
        intent: IntentId,
        took_over: Option<TakenOver>,
    },
    Existing(Created),
}

/// Claims `intent`'s name, waiting (bounded by [`crate::journal::ClaimPolicy::max_wait`])
/// while another caller's create of it is in flight. The wait is in real time, not on the
/// client's clock: the other caller and its lease run in real time (a simulated clock paces
/// only this client's own requests). A cluster the journal names as the
/// name's is the answer only if the provider still has it, not deleted or being deleted; the
/// get records what it saw, so the next claim no longer names a cluster that is gone.
async fn claim<P: Provider>(
    provider: &P,
    journal: &dyn Journal,
    intent: &CreateIntent,
) -> Result<Claimed, Error> {
    let settings = provider.settings();
    let policy = &settings.claim;
    let started = tokio::time::Instant::now();
    let mut backoff = PollBackoff::new(policy.poll_interval, policy.max_poll_interval);
    let mut refused: Vec<ClusterId> = Vec::new();
    loop {
        match journal
            .claim_create(intent, policy.lease)
            .map_err(Error::Journal)?
        {
            Claim::Owned { intent, took_over } => return Ok(Claimed::Owned { intent, took_over }),
            Claim::Exists {
                cluster,
                same_request,
                request,
                deadline,
                ..
            } => {
                if refused.contains(&cluster) {
                    return Err(Error::Journal(JournalError::new(format!(
                        "the journal still names cluster {cluster} as {:?}'s after the \
                         provider said it is gone or being deleted",
                        intent.name
                    ))));
                }
                match get(provider, &cluster).await {
                    Ok(found)
                        if !matches!(
                            found.state,
                            ClusterState::Deleting | ClusterState::Deleted
                        ) =>
                    {
                        if !same_request {
                            // Not the cluster asked for: returning it would be a different
                            // size, GPU or place than the caller pays for and expects.
                            let differences = match (&request, &intent.request) {
                                (Some(earlier), Some(now)) => {
                                    FieldDifference::between(earlier, now)
                                }
                                _ => Vec::new(),
                            };
                            return Err(Error::NameInUse {
                                provider: P::KIND,
                                name: intent.name.clone(),
                                cluster: found.id,
                                differences,
                            });
                        }
                        tracing::info!(cluster = %found.id, "another create of this name made it");
                        return Ok(Claimed::Existing(Created {
                            cluster: found,
                            outcome: CreateOutcome::AlreadyExisted,
                            attempts: 0,
                            deadline,
                        }));
                    }
                    Ok(_) | Err(Error::NotFound(_)) => refused.push(cluster),
                    Err(error) => return Err(error),
                }
            }
            Claim::InFlight {
                owner, lease_left, ..
            } => {
                let waited = started.elapsed();
                let left = policy.max_wait.saturating_sub(waited);
                if left.is_zero() {
                    return Err(Error::NameClaimed {
                        name: intent.name.clone(),
                        reason: format!(
                            "{owner}'s create was still in flight after {}s of waiting",
                            waited.as_secs()
                        ),
                    });
                }
                tracing::info!(
                    owner = %owner,
                    lease_left_ms = lease_left.as_millis(),
                    "another create of this name is in flight; waiting for it"
                );
                // On real time, not the client's clock: a lease runs out by the journal's
                // clock, which is the machines' own.
                tokio::time::sleep(backoff.next_pause(settings.random.as_ref(), left)).await;
            }
        }
    }
}

/// Runs `work` while renewing the claim `intent` every third of the lease, in real time (the
/// lease is). A renewal that fails is a warning (the create is already under way; stopping it
/// halfway would be worse).
async fn with_lease<F: Future>(
    settings: &crate::config::ClientSettings,
    journal: &dyn Journal,
    intent: IntentId,
    work: F,
) -> F::Output {
    let lease = settings.claim.lease;
    let heartbeat = async {
        loop {
            tokio::time::sleep((lease / 3).max(Duration::from_millis(100))).await;
            if let Err(error) = journal.renew_claim(intent, lease) {
                tracing::warn!(%error, "the claim on this create's name could not be renewed");
            }
        }
    };
    let work = Box::pin(work);
    let heartbeat = std::pin::pin!(heartbeat);
    match futures_util::future::select(work, heartbeat).await {
        futures_util::future::Either::Left((output, _)) => output,
        futures_util::future::Either::Right(((), work)) => work.await,
    }
}

/// A create whose claim was taken over from a caller that stopped with its outcome unknown:
/// that caller may have sent its request. By name, the cluster is looked for over the settle
/// window before anything is sent; with a key, only the same key is safe to send (the
/// provider then answers with that caller's cluster if it made one).
async fn create_taken_over<P: Provider>(
    provider: &P,
    create: &P::Create,
    intent: &CreateIntent,
    stale: &TakenOver,
    adopt: bool,
) -> Result<Created, Error> {
    tracing::warn!(owner = %stale.owner, "taking over a create of this name whose owner stopped");
    match provider.create_safety(create) {
        CreateSafety::Keyed => {
            if stale.idempotency_key.is_some() && stale.idempotency_key != intent.idempotency_key {
                return Err(Error::NameClaimed {
                    name: intent.name.clone(),
                    reason: format!(
                        "{}'s create stopped with its outcome unknown under another idempotency \
                         key{}; send that request again to settle it",
                        stale.owner,
                        if stale.same_request {
                            ""
                        } else {
                            " and another request"
                        }
                    ),
                });
            }
            create_keyed(provider, create).await
        }
        CreateSafety::ReconcileByName { name, scope } => {
            // A request sent before the stale intent was recorded is at least that old: the
            // list shows it once the settle window has passed since then.
            let window = provider
                .settings()
                .reconcile
                .settle_window
                .saturating_sub(stale.age);
            if let Some(cluster) = settle(provider, name, &scope, window).await? {
                provider.name_lookups().made(&scope, &cluster).await;
                // The stopped create sent another request: its cluster is not this one's.
                if !stale.same_request {
                    return Err(Error::NameInUse {
                        provider: P::KIND,
                        name: intent.name.clone(),
                        cluster: cluster.id,
                        differences: Vec::new(),
                    });
                }
                return Ok(Created {
                    cluster,
                    outcome: CreateOutcome::CreatedReconciled,
                    attempts: 0,
                    deadline: None,
                });
            }
            create_reconciled(provider, create, name, &scope, adopt).await
        }
    }
}

async fn create_unjournaled<P: Provider>(
    provider: &P,
    create: &P::Create,
    adopt: bool,
) -> Result<Created, Error> {
    match provider.create_safety(create) {
        CreateSafety::Keyed => create_keyed(provider, create).await,
        CreateSafety::ReconcileByName { name, scope } => {
            create_reconciled(provider, create, name, &scope, adopt).await
        }
    }
}

/// A keyed create: the same request (same key) repeated after retryable and ambiguous
/// failures. A replay answer on the first attempt means the key's cluster existed before this
/// call; on a later attempt, that an earlier attempt of this call made it.
async fn create_keyed<P: Provider>(provider: &P, create: &P::Create) -> Result<Created, Error> {
    let settings = provider.settings();
    let retry_on: fn(&Error) -> bool = |e| e.is_retryable() || e.is_ambiguous();
    let (sent, attempts) = settings
        .retry
        .run_when(settings.pacing(), retry_on, |attempt| async move {
            let sent = provider.send_create(provider.client(), create).await?;
            Ok((sent, attempt))
        })
        .await?;
    let replayed = sent.value.replayed;
    let cluster = with_id::<P>(sent.map(|sent| sent.cluster))?;
    let outcome = match (replayed, attempts) {
        (false, _) => CreateOutcome::Created,
        (true, 1) => CreateOutcome::AlreadyExisted,
        (true, _) => CreateOutcome::CreatedReconciled,
    };
    Ok(Created {
        cluster,
        outcome,
        attempts,
        deadline: None,
    })
}

/// A create without a key (see [`crate::ReconcilePolicy`]). The POST is never re-sent blindly:
/// before the first send the cluster is looked up by name (a cluster found then was not made
/// by this create: see [`found_before`]); after a failure that may have
/// reached the provider (timeout, dropped connection, 5xx, unreadable answer) it is looked up
/// again and again over the settle window, and the POST is re-sent only if it is still absent,
/// at most `max_resends` times. Failures that certainly created nothing (429, a refused
/// connection) are retried after the [`crate::RetryPolicy`]'s pause, within its attempts and the
/// retry budget; every other failure (a 4xx above all) is returned at once.
async fn create_reconciled<P: Provider>(
    provider: &P,
    create: &P::Create,
    name: &str,
    scope: &P::Scope,
    adopt: bool,
) -> Result<Created, Error> {
    let settings = provider.settings();
    let pacing = settings.pacing();
    let lookups = provider.name_lookups();
    let max_age = settings.reconcile.name_lookup_max_age;
    if let Some(found) = lookups.find(provider, name, scope, max_age).await? {
        if found.made_here {
            // This client's own earlier create of the name made it.
            return Ok(Created {
                cluster: found.cluster,
                outcome: CreateOutcome::AlreadyExisted,
                attempts: 0,
                deadline: None,
            });
        }
        return found_before::<P>(name, found.cluster, adopt);
    }
    let mut attempts = 0;
    let mut resends = 0;
    let mut spent = None;
    loop {
        attempts += 1;
        let error = match provider.send_create(provider.client(), create).await {
            Ok(sent) => {
                pacing.budget.succeeded(spent);
                let cluster = with_id::<P>(sent.map(|sent| sent.cluster))?;
                lookups.made(scope, &cluster).await;
                return Ok(Created {
                    cluster,
                    outcome: CreateOutcome::Created,
                    attempts,
                    deadline: None,
                });
            }
            Err(error) => error,
        };
        if error.is_ambiguous() {
            tracing::warn!(attempt = attempts, %error, "create may have landed; looking it up");
            let window = settings.reconcile.settle_window;
            if let Some(cluster) = settle(provider, name, scope, window).await? {
                // Found by name: later creates of this client see it without a list.
                lookups.made(scope, &cluster).await;
                return Ok(Created {
                    cluster,
                    outcome: CreateOutcome::CreatedReconciled,
                    attempts,
                    deadline: None,
                });
            }
            if resends >= settings.reconcile.max_resends {
                return Err(error);
            }
            let Some(cost) = pacing.budget.withdraw(&error) else {
                return Err(error);
            };
            spent = Some(cost);
            resends += 1;
            tracing::warn!(
                attempt = attempts,
                "not found after the settle window; sending again"
            );
            continue;
        }
        let retry_on: fn(&Error) -> bool = Error::is_retryable;
        let Some(pause) = settings
            .retry
            .next_delay(attempts, &error, retry_on, pacing.random)
        else {
            return Err(error);
        };
        let Some(cost) = pacing.budget.withdraw(&error) else {
            return Err(error);
        };
        spent = Some(cost);
        tracing::warn!(attempt = attempts, %error, "create refused for now; retrying");
        pacing.clock.sleep(pause).await;
    }
}

/// A cluster named `name` that the look-up before the first POST found, and that this client
/// did not make. The journal's claim comes first and answers for every cluster an earlier
/// create of ours made under this name and request, so this one is someone else's (or a
/// create's without a journal): never taken as ours without `adopt`, and never adopted
/// unless live. A failed, deleting or deleted
/// cluster is not what a create asks for, and one taken as the result would then be deleted
/// as if it were the new cluster's clean-up.
fn found_before<P: Provider>(name: &str, cluster: Cluster, adopt: bool) -> Result<Created, Error> {
    let adoptable = !matches!(
        cluster.state,
        ClusterState::Failed(_) | ClusterState::Deleting | ClusterState::Deleted
    );
    if adopt && adoptable {
        tracing::info!(cluster = %cluster.id, "adopting a cluster gpucloud did not create");
        return Ok(Created {
            cluster,
            outcome: CreateOutcome::Adopted,
            attempts: 0,
            deadline: None,
        });
    }
    Err(Error::NameTaken {
        provider: P::KIND,
        name: name.to_string(),
        cluster: cluster.id,
        state: cluster.state.to_string(),
        adoptable,
    })
}

/// Looks for the cluster named `name` at once and then with jittered backoff until `window`
/// has passed. A look-up that fails (after its own retries) ends the search with its
/// error: without an answer, a re-send could double the cluster.
async fn settle<P: Provider>(
    provider: &P,
    name: &str,
    scope: &P::Scope,
    window: Duration,
) -> Result<Option<Cluster>, Error> {
    let settings = provider.settings();
    let policy = &settings.reconcile;
    let clock = settings.clock.as_ref();
    let started = clock.now();
    let mut backoff = PollBackoff::new(policy.initial_interval, policy.max_interval);
    loop {
        if let Some(cluster) = find_by_name(provider, name, scope).await? {
            return Ok(Some(cluster));
        }
        let remaining = window.saturating_sub(clock.now().saturating_sub(started));
        if remaining.is_zero() {
            return Ok(None);
        }
        clock
            .sleep(backoff.next_pause(settings.random.as_ref(), remaining))
            .await;
    }
}
