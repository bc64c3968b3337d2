//! A placement's price ceiling checked against what the provider itself says the cluster
//! costs. The ceiling chose the candidate by the catalog's price (an inference: a plan's unit
//! price times the nodes, an offer's rate); the created cluster's answer, or the first read
//! after it, may state another. One over the ceiling is not what the caller agreed to pay
//! for: a cluster this create started is deleted at once, the delete verified, and the
//! placement fails saying why.

use crate::catalog::PriceCeiling;
use crate::client::ClusterClient;
use crate::cluster::Created;
use crate::error::Error;
use crate::lifecycle::CreateAndWait;

/// How far over the ceiling a stated price may be and still fit: half a cent, for prices
/// rounded to cents on the way.
const ROUNDING: f64 = 0.005;

/// `None` when `created`'s stated price fits `ceiling` (or nothing can be compared: see
/// below); else [`Error::PriceAboveCeiling`], after deleting a cluster this create started.
///
/// An answer that states no price is followed by one get (the first read after the create);
/// a price still unknown then, or stated in another currency, is not compared, with a
/// warning: the catalog's price was checked, and deleting a cluster over a read that failed
/// would be worse.
pub(crate) async fn check(
    client: &ClusterClient,
    created: &Created,
    ceiling: &PriceCeiling,
) -> Option<Error> {
    let cluster = &created.cluster;
    let price = match &cluster.price {
        Some(price) => Some(price.clone()),
        None => match client.get(&cluster.id).await {
            Ok(read) => read.price,
            Err(error) => {
                tracing::warn!(
                    cluster = %cluster.id,
                    %error,
                    "the first read after the create failed: its price is not checked"
                );
                None
            }
        },
    };
    let price = price?;
    if !price.currency.eq_ignore_ascii_case(&ceiling.currency) {
        tracing::warn!(
            cluster = %cluster.id,
            currency = %price.currency,
            "the cluster's price is in another currency than the ceiling: not compared"
        );
        return None;
    }
    if !price.per_hour.is_finite() || price.per_hour < 0.0 {
        tracing::warn!(
            cluster = %cluster.id,
            per_hour = price.per_hour,
            "the cluster states a price no bill could have: not compared with the ceiling"
        );
        return None;
    }
    if price.per_hour - ceiling.amount <= ROUNDING {
        return None;
    }
    let (deleted, delete_error) = if created.outcome.started_here() {
        let wait = CreateAndWait::default().delete_wait;
        match client.delete_and_wait(&cluster.id, &wait, |_| {}).await {
            Ok(_) => (true, None),
            Err(error) => (false, Some(error.to_string())),
        }
    } else {
        (false, None)
    };
    Some(Error::PriceAboveCeiling {
        provider: cluster.provider,
        cluster: cluster.id.clone(),
        per_hour: price.per_hour,
        ceiling: ceiling.amount,
        currency: ceiling.currency.clone(),
        deleted,
        delete_error,
    })
}
