//! `gpucloud offers`: for one request (GPU model, size, region, ceiling), every provider's
//! offers that fit, each with the total price per hour for the size asked in one currency,
//! where the price comes from, and whether the provider's API can delete the cluster; sorted by
//! price, the unpriced last. Offerings are priced by the configuration file's (and
//! `--price-book`'s) price book where the provider states no price, and converted by its rates.

use std::time::Duration;

use clap::Args;
use gpucloud::ProviderKind;
use gpucloud::catalog::{Converted, Offering, PriceSource};
use serde::Serialize;

use crate::context::Context;
use crate::error::{CliError, flatten, one_line};
use crate::flags::{ConnectionArgs, Providers, TargetArgs, bounds, parse_providers};
use crate::sanitize::cell;
use crate::table::{render, table};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").args(["gpus", "nodes"]).required(true)))]
pub struct OffersArgs {
    /// The providers, a comma-separated list, or `all` (the default).
    #[arg(long, short = 'p', value_name = "PROVIDER[,…]|all", value_parser = parse_providers, default_value = "all")]
    pub provider: Providers,
    /// The GPU model (a provider's word, or a family such as H100).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: String,
    /// The size in GPUs (whole nodes of each offering).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub gpus: Option<u32>,
    /// The size in nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub nodes: Option<u32>,
    /// Only offers in this region.
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Only offers at most this much per hour for the size asked (in --currency); an offer
    /// whose price is unknown or cannot be converted is listed apart, never as fitting.
    #[arg(long, value_name = "AMOUNT", value_parser = bounds::price)]
    pub max_price_per_hour: Option<f64>,
    /// The currency prices are shown and compared in (ISO 4217).
    #[arg(long, value_name = "CODE", default_value = "USD", value_parser = crate::flags::bounds::currency)]
    pub currency: String,
    /// A price book (TOML `[[price_book]]` entries and `[rates]`), read before the
    /// configuration file's. Default: $GPUCLOUD_PRICE_BOOK.
    #[arg(long, value_name = "FILE")]
    pub price_book: Option<std::path::PathBuf>,
    /// Give up on one HTTP request after this long (1s to 1h).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
}

/// One offer for the size asked.
#[derive(Serialize)]
struct Offer {
    provider: ProviderKind,
    region: Option<String>,
    gpu_model: Option<String>,
    nodes: u32,
    /// The total per hour in the offer's own currency (`null`: no price known).
    price_per_hour: Option<f64>,
    price_currency: Option<String>,
    /// The total per hour in `--currency` (`null`: unknown, or no rate converts it).
    total_per_hour: Option<f64>,
    /// How the total was converted, where it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    converted: Option<Converted>,
    /// Where the price comes from (`null`: none known).
    source: Option<PriceSource>,
    /// Whether the provider's API can delete the cluster (Runcrate's cannot: it bills until
    /// stopped in its console).
    deletable: bool,
    /// Capacity, where a provider states it: none of the three catalogs does, so `null`.
    capacity: Option<u32>,
    /// Why it is listed apart (over the ceiling, no price, no rate), if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_fitting: Option<String>,
}

/// `offers --json`.
#[derive(Serialize)]
struct Offers {
    currency: String,
    offers: Vec<Offer>,
    /// Providers whose catalog could not be read, and why.
    unread: Vec<Unread>,
}

#[derive(Serialize)]
struct Unread {
    provider: ProviderKind,
    reason: String,
}

