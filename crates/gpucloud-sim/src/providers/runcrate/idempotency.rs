//! Runcrate's `Idempotency-Key`: per environment, a key that already created a cluster makes a
//! repeat answer 200 with that cluster; while the first request with the key is still running
//! (its answer not yet sent), a repeat gets 409 with `details.reason = idempotency_in_progress`
//! (docs page; SDK 0.5.0 `_transport.py`).
//!
//! "Still running" ends when the first answer has been sent: the key is held by a guard that
//! travels with the answer and is dropped after it (see `Reply::holding`), so a slow answer
//! keeps the key in progress for exactly as long as the client waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// (environment, key)
type Scoped = (String, String);

#[derive(Debug, Clone)]
enum KeyState {
    InFlight(String),
    Done(String),
}

/// What a key means right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Never seen: create.
    New,
    /// The first request is still running.
    InFlight,
    /// It created this cluster.
    Done(String),
}

/// The keys of every environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct Keys {
    inner: Arc<Mutex<HashMap<Scoped, KeyState>>>,
}

impl Keys {
    pub(crate) fn lookup(&self, environment: &str, key: &str) -> Lookup {
        let scoped = (environment.to_string(), key.to_string());
        match self.inner.lock().ok().and_then(|m| m.get(&scoped).cloned()) {
            None => Lookup::New,
            Some(KeyState::InFlight(_)) => Lookup::InFlight,
            Some(KeyState::Done(id)) => Lookup::Done(id),
        }
    }

    /// Records that `key` is creating `cluster_id`; done when the guard drops.
    pub(crate) fn begin(&self, environment: &str, key: &str, cluster_id: &str) -> InFlight {
        let scoped = (environment.to_string(), key.to_string());
        if let Ok(mut map) = self.inner.lock() {
            map.insert(scoped.clone(), KeyState::InFlight(cluster_id.to_string()));
        }
        InFlight {
            keys: self.clone(),
            scoped,
        }
    }
}

/// Holds a key in progress until dropped.
#[derive(Debug)]
pub(crate) struct InFlight {
    keys: Keys,
    scoped: Scoped,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut map) = self.keys.inner.lock()
            && let Some(KeyState::InFlight(id)) = map.get(&self.scoped).cloned()
        {
            map.insert(self.scoped.clone(), KeyState::Done(id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_in_flight_until_its_guard_drops_then_done() {
        let keys = Keys::default();
        assert_eq!(keys.lookup("default", "k"), Lookup::New);
        let guard = keys.begin("default", "k", "c-1");
        assert_eq!(keys.lookup("default", "k"), Lookup::InFlight);
        assert_eq!(keys.lookup("staging", "k"), Lookup::New);
        drop(guard);
        assert_eq!(keys.lookup("default", "k"), Lookup::Done("c-1".into()));
    }
}
