//! Creating a cluster on a provider without idempotency keys (Together, E2E) without ever
//! starting two.
//!
//! A create POST is never re-sent blindly. Before the first send, and after every failure that
//! may have reached the provider (timeout, dropped connection, 5xx, unreadable success body),
//! the cluster is looked up by its name; only if it is absent is the POST sent again. Failures
//! that certainly did not create anything (429, refused connection) are retried after backoff;
//! all others are returned at once.
//!
//! Limit, documented for users: a provider whose list lags behind its creates could still show
//! nothing right after an ambiguous failure; the look-up waits one backoff interval first.

use std::future::Future;

use crate::cluster::{Cluster, CreateOutcome, Created};
use crate::config::HttpSettings;
use crate::error::Error;

/// Creates with `send`, looking clusters up by name with `find`.
pub(crate) async fn create_reconciled<S, SFut, F, FFut>(
    http: &HttpSettings,
    mut send: S,
    mut find: F,
) -> Result<Created, Error>
where
    S: FnMut() -> SFut,
    SFut: Future<Output = Result<Cluster, Error>>,
    F: FnMut() -> FFut,
    FFut: Future<Output = Result<Option<Cluster>, Error>>,
{
    let clock = http.clock.as_ref();
    if let Some(cluster) = http.retry.run(clock, |_| find()).await? {
        return Ok(Created {
            cluster,
            outcome: CreateOutcome::AlreadyExisted,
            attempts: 0,
        });
    }
    let mut attempts = 0;
    loop {
        attempts += 1;
        let error = match send().await {
            Ok(cluster) => {
                return Ok(Created {
                    cluster,
                    outcome: CreateOutcome::Created,
                    attempts,
                });
            }
            Err(error) => error,
        };
        let may_have_landed = error.is_ambiguous();
        if !(may_have_landed || error.is_retryable()) || attempts >= http.retry.max_attempts {
            return Err(error);
        }
        tracing::warn!(attempt = attempts, ambiguous = may_have_landed, %error, "create failed");
        clock
            .sleep(http.retry.delay(attempts, error.retry_after()))
            .await;
        if may_have_landed && let Some(cluster) = http.retry.run(clock, |_| find()).await? {
            return Ok(Created {
                cluster,
                outcome: CreateOutcome::CreatedReconciled,
                attempts,
            });
        }
    }
}
