//! `gpucloud catalog`: what each provider offers, filtered by GPU model, size and region, as
//! a table or as the facade's `Offering`s in JSON.

use std::time::Duration;

use clap::Args;
use gpucloud::ProviderKind;
use gpucloud::catalog::{Offering, gpu_matches};
use serde::Serialize;

use crate::context::Context;
use crate::error::{CliError, one_line};
use crate::flags::{ConnectionArgs, Providers, TargetArgs, bounds, parse_providers};
use crate::sanitize::cell;
use crate::table::{render, table};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").args(["gpus", "nodes"])))]
pub struct CatalogArgs {
    /// The provider, a comma-separated list, or `all`.
    #[arg(long, short = 'p', value_name = "PROVIDER[,…]|all", value_parser = parse_providers)]
    pub provider: Providers,
    /// Only offerings of this GPU model (the provider's word, or a family such as H100).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// Only offerings that can take this many GPUs (in whole nodes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub gpus: Option<u32>,
    /// Only offerings that can take this many nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub nodes: Option<u32>,
    /// Only offerings in this region (Together region, Runcrate location, E2E location).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Give up on one HTTP request after this long (1s to 1h).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
}

/// `catalog --json`: the offerings, and the providers whose catalog could not be read.
#[derive(Serialize)]
struct Listed {
    offerings: Vec<Offering>,
    errors: Vec<ProviderError>,
}

#[derive(Serialize)]
struct ProviderError {
    provider: ProviderKind,
    error: String,
}

pub async fn run(ctx: &Context, args: &CatalogArgs) -> Result<(), CliError> {
    let out = ctx.output();
    let mut listed = Listed {
        offerings: Vec::new(),
        errors: Vec::new(),
    };
    let mut first_error = None;
    for provider in &args.provider.0 {
        let target = TargetArgs {
            provider: *provider,
            connection: ConnectionArgs::defaults(args.request_timeout),
        };
        // A provider without credentials is one more error in the listing, not the end of it.
        let catalog = match ctx.connect(&target, None) {
            Ok(client) => client.catalog().await,
            Err(error) => Err(error),
        };
        match catalog {
            Ok(catalog) => listed
                .offerings
                .extend(catalog.iter().filter(|o| wanted(args, o)).cloned()),
            Err(error) => {
                // With one provider, the error the run ends with says it all.
                if out.is_human() && args.provider.0.len() > 1 {
                    tell!("{provider}: error: {}", one_line(&error));
                }
                listed.errors.push(ProviderError {
                    provider: *provider,
                    error: one_line(&error),
                });
                first_error.get_or_insert(CliError::Cloud(error));
            }
        }
    }
    // Nothing listed because nothing could be read is not "no offering matches".
    let none_read = listed.errors.len() == args.provider.0.len();
    if !(none_read && out.is_human()) {
        out.result(&listed, |listed| show(&listed.offerings))?;
    }
    // Some providers listed and some not: the listing is still useful, but the exit code
    // says it is incomplete.
    first_error.map_or(Ok(()), Err)
}

/// Whether `offering` passes the filters.
fn wanted(args: &CatalogArgs, offering: &Offering) -> bool {
    let filter = Filter {
        gpu_model: args.gpu_model.as_deref(),
        region: args.region.as_deref(),
        gpus: args.gpus,
        nodes: args.nodes,
    };
    filter.nodes_of(offering).is_some()
}

/// What a listing of offerings keeps: a GPU model, a region and a size, each where given.
pub(super) struct Filter<'a> {
    pub(super) gpu_model: Option<&'a str>,
    pub(super) region: Option<&'a str>,
    pub(super) gpus: Option<u32>,
    pub(super) nodes: Option<u32>,
}

impl Filter<'_> {
    /// `Some` when `offering` passes: the node count it takes for the size asked (`None`
    /// inside without a size); `None` when it does not pass.
    pub(super) fn nodes_of(&self, offering: &Offering) -> Option<Option<u32>> {
        if let Some(model) = self.gpu_model
            && !offering
                .gpu_model
                .as_deref()
                .is_some_and(|offered| gpu_matches(model, offered))
        {
            return None;
        }
        if let Some(region) = self.region
            && !offering
                .region
                .as_deref()
                .is_some_and(|r| r.eq_ignore_ascii_case(region))
        {
            return None;
        }
        let nodes = match (self.gpus, self.nodes) {
            (Some(gpus), _) => match offering.gpus_per_node {
                Some(per) if per > 0 && gpus % per == 0 => Some(gpus / per),
                _ => return None,
            },
            (None, Some(nodes)) => Some(nodes),
            (None, None) => None,
        };
        nodes
            .is_none_or(|n| offering.nodes.accepts(n))
            .then_some(nodes)
    }
}

fn show(offerings: &[Offering]) {
    if offerings.is_empty() {
        say!("No offering matches.");
        return;
    }
    let mut list = table(&[
        "provider", "region", "gpu", "per node", "nodes", "price/h", "ids",
    ]);
    for o in offerings {
        let price = o.price.as_ref().map_or_else(
            || "-".to_string(),
            |p| format!("{:.2} {}/node", p.per_node_hour, cell(&p.currency)),
        );
        let mut ids = cell(o.ids.label());
        // The entry a create would take by default, where the offering lists any (driver
        // entries and images are listed only by the providers whose create names one).
        if let Some(driver) = o.drivers.first() {
            ids.push_str(&format!(" nvidia_version_id={}", cell(&driver.id)));
        }
        if let Some(image) = o.images.first() {
            ids.push_str(&format!(" image {}", image.id));
        }
        list.add_row([
            o.provider.to_string(),
            o.region.as_deref().map_or_else(|| "-".into(), cell),
            o.gpu_model.as_deref().map_or_else(|| "-".into(), cell),
            o.gpus_per_node
                .map_or_else(|| "-".into(), |g| g.to_string()),
            o.nodes.describe().trim_end_matches(" nodes").to_string(),
            price,
            ids,
        ]);
    }
    say!("{}", render(&mut list));
}
