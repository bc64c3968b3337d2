//! Simulated time: scaled real time plus manual jumps, so a cluster that takes five minutes to
//! provision on the real service can be ready in milliseconds, or exactly when a test says so.
//!
//! `now = EPOCH + real_elapsed × time_scale + advanced`. With `time_scale` 0 time moves only
//! through [`SimClock::advance`], which makes a test fully deterministic. The epoch is a fixed
//! date, not the wall clock, so the same run produces the same bodies.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

/// Seconds since the Unix epoch of 2026-01-01T00:00:00Z, the simulator's time zero.
const EPOCH_UNIX_SECS: i64 = 1_767_225_600;

/// The simulator's clock; a cheap handle shared with the server.
#[derive(Debug, Clone)]
pub struct SimClock {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    started: Instant,
    time_scale: f64,
    advanced: Mutex<Duration>,
}

impl SimClock {
    /// A clock at time zero running at `time_scale` × real time (negative or NaN counts as 0).
    pub fn new(time_scale: f64) -> Self {
        let time_scale = if time_scale.is_finite() && time_scale > 0.0 {
            time_scale
        } else {
            0.0
        };
        Self {
            inner: Arc::new(Inner {
                started: Instant::now(),
                time_scale,
                advanced: Mutex::new(Duration::ZERO),
            }),
        }
    }

    /// How fast simulated time runs compared with real time.
    pub fn time_scale(&self) -> f64 {
        self.inner.time_scale
    }

    /// Simulated time since the simulator started.
    pub fn elapsed(&self) -> Duration {
        let scaled = self.inner.started.elapsed().mul_f64(self.inner.time_scale);
        scaled + self.advanced()
    }

    /// The simulated date and time.
    pub fn now(&self) -> DateTime<Utc> {
        Self::at(self.elapsed())
    }

    /// The date and time `elapsed` after the simulator's time zero.
    pub fn at(elapsed: Duration) -> DateTime<Utc> {
        let epoch = DateTime::<Utc>::from_timestamp(EPOCH_UNIX_SECS, 0).unwrap_or_default();
        epoch + chrono::Duration::from_std(elapsed).unwrap_or(chrono::Duration::MAX)
    }

    /// Moves simulated time forward by `by` (tests use this to step through a lifecycle).
    pub fn advance(&self, by: Duration) {
        if let Ok(mut advanced) = self.inner.advanced.lock() {
            *advanced += by;
        }
    }

    fn advanced(&self) -> Duration {
        self.inner
            .advanced
            .lock()
            .map(|a| *a)
            .unwrap_or(Duration::ZERO)
    }
}

/// RFC 3339 with second precision and a `Z`, the form the providers' examples use.
pub(crate) fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frozen_clock_moves_only_when_advanced() {
        let clock = SimClock::new(0.0);
        assert_eq!(rfc3339(clock.now()), "2026-01-01T00:00:00Z");
        clock.advance(Duration::from_secs(90));
        assert_eq!(clock.elapsed(), Duration::from_secs(90));
        assert_eq!(rfc3339(clock.now()), "2026-01-01T00:01:30Z");
        assert_eq!(SimClock::new(f64::NAN).time_scale(), 0.0);
    }

    #[test]
    fn a_scaled_clock_runs_faster_than_real_time() {
        let clock = SimClock::new(1000.0);
        std::thread::sleep(Duration::from_millis(5));
        assert!(clock.elapsed() >= Duration::from_secs(5));
    }
}
