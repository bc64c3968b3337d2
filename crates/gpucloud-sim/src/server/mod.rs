//! The HTTP side: one port, a hyper connection per client with idle and header deadlines
//! (`connection`), the request pipeline with its body cap (`pipeline`).
//!
//! hyper is used directly (not axum) because the routes come from the specs, and because a
//! dropped-connection fault needs the service to fail the connection without answering, which
//! only a hand-run connection allows.

mod connection;
mod pipeline;
mod wire;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::clock::SimClock;
use crate::exchange::Exchange;
use crate::faults::Faults;
use crate::openapi::Specs;
use crate::providers::State;

pub(crate) use connection::Limits;

/// Everything a request may touch.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) specs: &'static Specs,
    pub(crate) clock: SimClock,
    pub(crate) faults: Faults,
    /// Shared with [`crate::Capacity`] handles, which read and set capacity in it.
    pub(crate) state: Arc<Mutex<State>>,
    pub(crate) exchanges: Mutex<Vec<Exchange>>,
    pub(crate) limits: Limits,
}

/// Accepts connections until `stop` changes or its sender is dropped, then closes them all.
pub(crate) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // Out of file descriptors or similar: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                connections.spawn(connection::serve(stream, shared.clone()));
            }
            _ = stop.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}
