//! `gpucloud clusters get`: one cluster and its nodes. Its flags are the shared cluster id
//! (`flags::IdArgs`).

use crate::context::Context;
use crate::error::CliError;
use crate::flags::IdArgs;
use crate::output;

pub async fn run(ctx: &Context, args: &IdArgs) -> Result<(), CliError> {
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    let cluster = client.get(&id).await?;
    ctx.output().result(&cluster, output::cluster)
}
