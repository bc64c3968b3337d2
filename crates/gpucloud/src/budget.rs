//! [`RetryBudget`]: the token bucket every retry of a client draws from.

use std::sync::{Arc, Mutex};

use crate::error::{Error, RetryKind};

/// A client's retry quota, as smithy-rs's standard retry strategy and gRPC's retry throttling
/// keep one: a token bucket that every retry draws from (5 tokens, 10 after a timeout or a
/// dropped connection) and every success refills (the retry's cost back when a retry
/// succeeded, otherwise 1). When it is empty, failures surface at once instead of multiplying
/// the load on a provider that is already failing. Clones share one bucket.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    state: Arc<Mutex<BudgetState>>,
}

#[derive(Debug)]
struct BudgetState {
    tokens: u32,
    capacity: u32,
}

/// What a retry after a throttling or server error costs.
pub(crate) const RETRY_COST: u32 = 5;
/// What a retry after a timeout or a connection failure costs.
pub(crate) const TRANSIENT_RETRY_COST: u32 = 10;

impl Default for RetryBudget {
    /// 500 tokens: 100 retries in a row, or 50 after timeouts.
    fn default() -> Self {
        Self::new(500)
    }
}

impl RetryBudget {
    /// A full bucket of `capacity` tokens.
    pub fn new(capacity: u32) -> Self {
        Self {
            state: Arc::new(Mutex::new(BudgetState {
                tokens: capacity,
                capacity,
            })),
        }
    }

    /// Tokens left.
    pub fn available(&self) -> u32 {
        self.state.lock().map(|s| s.tokens).unwrap_or(0)
    }

    /// Takes the cost of retrying after `error`, or `None` (and takes nothing) if the bucket
    /// cannot pay it.
    pub fn withdraw(&self, error: &Error) -> Option<u32> {
        let cost = match error.retry_kind() {
            Some(RetryKind::Transient) => TRANSIENT_RETRY_COST,
            _ => RETRY_COST,
        };
        let mut state = self.state.lock().ok()?;
        state.tokens = state.tokens.checked_sub(cost)?;
        Some(cost)
    }

    /// A request succeeded; `retried` is the cost of its last retry, if it was retried.
    pub fn succeeded(&self, retried: Option<u32>) {
        if let Ok(mut state) = self.state.lock() {
            let refund = retried.unwrap_or(1);
            state.tokens = state.tokens.saturating_add(refund).min(state.capacity);
        }
    }
}
