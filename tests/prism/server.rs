//! Stoplight Prism as a child process: where it is, one mock server per test on a free port, and
//! Prism's own log, read back for request violations.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The repository root (the integration-test crate lives in `tests/`).
fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Together's published OpenAPI document and the Prism executable, or the one line saying why
/// the suite does not run here.
///
/// The document comes from `TOGETHER_OPENAPI_REFERENCE` (relative paths from the repository root;
/// default `../shared/reference/together-compute-openapi-3.1.json`, as in `.ci/run`). Prism comes
/// from `PRISM_BIN`, else `.ci/prism/node_modules/.bin/prism` (`npm ci --prefix .ci/prism`).
/// When `PRISM_BIN` is set (CI sets it) a missing executable fails instead of skipping.
pub fn tools() -> Result<(PathBuf, PathBuf), String> {
    let root = repo_root();
    let reference = std::env::var("TOGETHER_OPENAPI_REFERENCE")
        .unwrap_or_else(|_| "../shared/reference/together-compute-openapi-3.1.json".into());
    let reference = root.join(reference);
    if !reference.is_file() {
        return Err(format!(
            "skipped: Together's OpenAPI document not found at {} (set TOGETHER_OPENAPI_REFERENCE)",
            reference.display()
        ));
    }
    let (prism, required) = match std::env::var("PRISM_BIN") {
        Ok(bin) => (root.join(bin), true),
        Err(_) => (root.join(".ci/prism/node_modules/.bin/prism"), false),
    };
    if !prism.is_file() {
        let line = format!(
            "skipped: Prism not found at {} (run `npm ci --prefix .ci/prism` or set PRISM_BIN)",
            prism.display()
        );
        assert!(!required, "PRISM_BIN is set but {line}");
        return Err(line);
    }
    Ok((reference, prism))
}

/// Returns the tools, or prints why not and returns `None` (the test then passes as skipped).
#[macro_export]
macro_rules! tools_or_skip {
    () => {
        match $crate::server::tools() {
            Ok(tools) => tools,
            Err(line) => {
                println!("{line}");
                return;
            }
        }
    };
}

/// A running `prism mock`, killed on drop.
#[derive(Debug)]
pub struct Prism {
    child: Child,
    /// `http://127.0.0.1:<port>`: Together's paths (`/compute/...`) sit at the root.
    pub base_url: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Prism {
    /// Starts `prism mock` on `document` (`dynamic`: `-d`, random schema-valid answers) and waits
    /// until it listens.
    pub fn start(prism: &PathBuf, document: &PathBuf, dynamic: bool) -> Prism {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("no free port: {e}"));
        let mut command = Command::new(prism);
        command.arg("mock").arg(document).args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ]);
        if dynamic {
            command.arg("--dynamic");
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", prism.display()));
        let log = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
                }
            });
        }
        let mut prism = Prism {
            child,
            base_url: format!("http://127.0.0.1:{port}"),
            log,
        };
        prism.wait_listening();
        prism
    }

    fn wait_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if self.log().iter().any(|l| l.contains("Prism is listening")) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("prism exited ({status}):\n{}", self.log().join("\n"));
            }
            assert!(
                Instant::now() < deadline,
                "prism did not start within 60 s:\n{}",
                self.log().join("\n")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Every line Prism has written so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How many requests Prism logged as received (`[HTTP SERVER] … Request received`).
    pub fn requests_received(&self) -> usize {
        self.log()
            .iter()
            .filter(|l| l.contains("[HTTP SERVER]") && l.contains("Request received"))
            .count()
    }

    /// Prism's validator lines that are not successes: each request violation is logged as
    /// `[VALIDATOR] ⚠ warning Request did not pass the validation rules` followed by one
    /// `[VALIDATOR] ✖ error …` line per broken rule.
    pub fn violations(&self) -> Vec<String> {
        self.log()
            .into_iter()
            .filter(|l| l.contains("[VALIDATOR]") && (l.contains("error") || l.contains("warning")))
            .collect()
    }

    /// Waits until Prism has logged `n` received requests (its log is written asynchronously).
    pub fn settle(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.requests_received() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        // The validator lines of the last request follow its "Request received" line.
        std::thread::sleep(Duration::from_millis(300));
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
