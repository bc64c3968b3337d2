//! Prices a provider's catalog does not state, and prices in another currency than a ceiling:
//! a **price book** ([`BookEntry`]) prices an offering its provider states no price for
//! (Together), and **rates** ([`Rate`]) convert a price into the ceiling's currency. Every
//! price carries where it comes from ([`PriceSource`]); nothing here invents one: without an
//! entry an offering stays unpriced, and without a rate a price in another currency cannot be
//! compared.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::{BillingKind, OfferPrice, Offering, gpu_matches};
use crate::cluster::ProviderKind;

/// Where a price comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PriceSource {
    /// The provider's catalog states it.
    #[default]
    Answered,
    /// A price book entry: its source (a page, a contract), as of when, and whether it is
    /// older than the book's limit.
    PriceBook {
        /// Where the entry's price comes from.
        source: String,
        /// The day the price was read or agreed.
        as_of: NaiveDate,
        /// Older than [`Pricing::stale_after`].
        stale: bool,
    },
}

impl PriceSource {
    /// `answered`, or `price book (SOURCE, as of DATE[, STALE])`, for people.
    pub fn describe(&self) -> String {
        match self {
            Self::Answered => "answered by the provider".into(),
            Self::PriceBook {
                source,
                as_of,
                stale,
            } => format!(
                "price book: {source}, as of {as_of}{}",
                if *stale { ", STALE" } else { "" }
            ),
        }
    }
}

/// What a price book entry's amount is for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BookAmount {
    /// Per GPU per hour (a node costs this times its GPUs).
    PerGpuHour(f64),
    /// Per node per hour.
    PerNodeHour(f64),
}

/// One price book entry: what `provider` charges for `gpu_model` in `region` (`None`: any).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BookEntry {
    /// The provider.
    pub provider: ProviderKind,
    /// The GPU model, matched as a request's is (`H100` matches `H100_SXM`).
    pub gpu_model: String,
    /// The region; `None` for every region (`*` in a file).
    pub region: Option<String>,
    /// Reserved (`true`) or on demand.
    pub reserved: bool,
    /// The amount.
    pub amount: BookAmount,
    /// ISO 4217 code (`USD`).
    pub currency: String,
    /// Where the price comes from (a pricing page, a contract).
    pub source: String,
    /// When it was read or agreed.
    pub as_of: NaiveDate,
}

impl BookEntry {
    /// An entry of `amount` in `currency` for `provider`'s `gpu_model` in every region, on
    /// demand, from `source` as of `as_of`.
    pub fn new(
        provider: ProviderKind,
        gpu_model: impl Into<String>,
        amount: BookAmount,
        currency: impl Into<String>,
        source: impl Into<String>,
        as_of: NaiveDate,
    ) -> Self {
        Self {
            provider,
            gpu_model: gpu_model.into(),
            region: None,
            reserved: false,
            amount,
            currency: currency.into(),
            source: source.into(),
            as_of,
        }
    }

    /// Only in `region`.
    #[must_use]
    pub fn in_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// For reserved billing rather than on demand.
    #[must_use]
    pub fn reserved(mut self) -> Self {
        self.reserved = true;
        self
    }

    /// Whether this entry prices `offering`.
    fn prices(&self, offering: &Offering) -> bool {
        let billed = offering.billing.iter().any(|b| match b {
            BillingKind::OnDemand => !self.reserved,
            BillingKind::Reserved { .. } => self.reserved,
        });
        self.provider == offering.provider
            && offering
                .gpu_model
                .as_deref()
                .is_some_and(|offered| gpu_matches(&self.gpu_model, offered))
            && self.region.as_deref().is_none_or(|region| {
                offering
                    .region
                    .as_deref()
                    .is_some_and(|here| here.eq_ignore_ascii_case(region))
            })
            && billed
    }
}

/// A rate: one unit of `from` is `rate` units of `to`, as of a day.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Rate {
    /// ISO 4217 code converted from (`INR`).
    pub from: String,
    /// ISO 4217 code converted to (`USD`).
    pub to: String,
    /// Units of `to` per unit of `from`.
    pub rate: f64,
    /// When the rate was read.
    pub as_of: NaiveDate,
}

impl Rate {
    /// One `from` is `rate` `to`, as of `as_of`.
    pub fn new(
        from: impl Into<String>,
        to: impl Into<String>,
        rate: f64,
        as_of: NaiveDate,
    ) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
            rate,
            as_of,
        }
    }
}

/// A price converted into another currency, and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Converted {
    /// The amount in the target currency.
    pub amount: f64,
    /// The currency it was converted from (`None`: it was in the target currency already).
    pub from: Option<String>,
    /// The rate used (target units per unit of `from`).
    pub rate: Option<f64>,
    /// The rate's day.
    pub as_of: Option<NaiveDate>,
}

impl Converted {
    /// `4.21 USD (350.00 INR at 0.01203, 2026-12-01)`, or the amount alone.
    pub fn describe(&self, original: f64, currency: &str) -> String {
        match (&self.from, self.rate, self.as_of) {
            (Some(from), Some(rate), Some(as_of)) => format!(
                "{:.2} {currency} ({original:.2} {from} at {rate}, {as_of})",
                self.amount
            ),
            _ => format!("{:.2} {currency}", self.amount),
        }
    }
}

