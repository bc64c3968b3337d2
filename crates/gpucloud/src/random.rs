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
    use super::*;

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
}