pub async fn run(ctx: &Context, args: &OffersArgs) -> Result<(), CliError> {
    let currency = args.currency.to_ascii_uppercase();
    let pricing = super::placement::pricing(ctx.config()?, args.price_book.as_deref())?;
    let mut listed = Offers {
        currency: currency.clone(),
        offers: Vec::new(),
        unread: Vec::new(),
    };
    for provider in &args.provider.0 {
        let target = TargetArgs {
            provider: *provider,
            connection: ConnectionArgs::defaults(args.request_timeout),
        };
        let catalog = match ctx.connect(&target, None) {
            Ok(client) => client.catalog().await,
            Err(error) => Err(error),
        };
        let catalog = match catalog {
            Ok(catalog) => catalog,
            Err(error) => {
                listed.unread.push(Unread {
                    provider: *provider,
                    reason: one_line(&error),
                });
                continue;
            }
        };
        for offering in pricing.priced(&catalog) {
            let Some(nodes) = fits(args, &offering) else {
                continue;
            };
            listed
                .offers
                .push(offer(args, &pricing, &currency, &offering, nodes));
        }
    }
    listed.offers.sort_by(|a, b| {
        let key = |o: &Offer| (o.not_fitting.is_some(), o.total_per_hour.is_none());
        key(a).cmp(&key(b)).then_with(|| {
            a.total_per_hour
                .unwrap_or(f64::MAX)
                .total_cmp(&b.total_per_hour.unwrap_or(f64::MAX))
        })
    });
    for unread in &listed.unread {
        tell!("{}: not read: {}", unread.provider, flatten(&unread.reason));
    }
    ctx.output().result(&listed, show)?;
    if listed.unread.is_empty() {
        Ok(())
    } else {
        Err(CliError::Other(format!(
            "{} providers' offers were not read: the list is incomplete",
            listed.unread.len()
        )))
    }
}

/// The node count `offering` takes for the size asked, if it fits the model, region and size.
fn fits(args: &OffersArgs, offering: &Offering) -> Option<u32> {
    super::catalog::Filter {
        gpu_model: Some(&args.gpu_model),
        region: args.region.as_deref(),
        gpus: args.gpus,
        nodes: args.nodes,
    }
    .nodes_of(offering)
    .flatten()
}

fn offer(
    args: &OffersArgs,
    pricing: &gpucloud::catalog::Pricing,
    currency: &str,
    offering: &Offering,
    nodes: u32,
) -> Offer {
    let native = offering
        .price
        .as_ref()
        .map(|p| (p.for_nodes(nodes), p.currency.clone()));
    let converted = native
        .as_ref()
        .map(|(amount, of)| pricing.convert(*amount, of, currency));
    let (total, converted, mut not_fitting) = match converted {
        None => (
            None,
            None,
            Some(
                "states no price: add a price book entry ([[price_book]] or --price-book)"
                    .to_string(),
            ),
        ),
        Some(Err(why)) => (None, None, Some(why)),
        Some(Ok(c)) => (Some(c.amount), c.from.is_some().then_some(c), None),
    };
    if let (Some(total), Some(ceiling)) = (total, args.max_price_per_hour)
        && total > ceiling
    {
        not_fitting = Some(format!("over the ceiling of {ceiling:.2} {currency}/h"));
    }
    Offer {
        provider: offering.provider,
        region: offering.region.clone(),
        gpu_model: offering.gpu_model.clone(),
        nodes,
        price_per_hour: native.as_ref().map(|(a, _)| *a),
        price_currency: native.map(|(_, c)| c),
        total_per_hour: total,
        converted,
        source: offering.price.as_ref().map(|p| p.source.clone()),
        deletable: offering.provider.profile().deletes_clusters,
        capacity: None,
        not_fitting,
    }
}

fn show(listed: &Offers) {
    if listed.offers.is_empty() {
        say!("No offer fits.");
        return;
    }
    let mut list = table(&[
        "provider",
        "region",
        "gpu",
        "nodes",
        &format!("total/h ({})", listed.currency),
        "price",
        "source",
        "deletable",
        "note",
    ]);
    for o in &listed.offers {
        list.add_row([
            o.provider.to_string(),
            o.region.as_deref().map_or_else(|| "-".into(), cell),
            o.gpu_model.as_deref().map_or_else(|| "-".into(), cell),
            o.nodes.to_string(),
            o.total_per_hour
                .map_or_else(|| "-".into(), |t| format!("{t:.2}")),
            match (o.price_per_hour, &o.price_currency) {
                (Some(a), Some(c)) => format!("{a:.2} {}", cell(c)),
                _ => "-".into(),
            },
            o.source
                .as_ref()
                .map_or_else(|| "-".into(), |s| cell(s.describe())),
            if o.deletable {
                "yes"
            } else {
                "no (console only)"
            }
            .into(),
            o.not_fitting.as_deref().map_or_else(|| "-".into(), cell),
        ]);
    }
    say!("{}", render(&mut list));
}
