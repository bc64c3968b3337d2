//! A client's catalog, fetched once and kept for a short time: resolving many requests costs
//! one round trip per provider, and a catalog that changes is seen again within the TTL.

use std::sync::Arc;
use std::time::Duration;

use super::Offering;
use crate::clock::Clock;
use crate::error::Error;

/// The last catalog a client fetched, shared by its clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct CatalogCache {
    kept: Arc<tokio::sync::Mutex<Option<(Duration, Arc<Vec<Offering>>)>>>,
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
