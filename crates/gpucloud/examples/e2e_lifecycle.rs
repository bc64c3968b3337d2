//! Create → wait → delete on E2E Networks (TIR training cluster).
//!
//! ```sh
//! E2E_API_KEY=… E2E_AUTH_TOKEN=… E2E_PROJECT_ID=1234 E2E_LOCATION=Delhi \
//!   cargo run -p gpucloud --example e2e_lifecycle -- my-cluster IMAGE_VERSION_ID SKU_ID SKU_ITEM_PRICE_ID SECURITY_GROUP_ID SSH_KEY_ID
//! ```

use gpucloud::Ready;
use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, WaitOptions};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, image, sku, price, group, ssh_key] = args.as_slice() else {
        return Err("usage: e2e_lifecycle NAME IMAGE_VERSION_ID SKU_ID SKU_ITEM_PRICE_ID SECURITY_GROUP_ID SSH_KEY_ID".into());
    };

    let client = ClusterClient::e2e(E2eConfig::from_env()?)?;
    let spec = ClusterSpec::new(name.clone(), ClusterSize::Nodes(2))
        .with_ssh_keys([ssh_key.clone()])
        .with_options(
            E2eOptions::default()
                .with_sku(sku.parse()?, price.parse()?)
                .with_image_version_id(image.parse()?)
                .with_security_group_id(group.parse()?),
        );

    println!("{}", client.plan(&spec).await?);
    let created = client.create(&spec).await?;
    println!("{:?}: cluster {}", created.outcome, created.cluster.id);

    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|p| {
            println!("[{:>5.0}s] {}", p.elapsed.as_secs_f64(), p.cluster.state);
        })
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)?;
    println!(
        "login node: {:?}",
        ready.nodes.first().and_then(|n| n.public_ip.clone())
    );

    client.delete(&ready.id).await?;
    println!("deleted {}", ready.id);
    Ok(())
}
