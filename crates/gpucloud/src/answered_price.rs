//! A placement's price ceiling checked against what the provider itself says the cluster
//! costs. The ceiling chose the candidate by the catalog's price (an inference: a plan's unit
//! price times the nodes, an offer's rate); the created cluster's answer, or the first read
//! after it, may state another. One over the ceiling is not what the caller agreed to pay
//! for: a cluster this create started is deleted at once, the delete verified, and the
//! placement fails saying why.

use serde::Serialize;

use crate::catalog::PriceCeiling;
use crate::catalog::pricing::{Converted, Pricing};
use crate::client::ClusterClient;
use crate::cluster::Created;
use crate::error::Error;
use crate::lifecycle::CreateAndWait;

/// What a placement's price ceiling made of the cluster's own price, once it existed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "result")]
#[non_exhaustive]
pub enum PriceCheck {
    /// No ceiling was set.
    NoCeiling,
    /// The cluster's own price (its answer's, or the first read's after it) fits the ceiling.
    Fits {
        /// Per hour, for the whole cluster.
        per_hour: f64,
        /// Its currency.
        currency: String,
        /// When it is not the ceiling's currency: the price converted into it, with the
        /// rate used.
        #[serde(skip_serializing_if = "Option::is_none")]
        converted: Option<Converted>,
    },
    /// The cluster's own price could not be compared with the ceiling (the answer and the
    /// read after it state none, or a price in another currency no rate converts, or the
    /// read failed): only
    /// the catalog's price, which fit, was checked.
    Unchecked {
        /// Why.
        reason: String,
    },
}

/// How far over the ceiling a stated price may be and still fit: half a cent, for prices
/// rounded to cents on the way.
const ROUNDING: f64 = 0.005;

