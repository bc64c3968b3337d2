//! Time, injectable: the waiter and the retry loop ask a [`Clock`] for "now" and for sleeps, so
//! tests run hours of provider time in microseconds and deterministically.

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A boxed sleep.
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// A monotonic clock that can sleep.
pub trait Clock: Debug + Send + Sync {
    /// Time elapsed since an arbitrary, fixed origin.
    fn now(&self) -> Duration;
    /// Waits for `duration`.
    fn sleep(&self, duration: Duration) -> Sleep<'_>;
}

/// Real time, through tokio's timer.
#[derive(Debug, Clone)]
pub struct TokioClock {
    origin: tokio::time::Instant,
}

impl Default for TokioClock {
    fn default() -> Self {
        Self {
            origin: tokio::time::Instant::now(),
        }
    }
}

impl Clock for TokioClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A fake clock for tests: `sleep` returns at once and moves "now" forward, and every sleep is
/// recorded so a test can assert the backoff schedule.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    state: Arc<Mutex<ManualState>>,
}

#[derive(Debug, Default)]
struct ManualState {
    now: Duration,
    sleeps: Vec<Duration>,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves time forward without a sleep.
    pub fn advance(&self, by: Duration) {
        if let Ok(mut state) = self.state.lock() {
            state.now += by;
        }
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.state
            .lock()
            .map(|s| s.sleeps.clone())
            .unwrap_or_default()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        self.state.lock().map(|s| s.now).unwrap_or_default()
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        if let Ok(mut state) = self.state.lock() {
            state.now += duration;
            state.sleeps.push(duration);
        }
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn manual_clock_advances_on_sleep_and_records_it() {
        let clock = ManualClock::new();
        clock.sleep(Duration::from_secs(5)).await;
        clock.advance(Duration::from_secs(1));
        clock.sleep(Duration::from_millis(500)).await;
        assert_eq!(clock.now(), Duration::from_millis(6500));
        assert_eq!(
            clock.sleeps(),
            [Duration::from_secs(5), Duration::from_millis(500)]
        );
    }
}
