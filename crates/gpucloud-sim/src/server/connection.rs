//! One client connection: hyper's HTTP/1 state machine, plus the two deadlines hyper does not
//! keep apart by itself. hyper's own header timeout also runs while a kept-alive connection
//! waits for its next request, so it cannot be 10 s while idling is allowed 30 s; instead the
//! socket is wrapped to see bytes arrive, the service marks a request in flight, and a
//! watchdog closes the connection when the current phase has lasted too long:
//!
//! - **idle** (no request in flight and no byte of the next one): `idle` after the last
//!   byte read or written;
//! - **header** (the first byte of a request has arrived, the header is not complete):
//!   `header` after that first byte, however slowly the rest trickles in;
//! - **in flight** (from the parsed header until the answer is handed to hyper): no deadline.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{Shared, pipeline};

/// The connection limits of a running simulator (from `SimConfig`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) idle: Duration,
    pub(crate) header: Duration,
    pub(crate) max_body: usize,
}

/// Serves one connection until the client closes it, a fault drops it or a deadline passes.
pub(crate) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let limits = shared.limits;
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let in_service = activity.clone();
    let service = hyper::service::service_fn(move |request| {
        let in_flight = InFlight::start(&in_service);
        let shared = shared.clone();
        async move {
            let answer = pipeline::serve(shared, request).await;
            drop(in_flight);
            answer
        }
    });
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    tokio::select! {
        // An error here is a client going away or an injected drop: nothing to do.
        _ = connection => {}
        // Dropping the connection closes the socket.
        _ = activity.expired(limits) => {}
    }
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Idle(Instant),
    Header(Instant),
    InFlight,
}

/// What the connection is doing, as far as its deadlines care.
#[derive(Debug)]
struct Activity {
    phase: Mutex<Phase>,
    changed: Notify,
}

impl Activity {
    fn new() -> Self {
        Self {
            phase: Mutex::new(Phase::Idle(Instant::now())),
            changed: Notify::new(),
        }
    }

    fn phase(&self) -> Phase {
        self.phase.lock().map_or(Phase::InFlight, |phase| *phase)
    }

    fn set(&self, update: impl FnOnce(Phase) -> Option<Phase>) {
        let Ok(mut phase) = self.phase.lock() else {
            return;
        };
        if let Some(next) = update(*phase) {
            let wake = !matches!((*phase, next), (Phase::Idle(_), Phase::Idle(_)));
            *phase = next;
            if wake {
                self.changed.notify_one();
            }
        }
    }

    fn read(&self) {
        self.set(|phase| match phase {
            Phase::Idle(_) => Some(Phase::Header(Instant::now())),
            _ => None,
        });
    }

    fn wrote(&self) {
        self.set(|phase| match phase {
            Phase::Idle(_) => Some(Phase::Idle(Instant::now())),
            _ => None,
        });
    }

    /// Resolves once the current phase has outlived its deadline.
    async fn expired(&self, limits: Limits) {
        loop {
            let deadline = match self.phase() {
                Phase::Idle(since) => since.checked_add(limits.idle),
                Phase::Header(since) => since.checked_add(limits.header),
                Phase::InFlight => None,
            };
            let changed = self.changed.notified();
            match deadline {
                Some(deadline) => tokio::select! {
                    _ = tokio::time::sleep_until(deadline) => {
                        // Still the same phase, or one whose deadline has passed as well.
                        if self.overdue(limits) {
                            return;
                        }
                    }
                    _ = changed => {}
                },
                None => changed.await,
            }
        }
    }

    fn overdue(&self, limits: Limits) -> bool {
        let now = Instant::now();
        match self.phase() {
            Phase::Idle(since) => now.duration_since(since) >= limits.idle,
            Phase::Header(since) => now.duration_since(since) >= limits.header,
            Phase::InFlight => false,
        }
    }
}

/// Marks a request in flight; dropping it (answered, or the connection gone) makes the
/// connection idle again.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> Self {
        activity.set(|_| Some(Phase::InFlight));
        Self(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.set(|_| Some(Phase::Idle(Instant::now())));
    }
}

/// The socket, reporting every byte read or written to the connection's [`Activity`].
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
