//! Creates that are never doubled: journaled, then keyed (Runcrate) or reconciled by name over
//! a settle window (Together, E2E).

use super::{CreateSafety, Provider, find_by_name, with_id};
use crate::cluster::{Cluster, CreateOutcome, Created};
use crate::error::Error;
use crate::journal::CreateRecord;

/// Creates the cluster `create` describes, never two. `create` has been validated already.
pub(crate) async fn create<P: Provider>(
    provider: &P,
    create: &P::Create,
) -> Result<Created, Error> {
    let Some(journal) = &provider.settings().journal else {
        return create_unjournaled(provider, create).await;
    };
    // No intent recorded, no request sent: never a cluster the journal does not know.
    let intent = journal
        .create_started(&provider.intent(create))
        .map_err(Error::Journal)?;
    let result = create_unjournaled(provider, create).await;
    let record = match &result {
        Ok(created) => CreateRecord::Cluster {
            id: &created.cluster.id,
            outcome: created.outcome,
        },
        Err(error) => CreateRecord::Failed { error },
    };
    let noted = journal
        .create_finished(intent, &record)
        .and_then(|()| match &result {
            Ok(created) => journal.cluster_seen(&created.cluster),
            Err(_) => Ok(()),
        });
    if let Err(error) = noted {
        tracing::warn!(%error, "the journal did not record a create's outcome");
    }
    result
}

async fn create_unjournaled<P: Provider>(
    provider: &P,
    create: &P::Create,
) -> Result<Created, Error> {
    match provider.create_safety(create) {
        CreateSafety::Keyed => create_keyed(provider, create).await,
        CreateSafety::ReconcileByName { name, scope } => {
            create_reconciled(provider, create, name, &scope).await
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
    let cluster = with_id::<P>("create_cluster", sent.cluster)?;
    let outcome = match (sent.replayed, attempts) {
        (false, _) => CreateOutcome::Created,
        (true, 1) => CreateOutcome::AlreadyExisted,
        (true, _) => CreateOutcome::CreatedReconciled,
    };
    Ok(Created {
        cluster,
        outcome,
        attempts,
    })
}

/// A create without a key (see [`crate::ReconcilePolicy`]). The POST is never re-sent blindly:
/// before the first send the cluster is looked up by name; after a failure that may have
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
) -> Result<Created, Error> {
    let settings = provider.settings();
    let pacing = settings.pacing();
    if let Some(cluster) = find_by_name(provider, name, scope).await? {
        return Ok(Created {
            cluster,
            outcome: CreateOutcome::AlreadyExisted,
            attempts: 0,
        });
    }
    let mut attempts = 0;
    let mut resends = 0;
    let mut spent = None;
    loop {
        attempts += 1;
        let error = match provider.send_create(provider.client(), create).await {
            Ok(sent) => {
                pacing.budget.succeeded(spent);
                return Ok(Created {
                    cluster: with_id::<P>("create_cluster", sent.cluster)?,
                    outcome: CreateOutcome::Created,
                    attempts,
                });
            }
            Err(error) => error,
        };
        if error.is_ambiguous() {
            tracing::warn!(attempt = attempts, %error, "create may have landed; looking it up");
            if let Some(cluster) = settle(provider, name, scope).await? {
                return Ok(Created {
                    cluster,
                    outcome: CreateOutcome::CreatedReconciled,
                    attempts,
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

/// Looks for the cluster named `name` at once and then with jittered backoff until the settle
/// window has passed. A look-up that fails (after its own retries) ends the search with its
/// error: without an answer, a re-send could double the cluster.
async fn settle<P: Provider>(
    provider: &P,
    name: &str,
    scope: &P::Scope,
) -> Result<Option<Cluster>, Error> {
    let settings = provider.settings();
    let policy = &settings.reconcile;
    let clock = settings.clock.as_ref();
    let started = clock.now();
    let mut interval = policy.initial_interval;
    loop {
        if let Some(cluster) = find_by_name(provider, name, scope).await? {
            return Ok(Some(cluster));
        }
        let remaining = policy
            .settle_window
            .saturating_sub(clock.now().saturating_sub(started));
        if remaining.is_zero() {
            return Ok(None);
        }
        let pause = crate::random::half_jitter(interval, settings.random.as_ref());
        clock.sleep(pause.min(remaining)).await;
        interval = interval.saturating_mul(2).min(policy.max_interval);
    }
}
