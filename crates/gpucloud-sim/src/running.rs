//! Starting and stopping a simulator, and what a running one offers a test: its URLs, its
//! clock, its faults, and a view of what it did.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::clock::SimClock;
use crate::exchange::{ClusterSummary, Exchange};
use crate::faults::Faults;
use crate::openapi::Specs;
use crate::provider::Provider;
use crate::providers::capacity::Capacity;
use crate::providers::{self, State};
use crate::server::{self, Limits, Shared};

/// How to run a simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Where to listen; port 0 picks a free one (see [`RunningSim::addr`]).
    pub bind: SocketAddr,
    /// Simulated seconds per real second; 0 freezes time except for [`SimClock::advance`].
    pub time_scale: f64,
    /// Mixed into every id and address, so runs with the same seed are identical.
    pub seed: u64,
    /// How long a connection may sit with no request in flight (between requests, or
    /// before the first byte) before the server closes it.
    pub idle_timeout: Duration,
    /// How long a client has, from the first byte of a request, to finish sending its
    /// header; a client that stalls or trickles it is cut off.
    pub header_read_timeout: Duration,
    /// The largest request body read, in bytes; a longer one is answered `413 Payload Too
    /// Large` after reading at most this much (at once when `Content-Length` says so).
    pub max_request_body_bytes: usize,
}

impl Default for SimConfig {
    /// 127.0.0.1 on a free port, real time, seed 0; connections idle for 30 s are closed,
    /// a header must arrive within 10 s, request bodies are capped at 1 MiB.
    fn default() -> Self {
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            time_scale: 1.0,
            seed: 0,
            idle_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            max_request_body_bytes: 1024 * 1024,
        }
    }
}

/// Why a simulator could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The address could not be bound (in use, not local, no permission).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// An embedded spec could not be read (a bug in this build).
    #[error("embedded spec: {0}")]
    Spec(String),
}

/// The simulator's entry point.
#[derive(Debug, Clone, Copy, Default)]
pub struct Simulator;

impl Simulator {
    /// Binds `config.bind` and serves the three APIs until the returned handle is shut down
    /// or dropped.
    pub async fn start(config: SimConfig) -> Result<RunningSim, SimError> {
        let specs = Specs::get().map_err(SimError::Spec)?;
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|source| SimError::Bind {
                addr: config.bind,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| SimError::Bind {
            addr: config.bind,
            source,
        })?;
        let shared = Arc::new(Shared {
            specs,
            clock: SimClock::new(config.time_scale),
            faults: Faults::default(),
            state: Arc::new(Mutex::new(State::new(config.seed))),
            exchanges: Mutex::new(Vec::new()),
            limits: Limits {
                idle: config.idle_timeout,
                header: config.header_read_timeout,
                max_body: config.max_request_body_bytes,
            },
        });
        let (stop, stopped) = watch::channel(false);
        let server = tokio::spawn(server::serve(listener, shared.clone(), stopped));
        Ok(RunningSim {
            addr,
            started_on: chrono::Utc::now().date_naive(),
            shared,
            stop,
            server,
        })
    }
}

/// A running simulator. Dropping it stops the server too.
#[derive(Debug)]
pub struct RunningSim {
    addr: SocketAddr,
    /// The day it started: the date of its price list.
    started_on: chrono::NaiveDate,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    server: JoinHandle<()>,
}

impl RunningSim {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL to give a client of `provider` in place of the real one, e.g.
    /// `http://127.0.0.1:PORT/runcrate/api/v1`.
    pub fn base_url(&self, provider: Provider) -> String {
        format!("http://{}{}", self.addr, provider.path_prefix())
    }

    /// The environment that points every provider's client at this simulator: each provider's
    /// documented variables (base URL, credentials and settings, as the facade's configs and
    /// the providers' own tools read them), with the simulator's fixed test credentials, which
    /// are not secrets.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        use crate::credentials as sim;
        vec![
            ("TOGETHER_BASE_URL", self.base_url(Provider::Together)),
            ("TOGETHER_API_KEY", sim::TOGETHER_API_KEY.into()),
            ("RUNCRATE_BASE_URL", self.base_url(Provider::Runcrate)),
            ("RUNCRATE_API_KEY", sim::RUNCRATE_API_KEY.into()),
            ("E2E_BASE_URL", self.base_url(Provider::E2e)),
            ("E2E_API_KEY", sim::E2E_API_KEY.into()),
            ("E2E_AUTH_TOKEN", sim::E2E_AUTH_TOKEN.into()),
            ("E2E_PROJECT_ID", sim::E2E_PROJECT_ID.to_string()),
            ("E2E_LOCATION", sim::E2E_LOCATION.into()),
        ]
    }

    /// The simulator's price list as a gpucloud price book (TOML): a per-GPU-hour price for
    /// each GPU type of its Together catalog (Together's API states none) and the rate that
    /// converts its E2E plans' rupees into dollars, each entry naming
    /// [`crate::PRICE_SOURCE`] and dated the day the simulator started. `gpucloud sim` writes
    /// it to a file and exports `GPUCLOUD_PRICE_BOOK`, so a placement with a price ceiling
    /// can compare all three simulated providers.
    pub fn price_book(&self) -> String {
        crate::prices::price_book_toml(self.started_on)
    }

    /// The control API's base URL, `http://127.0.0.1:PORT/_sim` (faults at
    /// `{control_url}/faults`, capacity at `{control_url}/capacity`); the operator's, so it
    /// takes no provider credentials.
    pub fn control_url(&self) -> String {
        format!("http://{}{}", self.addr, crate::control::PREFIX)
    }

    /// The fault injector.
    pub fn faults(&self) -> Faults {
        self.shared.faults.clone()
    }

    /// The providers' capacity: what each offering has left, and setting it.
    pub fn capacity(&self) -> Capacity {
        Capacity::new(self.shared.state.clone(), self.shared.clock.clone())
    }

    /// The simulated clock.
    pub fn clock(&self) -> SimClock {
        self.shared.clock.clone()
    }

    /// Every request answered so far (the most recent 100,000), oldest first.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.shared
            .exchanges
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default()
    }

    /// Every way the simulator's own answers so far broke the specs; empty unless the
    /// simulator has a bug. Tests assert this is empty to keep the simulator honest.
    pub fn spec_violations(&self) -> Vec<String> {
        self.exchanges()
            .into_iter()
            .flat_map(|e| e.spec_violations)
            .collect()
    }

    /// The clusters `provider` holds now (deleted ones until they are gone).
    pub fn clusters(&self, provider: Provider) -> Vec<ClusterSummary> {
        let now = self.shared.clock.elapsed();
        self.shared
            .state
            .lock()
            .map(|state| providers::clusters(provider, &state, now))
            .unwrap_or_default()
    }

    /// Stops accepting requests, closes every connection and waits until the server is done.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.server.await;
    }

    /// Serves until Ctrl-C (or until the server stops by itself), then shuts down.
    pub async fn wait(mut self) {
        let interrupted = async {
            // Without a signal handler there is no Ctrl-C to wait for: serve on.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = interrupted => {}
            _ = &mut self.server => return,
        }
        self.shutdown().await;
    }
}
