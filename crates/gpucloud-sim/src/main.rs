//! `gpucloud-sim`: run the simulator as a process and point any client at it.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use clap::Parser;
use gpucloud_sim::{Provider, SimConfig, Simulator, credentials};

/// A local fake of the Together, Runcrate and E2E cluster APIs.
#[derive(Debug, Parser)]
#[command(name = "gpucloud-sim", version)]
struct Args {
    /// Port to listen on (0 picks a free one); the same default as `gpucloud sim`.
    #[arg(long, default_value_t = 8480)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Simulated seconds per real second (60: a five-minute provisioning takes five seconds).
    #[arg(long, default_value_t = 1.0)]
    time_scale: f64,
    /// Seed for ids and addresses.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds a connection may sit idle before it is closed [default: 30].
    #[arg(long)]
    idle_timeout_secs: Option<u64>,
    /// Seconds a client has to send a request's header once it has begun [default: 10].
    #[arg(long)]
    header_timeout_secs: Option<u64>,
    /// Largest request body in bytes; longer ones get 413 [default: 1048576].
    #[arg(long)]
    max_body_bytes: Option<usize>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let defaults = SimConfig::default();
    let config = SimConfig {
        bind: SocketAddr::new(args.host, args.port),
        time_scale: args.time_scale,
        seed: args.seed,
        idle_timeout: args
            .idle_timeout_secs
            .map_or(defaults.idle_timeout, Duration::from_secs),
        header_read_timeout: args
            .header_timeout_secs
            .map_or(defaults.header_read_timeout, Duration::from_secs),
        max_request_body_bytes: args
            .max_body_bytes
            .unwrap_or(defaults.max_request_body_bytes),
    };
    let sim = match Simulator::start(config).await {
        Ok(sim) => sim,
        Err(error) => {
            eprintln!("gpucloud-sim: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!(
        "gpucloud-sim listening on http://{} (time scale {}x); Ctrl-C stops it.\n",
        sim.addr(),
        args.time_scale
    );
    for provider in Provider::ALL {
        println!("{provider:<9} {}", sim.base_url(provider));
    }
    println!(
        "{:<9} {} (faults at /faults, capacity at /capacity)",
        "control",
        sim.control_url()
    );
    println!(
        "\nexport TOGETHER_BASE_URL={}",
        sim.base_url(Provider::Together)
    );
    println!("export TOGETHER_API_KEY={}", credentials::TOGETHER_API_KEY);
    println!(
        "export RUNCRATE_BASE_URL={}",
        sim.base_url(Provider::Runcrate)
    );
    println!("export RUNCRATE_API_KEY={}", credentials::RUNCRATE_API_KEY);
    println!("export E2E_BASE_URL={}", sim.base_url(Provider::E2e));
    println!("export E2E_API_KEY={}", credentials::E2E_API_KEY);
    println!("export E2E_AUTH_TOKEN={}", credentials::E2E_AUTH_TOKEN);
    println!("export E2E_PROJECT_ID={}", credentials::E2E_PROJECT_ID);
    println!("export E2E_LOCATION=Delhi");
    sim.wait().await;
    std::process::ExitCode::SUCCESS
}
