//! The providers' capacity behind one handle: what every offering of every provider has left,
//! and setting it, for a test in the process ([`crate::RunningSim::capacity`]) and for the
//! control API (`PUT /_sim/capacity`) alike.
//!
//! Each provider keeps a total per offering, in the unit it sells: Together per (region, GPU
//! type) in GPUs, Runcrate per offer in machines, E2E per (SKU, location) in nodes. What live
//! clusters hold is not stored but counted from them at every question, like everything else
//! in the simulator: a create takes its size, a resize takes or gives the difference, and the
//! cluster gives it all back once it is gone (after its deleting state) or, on Runcrate, once
//! its all-or-nothing start has failed. A create that does not fit is refused in the
//! provider's own error shape and creates nothing.
//!
//! Setting an offering's *available* amount (what creates may still take) stores a total of
//! that plus what its clusters hold now, so capacity handed back later adds to it.
//!
//! The handle lives here, above the three providers, because it reads and writes their
//! [`State`]; the words it speaks ([`Offering`], [`CapacityFilter`]) live in the lower
//! `crate::capacity`, which knows no provider.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::State;
use crate::capacity::{CapacityFilter, NoSuchOffering, Offering, OfferingKey};
use crate::clock::SimClock;

/// The providers' capacity; a cheap handle to clone into tests, like [`crate::Faults`].
#[derive(Clone)]
pub struct Capacity {
    state: Arc<Mutex<State>>,
    clock: SimClock,
}

impl std::fmt::Debug for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capacity").finish_non_exhaustive()
    }
}

impl Capacity {
    pub(crate) fn new(state: Arc<Mutex<State>>, clock: SimClock) -> Self {
        Self { state, clock }
    }

    /// A handler that panicked cannot have left the capacity half-changed (it is counted from
    /// the clusters), so a poisoned lock is taken over rather than failing every later call.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every offering of every provider, at the simulated now.
    pub fn list(&self) -> Vec<Offering> {
        offerings(&self.lock(), self.clock.elapsed())
    }

    /// Sets what creates may still take from every offering `filter` names, and answers those
    /// offerings as they are now.
    pub fn set(
        &self,
        filter: &CapacityFilter,
        available: u32,
    ) -> Result<Vec<Offering>, NoSuchOffering> {
        let now = self.clock.elapsed();
        let mut state = self.lock();
        let all = offerings(&state, now);
        let matched: Vec<&Offering> = all.iter().filter(|o| filter.matches(o)).collect();
        if matched.is_empty() {
            return Err(NoSuchOffering {
                filter: Box::new(filter.clone()),
                offerings: all
                    .iter()
                    .filter(|o| o.key.provider() == filter.provider)
                    .cloned()
                    .collect(),
            });
        }
        for offering in &matched {
            let total = offering.in_use.saturating_add(available);
            set_total(&mut state, &offering.key, total);
        }
        let keys: Vec<&OfferingKey> = matched.iter().map(|o| &o.key).collect();
        Ok(offerings(&state, now)
            .into_iter()
            .filter(|o| keys.contains(&&o.key))
            .collect())
    }

    /// Puts every offering back to its provider's default total.
    pub fn reset(&self) {
        reset_capacity(&mut self.lock());
    }
}

/// Every offering of every provider with what is left of it at `now`, Together's first.
fn offerings(state: &State, now: Duration) -> Vec<Offering> {
    let mut all = state.together.offerings(now);
    all.extend(state.runcrate.offerings(now));
    all.extend(state.e2e.offerings(now));
    all
}

/// Sets the total of one offering (what it holds plus what creates may still take).
fn set_total(state: &mut State, key: &OfferingKey, total: u32) {
    match key {
        OfferingKey::Together { region, gpu_type } => {
            state.together.set_total(region, gpu_type, total);
        }
        OfferingKey::Runcrate { offer_id } => state.runcrate.set_total(offer_id, total),
        OfferingKey::E2e { sku_id, location } => state.e2e.set_total(*sku_id, location, total),
    }
}

/// Every offering back to its provider's default total.
fn reset_capacity(state: &mut State) {
    state.together.reset_capacity();
    state.runcrate.reset_capacity();
    state.e2e.reset_capacity();
}
