//! The retry policy's schedule and the reconcile policy's builders, on fixed randomness.

use super::*;
use crate::clock::Clock;
use crate::clock::ManualClock;
use crate::cluster::ProviderKind;
use crate::error::{ApiError, RetryKind};
use crate::random::{FastRandom, FixedRandom};

fn pacing<'a>(clock: &'a dyn Clock, budget: &'a RetryBudget) -> Pacing<'a> {
    Pacing {
        clock,
        random: &FixedRandom::MAX,
        budget,
    }
}

fn api(status: u16) -> Error {
    Error::Api(ApiError {
        provider: ProviderKind::Together,
        operation: "get_cluster",
        status,
        code: None,
        message: None,
        reason: None,
        retry_hint: None,
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
        .run(pacing(&clock, &RetryBudget::default()), |n| {
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
        .run(pacing(&clock, &RetryBudget::default()), |_| async {
            Err(api(502))
        })
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
        .run(pacing(&clock, &RetryBudget::default()), |_| async {
            Err(api(400))
        })
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
        .run(pacing(&clock, &RetryBudget::default()), |n| {
            let e = limited(3);
            async move { if n == 1 { Err(e) } else { Ok(()) } }
        })
        .await;
    assert!(result.is_ok());
    assert_eq!(clock.sleeps(), [Duration::from_secs(3)]);

    let clock = ManualClock::new();
    let result: Result<(), _> = RetryPolicy::default()
        .run(pacing(&clock, &RetryBudget::default()), |_| {
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

#[tokio::test]
async fn an_empty_budget_stops_retries_and_successes_refill_it() {
    let clock = ManualClock::new();
    let budget = RetryBudget::new(12);
    // 503 costs 5: two retries fit, the third does not.
    let mut calls = 0;
    let result: Result<(), _> = RetryPolicy {
        max_attempts: 10,
        ..RetryPolicy::default()
    }
    .run(pacing(&clock, &budget), |_| {
        calls += 1;
        async { Err(api(503)) }
    })
    .await;
    assert_eq!(result.unwrap_err().status(), Some(503));
    assert_eq!(calls, 3);
    assert_eq!(budget.available(), 2);
    // A success without retries refills one token; a retried success its retry's cost.
    budget.succeeded(None);
    assert_eq!(budget.available(), 3);
    budget.succeeded(Some(5));
    assert_eq!(budget.available(), 8);
    budget.succeeded(Some(10));
    assert_eq!(budget.available(), 12, "never above capacity");
    let timeout = Error::Timeout {
        what: "x".into(),
        after: Duration::ZERO,
    };
    assert_eq!(budget.withdraw(&timeout), Some(TRANSIENT_RETRY_COST));
    assert_eq!(
        budget.withdraw(&api(500)),
        None,
        "2 tokens left, a retry costs 5"
    );
    assert_eq!(budget.available(), 2);
}

#[tokio::test]
async fn none_sends_once() {
    assert_eq!(RetryPolicy::none().max_attempts, 1);
    let clock = ManualClock::new();
    let mut calls = 0;
    let result: Result<(), _> = RetryPolicy::none()
        .run(pacing(&clock, &RetryBudget::default()), |_| {
            calls += 1;
            async { Err(api(503)) }
        })
        .await;
    assert!(result.is_err());
    assert_eq!(calls, 1);
    assert!(clock.sleeps().is_empty());
}

#[test]
fn retry_kinds_follow_the_standard_strategy() {
    assert_eq!(api(500).retry_kind(), Some(RetryKind::Server));
    assert_eq!(api(504).retry_kind(), Some(RetryKind::Server));
    assert_eq!(api(408).retry_kind(), Some(RetryKind::Transient));
    assert_eq!(api(400).retry_kind(), None);
    assert_eq!(api(501).retry_kind(), None);
    let Error::Api(error) = api(429) else {
        unreachable!()
    };
    let limited = Error::RateLimited {
        error,
        retry_after: None,
    };
    assert_eq!(limited.retry_kind(), Some(RetryKind::Throttling));
}

#[test]
fn the_policy_builders_set_their_fields_and_only_those() {
    let retry = RetryPolicy::default()
        .with_max_attempts(7)
        .with_backoff(Duration::from_millis(10), Duration::from_secs(3))
        .with_max_retry_after(Duration::from_secs(9));
    let expected = RetryPolicy {
        max_attempts: 7,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(3),
        max_retry_after: Duration::from_secs(9),
    };
    assert_eq!(retry, expected);

    let reconcile = ReconcilePolicy::default()
        .with_settle_window(Duration::from_secs(11))
        .with_intervals(Duration::from_secs(1), Duration::from_secs(4))
        .with_max_resends(3)
        .with_name_lookup_max_age(Duration::ZERO);
    let expected = ReconcilePolicy {
        settle_window: Duration::from_secs(11),
        initial_interval: Duration::from_secs(1),
        max_interval: Duration::from_secs(4),
        max_resends: 3,
        name_lookup_max_age: Duration::ZERO,
    };
    assert_eq!(reconcile, expected);
}
