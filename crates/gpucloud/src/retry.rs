//! Bounded retries with jittered exponential backoff, for requests that are safe to repeat.
//!
//! Only reads, deletes and idempotency-keyed creates go through [`RetryPolicy::run`]; a create
//! without an idempotency key is re-sent only after a look-up by name, but its pauses come from
//! the same [`RetryPolicy::next_delay`]. What counts as worth a retry is
//! [`Error::is_retryable`]; a `Retry-After` from the provider is honoured up to
//! [`RetryPolicy::max_retry_after`].

use std::future::Future;
use std::time::Duration;

use crate::clock::Clock;
use crate::error::Error;
use crate::random::Random;

/// How often and how patiently to retry.
#[derive(Debug, Clone, PartialEq)]
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

    /// Runs `attempt` until it succeeds, fails with an error that a retry cannot help, or the
    /// attempts run out; sleeps on `clock` between attempts. `attempt` gets the 1-based number.
    pub async fn run<T, F, Fut>(
        &self,
        clock: &dyn Clock,
        random: &dyn Random,
        attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        self.run_when(clock, random, Error::is_retryable, attempt)
            .await
    }

    /// [`Self::run`] with a caller's rule for which errors to retry: a create that carries an
    /// idempotency key may also repeat after an ambiguous failure.
    pub async fn run_when<T, F, Fut>(
        &self,
        clock: &dyn Clock,
        random: &dyn Random,
        retry_on: fn(&Error) -> bool,
        mut attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let mut number = 1;
        loop {
            let error = match attempt(number).await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            let Some(delay) = self.next_delay(number, &error, retry_on, random) else {
                return Err(error);
            };
            tracing::debug!(attempt = number, delay_ms = delay.as_millis() as u64, %error, "retrying");
            clock.sleep(delay).await;
            number += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::cluster::ProviderKind;
    use crate::error::ApiError;
    use crate::random::{FastRandom, FixedRandom};

    fn api(status: u16) -> Error {
        Error::Api(ApiError {
            provider: ProviderKind::Together,
            operation: "get_cluster",
            status,
            code: None,
            message: None,
            reason: None,
            body: String::new(),
        })
    }

    #[test]
    fn backoff_is_bounded_by_the_exponential_ceiling() {
        let policy = RetryPolicy::default();
        for _ in 0..200 {
            assert!(policy.delay(1, None, &FastRandom) <= Duration::from_millis(500));
            assert!(policy.delay(3, None, &FastRandom) <= Duration::from_secs(2));
            assert!(policy.delay(30, None, &FastRandom) <= Duration::from_secs(20));
        }
        let top = &FixedRandom::MAX;
        assert_eq!(policy.delay(1, None, top), Duration::from_millis(500));
        assert_eq!(policy.delay(2, None, top), Duration::from_secs(1));
        assert_eq!(policy.delay(3, None, top), Duration::from_secs(2));
        assert_eq!(policy.delay(7, None, top), Duration::from_secs(20));
        assert_eq!(
            policy.delay(1, None, &FixedRandom::fraction(1, 2)),
            Duration::from_millis(250)
        );
        assert_eq!(policy.delay(9, None, &FixedRandom::ZERO), Duration::ZERO);
        assert_eq!(
            policy.delay(2, Some(Duration::from_secs(7)), top),
            Duration::from_secs(7)
        );
    }

    #[tokio::test]
    async fn retries_transient_errors_then_succeeds() {
        let clock = ManualClock::new();
        let mut calls = Vec::new();
        let result = RetryPolicy::default()
            .run(&clock, &FixedRandom::MAX, |n| {
                calls.push(n);
                async move { if n < 3 { Err(api(503)) } else { Ok(n) } }
            })
            .await;
        assert_eq!(result.unwrap(), 3);
        assert_eq!(calls, [1, 2, 3]);
        assert_eq!(
            clock.sleeps(),
            [Duration::from_millis(500), Duration::from_secs(1)]
        );
    }

    #[tokio::test]
    async fn stops_at_max_attempts_and_returns_the_last_error() {
        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, &FixedRandom::MAX, |_| async { Err(api(502)) })
            .await;
        assert_eq!(result.unwrap_err().status(), Some(502));
        assert_eq!(
            clock.sleeps(),
            [
                Duration::from_millis(500),
                Duration::from_secs(1),
                Duration::from_secs(2)
            ]
        );
    }

    #[tokio::test]
    async fn does_not_retry_client_errors() {
        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, &FixedRandom::MAX, |_| async { Err(api(400)) })
            .await;
        assert_eq!(result.unwrap_err().status(), Some(400));
        assert!(clock.sleeps().is_empty());
    }

    #[tokio::test]
    async fn honours_retry_after_and_gives_up_when_it_is_too_long() {
        let clock = ManualClock::new();
        let limited = |secs| {
            let Error::Api(error) = api(429) else {
                unreachable!()
            };
            Error::RateLimited {
                error,
                retry_after: Some(Duration::from_secs(secs)),
            }
        };
        let result = RetryPolicy::default()
            .run(&clock, &FixedRandom::MAX, |n| {
                let e = limited(3);
                async move { if n == 1 { Err(e) } else { Ok(()) } }
            })
            .await;
        assert!(result.is_ok());
        assert_eq!(clock.sleeps(), [Duration::from_secs(3)]);

        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, &FixedRandom::MAX, |_| {
                let e = limited(3600);
                async move { Err(e) }
            })
            .await;
        assert_eq!(
            result.unwrap_err().retry_after(),
            Some(Duration::from_secs(3600))
        );
        assert!(clock.sleeps().is_empty());
    }

    #[test]
    fn next_delay_decides_every_pause() {
        let policy = RetryPolicy::default();
        let top = &FixedRandom::MAX;
        let retryable: fn(&Error) -> bool = Error::is_retryable;
        assert_eq!(
            policy.next_delay(1, &api(503), retryable, top),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            policy.next_delay(4, &api(503), retryable, top),
            None,
            "spent"
        );
        assert_eq!(
            policy.next_delay(1, &api(400), retryable, top),
            None,
            "not retryable"
        );
        assert_eq!(
            policy.next_delay(1, &api(400), |_| true, top),
            Some(Duration::from_millis(500))
        );
        let limited = |secs| {
            let Error::Api(error) = api(429) else {
                unreachable!()
            };
            Error::RateLimited {
                error,
                retry_after: Some(Duration::from_secs(secs)),
            }
        };
        assert_eq!(
            policy.next_delay(1, &limited(120), retryable, top),
            Some(Duration::from_secs(120)),
            "exactly the ceiling is honoured"
        );
        assert_eq!(policy.next_delay(1, &limited(121), retryable, top), None);
    }
}
