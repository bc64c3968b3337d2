//! A client's catalog, fetched once and kept for a short time: resolving many requests costs
//! one round trip per provider, and a catalog that changes is seen again within the TTL.

use std::sync::Arc;
use std::time::Duration;

use super::Offering;
use crate::clock::Clock;
use crate::error::Error;

/// A catalog and when (on the client's clock) it was fetched.
type Kept = Option<(Duration, Arc<Vec<Offering>>)>;

/// The last catalog a client fetched, shared by its clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct CatalogCache {
    kept: Arc<tokio::sync::Mutex<Kept>>,
}

impl CatalogCache {
    /// The kept catalog if younger than `ttl` on `clock`, else the result of `fetch` (kept
    /// when it succeeds). Concurrent callers wait for one fetch.
    pub(crate) async fn get_or_fetch<F, Fut>(
        &self,
        clock: &dyn Clock,
        ttl: Duration,
        fetch: F,
    ) -> Result<Arc<Vec<Offering>>, Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<Offering>, Error>>,
    {
        let mut kept = self.kept.lock().await;
        if let Some((at, catalog)) = kept.as_ref()
            && clock.now().saturating_sub(*at) < ttl
        {
            return Ok(catalog.clone());
        }
        let catalog = Arc::new(fetch().await?);
        *kept = Some((clock.now(), catalog.clone()));
        Ok(catalog)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::clock::ManualClock;

    #[tokio::test]
    async fn a_catalog_is_fetched_once_per_ttl_and_a_failed_fetch_is_not_kept() {
        let cache = CatalogCache::default();
        let clock = ManualClock::new();
        let fetches = AtomicU32::new(0);
        let ttl = Duration::from_secs(300);
        let fetch = || async {
            fetches.fetch_add(1, Ordering::SeqCst);
            Ok(Vec::new())
        };
        cache.get_or_fetch(&clock, ttl, fetch).await.unwrap();
        clock.sleep(Duration::from_secs(299)).await;
        cache.get_or_fetch(&clock, ttl, fetch).await.unwrap();
        assert_eq!(fetches.load(Ordering::SeqCst), 1, "within the TTL");
        clock.sleep(Duration::from_secs(1)).await;
        cache.get_or_fetch(&clock, ttl, fetch).await.unwrap();
        assert_eq!(fetches.load(Ordering::SeqCst), 2, "at the TTL");

        let clone = cache.clone();
        clock.sleep(ttl).await;
        let failed = clone
            .get_or_fetch(&clock, ttl, || async {
                Err(Error::Configuration {
                    setting: "x".into(),
                    problem: "down".into(),
                })
            })
            .await;
        assert!(failed.is_err());
        cache.get_or_fetch(&clock, ttl, fetch).await.unwrap();
        assert_eq!(
            fetches.load(Ordering::SeqCst),
            3,
            "the failure was not kept; clones share"
        );
    }
}
