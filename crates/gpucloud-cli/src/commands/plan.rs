//! `gpucloud plan`: the exact create request, not sent.

use crate::cli::PlanArgs;
use crate::error::CliError;
use crate::ledger::Ledgers;
use crate::{output, request};

/// Validates the request and prints it as it would be sent, credentials redacted (with the
/// ledger, a Runcrate create re-uses the key of an earlier unanswered create of the same
/// request, and the plan shows it).
pub async fn run(args: &PlanArgs, json: bool, ledgers: &Ledgers) -> Result<(), CliError> {
    let spec = request::spec(&args.target.provider.0, &args.request)?;
    let Some(target) = args.target.single() else {
        return super::placement::plan(&args.target, &spec, ledgers.best_effort(), json).await;
    };
    let client = super::follow::follower(&target, ledgers)?;
    let plan = client.plan(&spec).await?;
    if json {
        output::json(&plan)
    } else {
        output::stdout_text(&plan.to_string());
        Ok(())
    }
}