/// A price book and currency rates: what prices an offering its provider states no price
/// for, and what converts a price into a ceiling's currency. Empty by default (nothing
/// priced, nothing converted).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Pricing {
    /// The price book, first match wins.
    pub book: Vec<BookEntry>,
    /// The rates.
    pub rates: Vec<Rate>,
    /// A book entry older than this is shown stale (`None`: never).
    pub stale_after: Option<Duration>,
}

impl Pricing {
    /// A book and rates.
    pub fn new(book: Vec<BookEntry>, rates: Vec<Rate>) -> Self {
        Self {
            book,
            rates,
            stale_after: None,
        }
    }

    /// Book entries older than `limit` are shown stale.
    #[must_use]
    pub fn with_stale_after(mut self, limit: Duration) -> Self {
        self.stale_after = Some(limit);
        self
    }

    /// `offering` with a price: its own (answered), else the book's first entry for it (per
    /// node-hour: a per-GPU amount times the offering's GPUs per node, which must be known).
    pub fn price(&self, offering: &Offering) -> Option<OfferPrice> {
        if let Some(price) = &offering.price {
            return Some(price.clone());
        }
        let entry = self.book.iter().find(|e| e.prices(offering))?;
        let per_node_hour = match entry.amount {
            BookAmount::PerNodeHour(amount) => amount,
            BookAmount::PerGpuHour(amount) => amount * f64::from(offering.gpus_per_node?),
        };
        (per_node_hour.is_finite() && per_node_hour >= 0.0).then(|| OfferPrice {
            per_node_hour,
            currency: entry.currency.clone(),
            source: PriceSource::PriceBook {
                source: entry.source.clone(),
                as_of: entry.as_of,
                stale: self.is_stale(entry.as_of),
            },
        })
    }

    /// `offerings`, each with its book price where its provider states none.
    pub fn priced(&self, offerings: &[Offering]) -> Vec<Offering> {
        offerings
            .iter()
            .map(|o| Offering {
                price: self.price(o),
                ..o.clone()
            })
            .collect()
    }

    /// Whether a book entry of `as_of` is older than [`Self::stale_after`] today.
    pub(crate) fn is_stale(&self, as_of: NaiveDate) -> bool {
        self.stale_after
            .is_some_and(|limit| older_than(as_of, limit))
    }

    /// `amount` in `from` converted into `to`: as it is in the same currency, else by a rate
    /// from `from` to `to` (or the inverse of one from `to` to `from`). `Err` says which rate
    /// is missing.
    pub fn convert(&self, amount: f64, from: &str, to: &str) -> Result<Converted, String> {
        if from.eq_ignore_ascii_case(to) {
            return Ok(Converted {
                amount,
                from: None,
                rate: None,
                as_of: None,
            });
        }
        let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        let rate = self.rates.iter().find_map(|r| {
            if same(&r.from, from) && same(&r.to, to) {
                Some((r.rate, r.as_of))
            } else if same(&r.from, to) && same(&r.to, from) && r.rate > 0.0 {
                Some((1.0 / r.rate, r.as_of))
            } else {
                None
            }
        });
        match rate {
            Some((rate, as_of)) if rate.is_finite() && rate > 0.0 => Ok(Converted {
                amount: amount * rate,
                from: Some(from.to_ascii_uppercase()),
                rate: Some(rate),
                as_of: Some(as_of),
            }),
            _ => Err(format!(
                "is priced in {from} and no rate converts {from} to {to} (add `[rates.{from}]` \
                 with `{to} = <rate>` and `as_of` to the configuration file)"
            )),
        }
    }
}

/// Whether `as_of` lies more than `limit` before today.
pub(crate) fn older_than(as_of: NaiveDate, limit: Duration) -> bool {
    let today = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| DateTime::<Utc>::from_timestamp(i64::try_from(d.as_secs()).ok()?, 0))
        .map_or(as_of, |now| now.date_naive());
    today
        .signed_duration_since(as_of)
        .to_std()
        .is_ok_and(|age| age > limit)
}

/// Checks that `code` is an ISO 4217 currency code (`USD`, `INR`, `EUR`; any case, as every
/// comparison of currencies ignores case); the error says what it is not.
pub fn check_currency(code: &str) -> Result<(), String> {
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()) {
        if iso_currency::Currency::from_code(&code.to_ascii_uppercase()).is_some() {
            Ok(())
        } else {
            Err(format!(
                "{code:?} is not an ISO 4217 currency code (USD, INR, EUR, …)"
            ))
        }
    } else {
        Err(format!(
            "{code:?} is not a currency code (three letters, ISO 4217: USD, INR, EUR)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::check_currency;

    #[test]
    fn a_currency_is_an_iso_4217_code_in_any_case_and_each_refusal_says_which_rule() {
        for good in ["USD", "INR", "EUR", "usd", "Inr"] {
            assert_eq!(check_currency(good), Ok(()), "{good}");
        }
        let unknown = check_currency("XYZ").unwrap_err();
        assert!(
            unknown.contains("not an ISO 4217 currency code"),
            "{unknown}"
        );
        for malformed in ["dollars", "US", "U$D", "", "USDX"] {
            let why = check_currency(malformed).unwrap_err();
            assert!(why.contains("three letters"), "{malformed}: {why}");
        }
    }
}
