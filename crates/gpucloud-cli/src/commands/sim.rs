//! `gpucloud sim`: the simulator in the foreground, until Ctrl-C.

use std::net::{IpAddr, SocketAddr};

use clap::Args;
use gpucloud_sim::{RunningSim, SimConfig, Simulator};
use serde::Serialize;

use crate::context::Context;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct SimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8480)]
    pub port: u16,
    /// Simulated seconds per real second (600: a 10-minute provisioning takes 1 s).
    #[arg(long, value_name = "X", default_value_t = 1.0, value_parser = parse_time_scale)]
    pub time_scale: f64,
    /// Seed of the simulator's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Starts a simulator.
pub async fn start(bind: SocketAddr, time_scale: f64, seed: u64) -> Result<RunningSim, CliError> {
    let config = SimConfig {
        bind,
        time_scale,
        seed,
        ..SimConfig::default()
    };
    Simulator::start(config)
        .await
        .map_err(|e| CliError::Other(format!("cannot start the simulator on {bind}: {e}")))
}

/// `--json` output of `sim`.
#[derive(Serialize)]
struct Listening {
    address: SocketAddr,
    time_scale: f64,
    seed: u64,
    /// The operator's control API (`/faults`, `/capacity` under it), so a script that started
    /// the simulator can drive faults and capacity without guessing the path.
    control_url: String,
    environment: std::collections::BTreeMap<&'static str, String>,
}

/// Runs the simulator until Ctrl-C (or SIGTERM).
pub async fn run(ctx: &Context, args: &SimArgs) -> Result<(), CliError> {
    let sim = start(
        SocketAddr::new(args.bind, args.port),
        args.time_scale,
        args.seed,
    )
    .await?;
    let stop = Stop::listen();
    // The simulator's price list (Together's simulated catalog priced, and the rupee rate),
    // in a private temporary file removed when the simulator stops.
    let prices = price_book_file(&sim)?;
    let mut environment = sim.environment();
    environment.push((
        super::placement::PRICE_BOOK_ENV,
        prices.path().display().to_string(),
    ));
    if ctx.output().is_json() {
        crate::terminal::document_now(&Listening {
            address: sim.addr(),
            time_scale: args.time_scale,
            seed: args.seed,
            control_url: sim.control_url(),
            environment: environment.into_iter().collect(),
        })
        .map_err(|e| CliError::Other(format!("cannot encode JSON output: {e}")))?;
    } else {
        say!(
            "gpucloud simulator listening on http://{} (time scale {}x, seed {}).",
            sim.addr(),
            args.time_scale,
            args.seed
        );
        say!("Press Ctrl-C to stop. In another shell, point gpucloud at it:\n");
        for (name, value) in &environment {
            say!("export {name}={value}");
        }
        say!(
            "\n{} is the simulator's own price list (illustrative prices), so \
             `gpucloud offers --gpu-model H100 --gpus 16` compares all three providers in \
             dollars.",
            super::placement::PRICE_BOOK_ENV
        );
        say!("Then, for example: gpucloud clusters list --provider together");
        let control = sim.control_url();
        say!("Control API (no credentials): {control}");
        say!("  faults:   {control}/faults");
        say!("  capacity: {control}/capacity");
    }
    stop.wait().await;
    tell!("Stopping the simulator.");
    sim.shutdown().await;
    drop(prices);
    Ok(())
}

/// The simulator's price book, written to a private temporary file.
fn price_book_file(sim: &RunningSim) -> Result<tempfile::NamedTempFile, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::Other(format!(
            "cannot write the simulator's price book to a temporary file: {e}"
        ))
    };
    let mut file = tempfile::Builder::new()
        .prefix("gpucloud-sim-prices-")
        .suffix(".toml")
        .tempfile()
        .map_err(cannot)?;
    std::io::Write::write_all(&mut file, sim.price_book().as_bytes()).map_err(cannot)?;
    Ok(file)
}

/// Ctrl-C and SIGTERM, listened for from the moment this is made: made before the simulator
/// says it listens, so a script that stops it as soon as it has read the address is answered
/// by a clean stop, never by the signal's default action.
struct Stop {
    #[cfg(unix)]
    signals: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Stop {
    fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let signals = signal(SignalKind::interrupt())
                .and_then(|interrupt| Ok((interrupt, signal(SignalKind::terminate())?)))
                .ok();
            Self { signals }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves on the first of them.
    async fn wait(self) {
        #[cfg(unix)]
        if let Some((mut interrupt, mut terminate)) = self.signals {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        // Without a handler, waiting forever is right: the default action still ends the
        // process.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

pub(super) fn parse_time_scale(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("must be a positive number".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_scales_are_checked_by_the_parser() {
        assert_eq!(parse_time_scale("600"), Ok(600.0));
        assert!(parse_time_scale("0").is_err());
        assert!(parse_time_scale("inf").is_err());
    }
}
