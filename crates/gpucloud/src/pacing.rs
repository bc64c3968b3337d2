//! What paces every repeat a client makes — retries, reconciling look-ups, waiter polls: its
//! clock, its randomness and its retry budget, borrowed together from [`crate::ClientSettings`].

use crate::budget::RetryBudget;
use crate::clock::Clock;
use crate::random::Random;

/// A client's clock, randomness and retry budget.
#[derive(Debug, Clone, Copy)]
pub struct Pacing<'a> {
    /// "Now" and sleeps.
    pub clock: &'a dyn Clock,
    /// Jitter.
    pub random: &'a dyn Random,
    /// The tokens retries spend.
    pub budget: &'a RetryBudget,
}
