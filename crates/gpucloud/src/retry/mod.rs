//! Bounded retries with jittered exponential backoff, for requests that are safe to repeat, and
//! the policy of creates that are not.
//!
//! Reads, deletes and idempotency-keyed creates go through [`RetryPolicy::run`]; a create
//! without an idempotency key is re-sent only after a look-up by name over a settle window
//! ([`ReconcilePolicy`]), and its other pauses come from the same [`RetryPolicy::next_delay`].
//! What counts as worth a retry is [`Error::retry_kind`]; a `Retry-After` from the provider is
//! honoured up to [`RetryPolicy::max_retry_after`], and every retry spends tokens from the
//! client's [`RetryBudget`], so a failing provider sees no retry storm from a busy program.

use std::future::Future;
use std::time::Duration;

pub use crate::budget::RetryBudget;
#[cfg(test)]
use crate::budget::TRANSIENT_RETRY_COST;
use crate::error::Error;
use crate::pacing::Pacing;
use crate::random::Random;

/// How often and how patiently to retry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// The backoff ceiling before the first retry.
    pub initial_backoff: Duration,
    /// The largest backoff ceiling.
    pub max_backoff: Duration,
    /// The longest `Retry-After` we agree to wait; a longer one ends the retries.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// A policy that sends once.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Attempts in all, the first included (1 = never retry).
    #[must_use]
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// Back off from at most `initial` before the first retry, doubling up to `max`.
    #[must_use]
    pub fn with_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// The longest `Retry-After` to wait for; a longer one ends the retries.
    #[must_use]
    pub fn with_max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = max;
        self
    }

    /// The wait before retry number `retry` (1-based): the provider's `Retry-After` when given,
    /// otherwise "full jitter" — uniform in `[0, min(max, initial × 2^(retry-1))]` — which
    /// spreads clients that failed together (AWS architecture blog, "Exponential Backoff And
    /// Jitter").
    pub fn delay(
        &self,
        retry: u32,
        retry_after: Option<Duration>,
        random: &dyn Random,
    ) -> Duration {
        if let Some(after) = retry_after {
            return after;
        }
        let ceiling = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retry.saturating_sub(1)))
            .min(self.max_backoff);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(random.up_to(nanos))
    }

    /// After attempt number `attempt` (1-based) failed with `error`: the pause before the next
    /// attempt, or `None` when there is to be none — `retry_on` rejects the error, the attempts
    /// are spent, or the provider asks for a longer pause than [`Self::max_retry_after`].
    pub fn next_delay(
        &self,
        attempt: u32,
        error: &Error,
        retry_on: fn(&Error) -> bool,
        random: &dyn Random,
    ) -> Option<Duration> {
        if !retry_on(error) || attempt >= self.max_attempts {
            return None;
        }
        let retry_after = error.retry_after();
        if retry_after.is_some_and(|after| after > self.max_retry_after) {
            return None;
        }
        Some(self.delay(attempt, retry_after, random))
    }

    /// Runs `attempt` until it succeeds, fails with an error that a retry cannot help, the
    /// attempts or the retry budget run out; sleeps on the pacing's clock between attempts.
    /// `attempt` gets the 1-based number.
    pub async fn run<T, F, Fut>(&self, pacing: Pacing<'_>, attempt: F) -> Result<T, Error>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        self.run_when(pacing, Error::is_retryable, attempt).await
    }

    /// [`Self::run`] with a caller's rule for which errors to retry: a create that carries an
    /// idempotency key may also repeat after an ambiguous failure.
    pub async fn run_when<T, F, Fut>(
        &self,
        pacing: Pacing<'_>,
        retry_on: fn(&Error) -> bool,
        mut attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let mut number = 1;
        let mut spent = None;
        loop {
            let error = match attempt(number).await {
                Ok(value) => {
                    pacing.budget.succeeded(spent);
                    return Ok(value);
                }
                Err(error) => error,
            };
            let Some(delay) = self.next_delay(number, &error, retry_on, pacing.random) else {
                return Err(error);
            };
            let Some(cost) = pacing.budget.withdraw(&error) else {
                tracing::warn!(attempt = number, %error, "retry budget exhausted; not retrying");
                return Err(error);
            };
            spent = Some(cost);
            tracing::debug!(attempt = number, delay_ms = delay.as_millis() as u64, %error, "retrying");
            pacing.clock.sleep(delay).await;
            number += 1;
        }
    }
}

/// How a create without an idempotency key (Together, E2E) settles after a failure that may
/// have reached the provider (a timeout, a dropped connection, a 5xx, an unreadable answer).
///
/// Real control planes list their clusters eventually: a cluster created a moment ago may be
/// missing from the list for seconds. So the cluster is looked up by name at once and then with
/// backoff until `settle_window` has passed; only if it is still absent is the POST sent again,
/// at most `max_resends` times per logical create. A failure that certainly created nothing
/// (429, a refused connection) is retried by the [`RetryPolicy`]; any other 4xx is never
/// re-sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReconcilePolicy {
    /// How long to keep looking for the cluster before a re-send.
    pub settle_window: Duration,
    /// The first pause between look-ups.
    pub initial_interval: Duration,
    /// The longest pause between look-ups.
    pub max_interval: Duration,
    /// Re-sends after an ambiguous failure, per logical create (0 = never re-send).
    pub max_resends: u32,
    /// How old a list may be for the look-up by name before a create (not those after an
    /// ambiguous failure): creates of one client within this of each other share one list
    /// of the account. `Duration::ZERO` lists before every create.
    pub name_lookup_max_age: Duration,
}

impl Default for ReconcilePolicy {
    /// Look for 90 s (pauses from 2 s doubling to 15 s), then re-send at most once; creates
    /// within 5 s of each other share a look-up by name.
    fn default() -> Self {
        Self {
            settle_window: Duration::from_secs(90),
            initial_interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(15),
            max_resends: 1,
            name_lookup_max_age: Duration::from_secs(5),
        }
    }
}

impl ReconcilePolicy {
    /// Look for the cluster for `window` before a re-send.
    #[must_use]
    pub fn with_settle_window(mut self, window: Duration) -> Self {
        self.settle_window = window;
        self
    }

    /// Pause `initial` after the first look-up, doubling up to `max`.
    #[must_use]
    pub fn with_intervals(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_interval = initial;
        self.max_interval = max;
        self
    }

    /// Re-sends after an ambiguous failure, per logical create (0 = never re-send).
    #[must_use]
    pub fn with_max_resends(mut self, resends: u32) -> Self {
        self.max_resends = resends;
        self
    }

    /// How old a shared list may be for the look-up by name before a create
    /// (`Duration::ZERO` lists before every create).
    #[must_use]
    pub fn with_name_lookup_max_age(mut self, max_age: Duration) -> Self {
        self.name_lookup_max_age = max_age;
        self
    }
}

#[cfg(test)]
mod tests;
