//! Where a test's ledger lives (a SQLite file, or the private PostgreSQL server when one can
//! be started), and what the tests count at the simulator.

use std::time::Duration;

use gpucloud_ledger::{Ledger, LedgerOptions};
use gpucloud_sim::Provider;

use crate::postgres::PgServer;
use crate::support::ledger_path;

pub const PROVIDERS: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];

/// Where a test's ledger lives.
pub enum Backend {
    /// The directory (kept until the test ends) and the file in it.
    Sqlite(#[allow(dead_code)] tempfile::TempDir, String),
    Postgres(PgServer),
}

impl Backend {
    /// SQLite always; PostgreSQL where a server can be started (always under CI).
    pub fn all() -> Vec<Backend> {
        let (dir, path) = ledger_path();
        let mut all = vec![Backend::Sqlite(dir, path.display().to_string())];
        all.extend(PgServer::start().map(Backend::Postgres));
        all
    }

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(..) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    pub fn location(&self) -> String {
        match self {
            Backend::Sqlite(_, path) => path.clone(),
            Backend::Postgres(server) => format!("{}?sslmode=disable", server.url()),
        }
    }

    pub fn open(&self) -> Ledger {
        Ledger::open_location(&self.location(), &options()).unwrap()
    }
}

pub fn options() -> LedgerOptions {
    LedgerOptions {
        busy_timeout: Duration::from_secs(3),
        ..LedgerOptions::default()
    }
}

/// How many creates reached the provider.
pub fn creates_sent(sim: &gpucloud_sim::RunningSim, provider: Provider) -> usize {
    sim.exchanges()
        .iter()
        .filter(|e| {
            e.provider == Some(provider)
                && e.method == "POST"
                && e.operation.as_deref() == Some("create_cluster")
        })
        .count()
}
