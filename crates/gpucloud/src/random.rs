//! Randomness, injectable: backoff and poll jitter draw from a [`Random`], so tests can fix it
//! and assert exact schedules instead of bounds.

use std::fmt::Debug;

/// A source of uniformly distributed integers.
pub trait Random: Debug + Send + Sync {
    /// A value in `0..=max`.
    fn up_to(&self, max: u64) -> u64;
}

/// Real randomness: `fastrand`'s per-thread generator (seeded from the OS), not shared state.
#[derive(Debug, Clone, Copy, Default)]
pub struct FastRandom;

impl Random for FastRandom {
    fn up_to(&self, max: u64) -> u64 {
        fastrand::u64(0..=max)
    }
}

/// A pause in `[interval/2, interval]`: enough jitter that many pollers do not move in
/// lockstep, never so little that a poll comes much sooner than asked.
pub fn half_jitter(interval: std::time::Duration, random: &dyn Random) -> std::time::Duration {
    let half = interval / 2;
    half + std::time::Duration::from_nanos(
        random.up_to(u64::try_from(half.as_nanos()).unwrap_or(u64::MAX)),
    )
}

/// The pauses of a poll that repeats until a deadline — the waiter's polls, the settle
/// window's look-ups, the wait for another caller's claim: each pause [`half_jitter`]ed and
/// never past what is left of the deadline; the interval doubles after each, up to a ceiling.
/// Written once, so the three cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PollBackoff {
    initial: std::time::Duration,
    interval: std::time::Duration,
    max: std::time::Duration,
}

impl PollBackoff {
    /// Starts at `initial`, doubling up to `max`.
    pub(crate) fn new(initial: std::time::Duration, max: std::time::Duration) -> Self {
        Self {
            initial,
            interval: initial,
            max,
        }
    }

    /// [`Self::next_pause`], never longer than a quarter of `elapsed` (nor shorter than the
    /// first interval for that): a wait that has run for T polls at least every T/4, so it
    /// sees an operation of any length end within a quarter of that length (plus the first
    /// interval), where the doubling alone would poll a 60 s delete only at 45 s and 105 s.
    pub(crate) fn next_pause_within(
        &mut self,
        random: &dyn Random,
        remaining: std::time::Duration,
        elapsed: std::time::Duration,
    ) -> std::time::Duration {
        let bound = (elapsed / 4).max(self.initial);
        let pause = half_jitter(self.interval.min(bound), random).min(remaining);
        self.interval = self.interval.saturating_mul(2).min(self.max);
        pause
    }

    /// The next pause (at most `remaining`), and the interval doubled for the one after.
    pub(crate) fn next_pause(
        &mut self,
        random: &dyn Random,
        remaining: std::time::Duration,
    ) -> std::time::Duration {
        let pause = half_jitter(self.interval, random).min(remaining);
        self.interval = self.interval.saturating_mul(2).min(self.max);
        pause
    }
}

/// A fixed point of every range, for tests: `up_to(max)` is `max × numerator / denominator`
/// (rounded down). [`FixedRandom::MAX`] always answers `max`, [`FixedRandom::ZERO`] always 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedRandom {
    numerator: u64,
    denominator: u64,
}

impl FixedRandom {
    /// Always the top of the range.
    pub const MAX: Self = Self {
        numerator: 1,
        denominator: 1,
    };
    /// Always zero.
    pub const ZERO: Self = Self {
        numerator: 0,
        denominator: 1,
    };

    /// The fraction `numerator / denominator` of every range (clamped to `0..=1`; a zero
    /// denominator means 1).
    pub fn fraction(numerator: u64, denominator: u64) -> Self {
        let denominator = denominator.max(1);
        Self {
            numerator: numerator.min(denominator),
            denominator,
        }
    }
}

impl Random for FixedRandom {
    fn up_to(&self, max: u64) -> u64 {
        let scaled = u128::from(max) * u128::from(self.numerator) / u128::from(self.denominator);
        u64::try_from(scaled).unwrap_or(max)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn poll_pauses_double_to_their_ceiling_and_never_pass_the_deadline() {
        let ms = Duration::from_millis;
        let mut backoff = PollBackoff::new(ms(100), ms(350));
        let top = FixedRandom::MAX;
        let pauses: Vec<Duration> = (0..4)
            .map(|_| backoff.next_pause(&top, Duration::MAX))
            .collect();
        assert_eq!(pauses, [ms(100), ms(200), ms(350), ms(350)]);
        let mut backoff = PollBackoff::new(ms(100), ms(350));
        assert_eq!(
            backoff.next_pause(&FixedRandom::ZERO, Duration::MAX),
            ms(50)
        );
        assert_eq!(
            backoff.next_pause(&top, ms(30)),
            ms(30),
            "capped by what is left"
        );
        assert_eq!(
            backoff.next_pause(&top, Duration::MAX),
            ms(350),
            "still doubled"
        );
    }

    #[test]
    fn fixed_fractions_of_a_range() {
        assert_eq!(FixedRandom::MAX.up_to(10), 10);
        assert_eq!(FixedRandom::ZERO.up_to(10), 0);
        assert_eq!(FixedRandom::fraction(1, 2).up_to(9), 4);
        assert_eq!(FixedRandom::fraction(3, 2).up_to(9), 9, "clamped to 1");
        assert_eq!(FixedRandom::fraction(1, 0).up_to(u64::MAX), u64::MAX);
    }

    #[test]
    fn fast_random_stays_in_range() {
        for max in [0, 1, 7, u64::MAX] {
            assert!(FastRandom.up_to(max) <= max);
        }
    }

    #[test]
    fn fast_random_is_not_a_constant() {
        // 200 draws from {0, 1} all alike has a chance of 2^-199: jitter that never varies
        // would leave every poller in lockstep.
        let draws: Vec<u64> = (0..200).map(|_| FastRandom.up_to(1)).collect();
        assert!(draws.contains(&0) && draws.contains(&1), "{draws:?}");
    }
}