/// [`PriceCheck::Fits`] when `created`'s stated price fits `ceiling`, or
/// [`PriceCheck::Unchecked`] when nothing can be compared (see below); else
/// [`Error::PriceAboveCeiling`], after deleting a cluster this create started.
///
/// An answer that states no price is followed by one get (the first read after the create);
/// a price in another currency is converted by `pricing`'s rates; one still unknown then, or
/// in a currency no rate converts, is not compared, and the result says so: the catalog's price was checked, and deleting a cluster over a read that
/// failed would be worse.
pub(crate) async fn check(
    client: &ClusterClient,
    created: &Created,
    ceiling: &PriceCeiling,
    pricing: &Pricing,
) -> Result<PriceCheck, Error> {
    let cluster = &created.cluster;
    let unchecked = |reason: String| {
        tracing::warn!(cluster = %cluster.id, %reason, "the cluster's own price is not checked");
        Ok(PriceCheck::Unchecked { reason })
    };
    let price = match &cluster.price {
        Some(price) => price.clone(),
        None => match client.get(&cluster.id).await {
            Ok(read) => match read.price {
                Some(price) => price,
                None => {
                    return unchecked(
                        "neither the create's answer nor the read after it states a price".into(),
                    );
                }
            },
            Err(error) => {
                return unchecked(format!(
                    "the read after the create failed ({error}), and its answer states no price"
                ));
            }
        },
    };
    if !price.per_hour.is_finite() || price.per_hour < 0.0 {
        return unchecked(format!(
            "it states a price no bill could have ({})",
            price.per_hour
        ));
    }
    let converted = match pricing.convert(price.per_hour, &price.currency, &ceiling.currency) {
        Ok(converted) => converted,
        Err(why) => {
            return unchecked(format!(
                "it {why}, and the ceiling is in {}",
                ceiling.currency
            ));
        }
    };
    let per_hour = converted.amount;
    if per_hour - ceiling.amount <= ROUNDING {
        return Ok(PriceCheck::Fits {
            per_hour: price.per_hour,
            currency: price.currency,
            converted: converted.from.is_some().then_some(converted),
        });
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
    Err(Error::PriceAboveCeiling {
        provider: cluster.provider,
        cluster: cluster.id.clone(),
        per_hour,
        ceiling: ceiling.amount,
        currency: ceiling.currency.clone(),
        deleted,
        delete_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Cluster, ClusterId, ClusterState, CreateOutcome, Price, ProviderCluster};
    use crate::{ProviderKind, TogetherConfig};

    /// A created cluster stating `per_hour` USD. Nothing is sent for a stated price that is
    /// compared or refused as impossible, so the client's endpoint is never reached.
    fn stating(per_hour: f64) -> (ClusterClient, Created) {
        let client = ClusterClient::together(
            TogetherConfig::new("test-key-0000").with_base_url("http://127.0.0.1:9"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let raw = serde_json::from_value(serde_json::json!({"cluster_id": "c-1"}))
            .unwrap_or_else(|e| panic!("{e}"));
        let cluster = Cluster {
            id: ClusterId::new("c-1"),
            name: "train".into(),
            provider: ProviderKind::Together,
            state: ClusterState::Provisioning,
            phase: None,
            nodes: Vec::new(),
            gpu_count: Some(8),
            created_at: None,
            ready_at: None,
            price: Some(Price {
                per_hour,
                currency: "USD".into(),
            }),
            raw: ProviderCluster::Together(Box::new(raw)),
        };
        let created = Created {
            cluster,
            outcome: CreateOutcome::AlreadyExisted,
            attempts: 0,
            deadline: None,
        };
        (client, created)
    }

    #[tokio::test]
    async fn a_price_no_bill_could_have_is_unchecked_and_a_free_one_fits() {
        let ceiling = PriceCeiling::new(10.0, "usd");
        for impossible in [-1.0, f64::NAN, f64::INFINITY] {
            let (client, created) = stating(impossible);
            let check = check(&client, &created, &ceiling, &Pricing::default()).await;
            assert!(
                matches!(&check, Ok(PriceCheck::Unchecked { reason }) if reason.contains("no bill")),
                "{impossible}: {check:?}"
            );
        }
        for fitting in [0.0, 10.0, 10.004] {
            let (client, created) = stating(fitting);
            let check = check(&client, &created, &ceiling, &Pricing::default()).await;
            assert_eq!(
                check.ok(),
                Some(PriceCheck::Fits {
                    per_hour: fitting,
                    currency: "USD".into(),
                    converted: None,
                }),
                "{fitting}"
            );
        }
        // Over by more than the rounding: an error, and a cluster this create did not start
        // is not deleted (nothing is sent).
        let (client, created) = stating(10.01);
        let Err(Error::PriceAboveCeiling { deleted, .. }) =
            check(&client, &created, &ceiling, &Pricing::default()).await
        else {
            panic!("10.01 over 10")
        };
        assert!(!deleted);
    }

    #[tokio::test]
    async fn a_price_in_another_currency_is_compared_by_the_rate_and_unchecked_without_one() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap_or_default();
        let rates = Pricing::new(
            Vec::new(),
            vec![crate::catalog::Rate::new("USD", "EUR", 0.5, day)],
        );
        let ceiling = PriceCeiling::new(10.0, "EUR");
        // 20 USD is 10 EUR: fits, with the conversion kept.
        let (client, created) = stating(20.0);
        let Ok(PriceCheck::Fits {
            per_hour,
            currency,
            converted: Some(converted),
        }) = check(&client, &created, &ceiling, &rates).await
        else {
            panic!("20 USD at 0.5 is 10 EUR")
        };
        assert_eq!((per_hour, currency.as_str()), (20.0, "USD"));
        assert_eq!((converted.amount, converted.rate), (10.0, Some(0.5)));
        // 20.1 USD is 10.05 EUR: over, and the error is in the ceiling's currency.
        let (client, created) = stating(20.1);
        let Err(Error::PriceAboveCeiling {
            per_hour, currency, ..
        }) = check(&client, &created, &ceiling, &rates).await
        else {
            panic!("20.1 USD at 0.5 is over 10 EUR")
        };
        assert!((per_hour - 10.05).abs() < 1e-9, "{per_hour}");
        assert_eq!(currency, "EUR");
        // No rate: not compared, and the reason names the setting.
        let (client, created) = stating(20.0);
        let check = check(&client, &created, &ceiling, &Pricing::default()).await;
        assert!(
            matches!(&check, Ok(PriceCheck::Unchecked { reason }) if reason.contains("[rates.USD]")),
            "{check:?}"
        );
    }
}
