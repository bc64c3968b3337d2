//! Bounded retries with jittered exponential backoff, for requests that are safe to repeat.
//!
//! Only reads, deletes and idempotency-keyed creates go through [`RetryPolicy::run`]; a create
//! without an idempotency key never does (see `providers::reconcile`). What counts as worth a
//! retry is [`Error::is_retryable`]; a `Retry-After` from the provider is honoured.

use std::future::Future;
use std::time::Duration;

use crate::clock::Clock;
use crate::error::Error;

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
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after;
        }
        let ceiling = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retry.saturating_sub(1)))
            .min(self.max_backoff);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }

    /// Runs `attempt` until it succeeds, fails with an error that a retry cannot help, or the
    /// attempts run out; sleeps on `clock` between attempts. `attempt` gets the 1-based number.
    pub async fn run<T, F, Fut>(&self, clock: &dyn Clock, attempt: F) -> Result<T, Error>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        self.run_when(clock, Error::is_retryable, attempt).await
    }

    /// [`Self::run`] with a caller's rule for which errors to retry: a create that carries an
    /// idempotency key may also repeat after an ambiguous failure.
    pub async fn run_when<T, F, Fut>(
        &self,
        clock: &dyn Clock,
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
            if !retry_on(&error) || number >= self.max_attempts {
                return Err(error);
            }
            if error
                .retry_after()
                .is_some_and(|after| after > self.max_retry_after)
            {
                return Err(error);
            }
            let delay = self.delay(number, error.retry_after());
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
            assert!(policy.delay(1, None) <= Duration::from_millis(500));
            assert!(policy.delay(3, None) <= Duration::from_secs(2));
            assert!(policy.delay(30, None) <= Duration::from_secs(20));
        }
        assert_eq!(
            policy.delay(2, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
    }

    #[tokio::test]
    async fn retries_transient_errors_then_succeeds() {
        let clock = ManualClock::new();
        let mut calls = Vec::new();
        let result = RetryPolicy::default()
            .run(&clock, |n| {
                calls.push(n);
                async move { if n < 3 { Err(api(503)) } else { Ok(n) } }
            })
            .await;
        assert_eq!(result.unwrap(), 3);
        assert_eq!(calls, [1, 2, 3]);
        assert_eq!(clock.sleeps().len(), 2);
    }

    #[tokio::test]
    async fn stops_at_max_attempts_and_returns_the_last_error() {
        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, |_| async { Err(api(502)) })
            .await;
        assert_eq!(result.unwrap_err().status(), Some(502));
        assert_eq!(clock.sleeps().len(), 3);
    }

    #[tokio::test]
    async fn does_not_retry_client_errors() {
        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, |_| async { Err(api(400)) })
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
            .run(&clock, |n| {
                let e = limited(3);
                async move { if n == 1 { Err(e) } else { Ok(()) } }
            })
            .await;
        assert!(result.is_ok());
        assert_eq!(clock.sleeps(), [Duration::from_secs(3)]);

        let clock = ManualClock::new();
        let result: Result<(), _> = RetryPolicy::default()
            .run(&clock, |_| {
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
}
