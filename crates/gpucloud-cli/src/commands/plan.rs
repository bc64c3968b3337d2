//! `gpucloud plan`: the exact create request, not sent.

use crate::cli::PlanArgs;
use crate::error::CliError;
use crate::{connect, output, request};

/// Validates the request and prints it as it would be sent, credentials redacted.
pub async fn run(args: &PlanArgs, json: bool) -> Result<(), CliError> {
    let spec = request::spec(args.target.provider, &args.request)?;
    let client = connect::client(&args.target)?;
    let plan = client.plan(&spec).await?;
    if json {
        output::json(&plan)
    } else {
        output::stdout_text(&plan.to_string());
        Ok(())
    }
}
