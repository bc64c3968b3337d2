//! The HTTP side: one port, a hyper connection per client, the request pipeline.
//!
//! hyper is used directly (not axum) because the routes come from the specs, and because a
//! dropped-connection fault needs the service to fail the connection without answering, which
//! only a hand-run connection allows.

mod pipeline;
mod wire;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::clock::SimClock;
use crate::exchange::Exchange;
use crate::faults::Faults;
use crate::openapi::Specs;
use crate::providers::State;

/// Everything a request may touch.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) specs: &'static Specs,
    pub(crate) clock: SimClock,
    pub(crate) faults: Faults,
    pub(crate) state: Mutex<State>,
    pub(crate) exchanges: Mutex<Vec<Exchange>>,
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
                let shared = shared.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        pipeline::serve(shared.clone(), request)
                    });
                    // An error here is a client going away or an injected drop: nothing to do.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            _ = stop.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}
