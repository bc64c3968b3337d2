//! `gpucloud plan`: the exact create request, not sent.

use clap::Args;
use gpucloud::catalog::Constraints;

use crate::context::{Context, LedgerUse};
use crate::error::CliError;
use crate::flags::PlacementTargetArgs;
use crate::flags::request::RequestArgs;
use crate::request;

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub target: PlacementTargetArgs,
    #[command(flatten)]
    pub request: RequestArgs,
}

/// Validates the request and prints it as it would be sent, credentials redacted (with the
/// ledger, a Runcrate create re-uses the key of an earlier unanswered create of the same
/// request, and the plan shows it).
pub async fn run(ctx: &Context, args: &PlanArgs) -> Result<(), CliError> {
    let spec = request::spec(&args.target.provider.0, &args.request)?;
    let Some(target) = args.target.single() else {
        let ledger = ctx.ledger(LedgerUse::BestEffort)?;
        return super::placement::plan(ctx, &args.target, &spec, ledger).await;
    };
    // The request as a create would send it: the provider's section of the configuration
    // file applied (SSH keys, preferred regions, E2E's security group).
    let spec = super::placement::candidate_spec(ctx.config()?, target.provider, &spec, false);
    let client = ctx
        .client(&target, LedgerUse::BestEffort)?
        .for_request(&spec);
    let plan = client.plan(&spec).await?;
    ctx.output().result(&plan, |plan| {
        crate::terminal::stdout_text(&plan.to_string())
    })?;
    // What it costs, where the catalog was consulted for it (a request that names every id
    // is not looked up; `gpucloud catalog` lists the prices).
    if ctx.output().is_human() {
        let pricing = super::placement::pricing(ctx.config()?, args.target.price_book.as_deref())?;
        let resolution = client
            .resolve(&spec, &Constraints::default().with_pricing(pricing))
            .await?;
        if resolution.offering.is_some() {
            let cost = super::placement::Estimate::of(&resolution, &spec, client.provider());
            say!("\nCost: {}", cost.describe(&spec, client.provider()));
        } else if let Some(who) = super::placement::who_ends_it(&spec, client.provider()) {
            say!("\nDeadline: {who}");
        }
    }
    Ok(())
}
