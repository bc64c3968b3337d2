//! `gpucloud sim`, run as a user would: in the foreground, in its own process.

use crate::support::{assert_golden, gpucloud, normalize};

/// A `gpucloud sim` process, killed if a test ends before stopping it.
#[cfg(unix)]
struct Running {
    child: std::process::Child,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

#[cfg(unix)]
impl Running {
    fn start(args: &[&str]) -> Self {
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpucloud"))
            .args(args)
            .env_clear()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start gpucloud sim: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("stdout"));
        Self {
            child,
            stdout: std::io::BufReader::new(stdout),
        }
    }

    /// Stdout up to and including the first line `done` accepts (or all of it, at its end).
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> String {
        use std::io::BufRead;
        let mut text = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).unwrap_or(0) == 0 {
                return text;
            }
            text.push_str(&line);
            if done(&line) {
                return text;
            }
        }
    }

    /// SIGTERM, then whether it exited successfully and what it wrote on stderr.
    fn terminate(&mut self) -> (bool, String) {
        use std::io::Read;
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        let status = self.child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        (sent && status.success(), stderr)
    }
}

#[cfg(unix)]
impl Drop for Running {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `GET url` over a plain TCP connection (the tests have no HTTP client): status and body.
#[cfg(unix)]
fn get(url: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("{url}"));
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream =
        std::net::TcpStream::connect(host).unwrap_or_else(|e| panic!("connect {host}: {e}"));
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap_or_else(|e| panic!("send: {e}"));
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .unwrap_or_else(|e| panic!("read: {e}"));
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, body.to_string())
}

/// The offerings `GET {control}/capacity` lists, as `provider:family`.
#[cfg(unix)]
fn capacity_models(control: &str) -> Vec<String> {
    let (status, body) = get(&format!("{control}/capacity"));
    assert_eq!(status, 200, "{body}");
    let listed: serde_json::Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let models: Vec<String> = listed["offerings"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|o| {
            format!(
                "{}:{}",
                o["provider"].as_str().unwrap_or("?"),
                o["family"].as_str().unwrap_or("?")
            )
        })
        .collect();
    models
}

/// `gpucloud sim` in the foreground: it prints exports that work and the control API's URLs
/// (which answer without credentials), and stops on SIGTERM.
#[cfg(unix)]
#[test]
fn sim_prints_working_exports_and_stops_on_sigterm() {
    let mut sim = Running::start(&["sim", "--port", "0", "--time-scale", "60"]);
    let banner = sim.read_until(|l| l.contains("Then, for example"));
    let control = sim.read_until(|l| l.trim_start().starts_with("capacity:"));
    let env: Vec<(&str, String)> = banner
        .lines()
        .filter_map(|l| l.strip_prefix("export ")?.split_once('='))
        .map(|(name, value)| (name, value.to_string()))
        .collect();
    let listed = gpucloud(&["clusters", "list", "-p", "e2e"], &env);
    let control_url = control
        .lines()
        .find_map(|l| l.strip_prefix("Control API (no credentials): "))
        .unwrap_or_else(|| panic!("no control URL in {control:?}"))
        .to_string();
    let (faults, faults_body) = get(&format!("{control_url}/faults"));
    let models = capacity_models(&control_url);

    let (stopped, stderr) = sim.terminate();
    assert_golden("sim_banner", &normalize(&banner));
    assert_eq!(
        normalize(&control),
        "Control API (no credentials): http://127.0.0.1:PORT/_sim\n  \
         faults:   http://127.0.0.1:PORT/_sim/faults\n  \
         capacity: http://127.0.0.1:PORT/_sim/capacity\n"
    );
    assert_eq!((faults, faults_body.as_str()), (200, r#"{"faults":[]}"#));
    for wanted in [
        "together:H100",
        "together:H200",
        "runcrate:H100",
        "runcrate:H200",
        "e2e:H100",
        "e2e:H200",
    ] {
        assert!(
            models.contains(&wanted.to_string()),
            "{wanted} not in {models:?}"
        );
    }
    listed.expect_code(0).golden("sim_exports_work");
    assert!(stopped, "{stderr}");
    assert_eq!(stderr, "Stopping the simulator.\n");
}

/// `gpucloud sim --json`: one JSON document with the address, the control URL (which
/// answers) and the environment.
#[cfg(unix)]
#[test]
fn sim_json_includes_the_control_url() {
    let mut sim = Running::start(&["--json", "sim", "--port", "0", "--seed", "7"]);
    let text = sim.read_until(|l| l == "}\n");
    let listening: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let address = listening["address"]
        .as_str()
        .unwrap_or_else(|| panic!("{text}"));
    let control_url = listening["control_url"]
        .as_str()
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(control_url, format!("http://{address}/_sim"));
    assert_eq!(listening["seed"], 7);
    assert_eq!(
        listening["environment"]["RUNCRATE_BASE_URL"],
        format!("http://{address}/runcrate/api/v1")
    );
    let models = capacity_models(control_url);
    assert!(models.contains(&"runcrate:H200".to_string()), "{models:?}");

    let (stopped, stderr) = sim.terminate();
    assert!(stopped, "{stderr}");
    assert_eq!(stderr, "Stopping the simulator.\n");
}

/// With what `gpucloud sim` exports and a configuration file that sets no price or rate (only
/// what the simulated E2E account needs), a plan over every provider under a dollar ceiling prices each: Together from the
/// simulator's own price book (named as such), E2E's rupees converted by its rate, Runcrate as
/// answered. The price book file is gone once the simulator stops.
#[cfg(unix)]
#[test]
fn the_simulators_exports_price_every_provider_in_one_currency() {
    let mut sim = Running::start(&["--json", "sim", "--port", "0"]);
    let text = sim.read_until(|l| l == "}\n");
    let listening: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let environment = listening["environment"]
        .as_object()
        .unwrap_or_else(|| panic!("{text}"));
    let book = environment["GPUCLOUD_PRICE_BOOK"]
        .as_str()
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    let ledger = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut env: Vec<(&str, String)> = environment
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    env.push((
        "GPUCLOUD_LEDGER",
        ledger.path().join("l.sqlite3").display().to_string(),
    ));
    // What the simulated E2E account needs, in E2E's section (no prices, no rates).
    let config = ledger.path().join("config.toml");
    std::fs::write(
        &config,
        "[e2e]\nssh_keys = [\"1\"]\nsecurity_group_id = 1\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    env.push(("GPUCLOUD_CONFIG", config.display().to_string()));
    let run = gpucloud(
        &[
            "--json",
            "plan",
            "-p",
            "any",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--name",
            "priced",
            "--max-price-per-hour",
            "60",
            "--allow-no-delete",
            "--cheapest-first",
        ],
        &env,
    );
    let shown = gpucloud(&["--json", "config", "show"], &env);
    let (stopped, stderr) = sim.terminate();
    assert!(stopped, "{stderr}");
    run.expect_code(0);
    let planned: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let candidates = planned.as_array().cloned().unwrap_or_default();
    let seen: Vec<(&str, &str)> = candidates
        .iter()
        .map(|c| {
            (
                c["provider"].as_str().unwrap_or_default(),
                c["cost"]["source"]["kind"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    // Cheapest first in dollars: Together 16 × 2.30 (H100_SXM_INF) = 36.80, Runcrate 47.84,
    // E2E 4080 INR × 0.012 = 48.96.
    assert_eq!(
        seen,
        [
            ("together", "price_book"),
            ("runcrate", "answered"),
            ("e2e", "answered")
        ],
        "{}",
        run.stdout
    );
    assert_eq!(
        candidates[0]["cost"]["source"]["source"],
        gpucloud_sim::PRICE_SOURCE
    );
    let together = candidates[0]["cost"]["per_hour"]
        .as_f64()
        .unwrap_or_default();
    assert!((together - 36.8).abs() < 1e-9, "{together}");
    let e2e = candidates[2]["cost"]["converted"]["amount"]
        .as_f64()
        .unwrap_or_default();
    assert!((e2e - 48.96).abs() < 1e-9, "{e2e}");
    // `config show` names the file and what named it.
    shown.expect_code(0);
    assert!(
        shown.stdout.contains("\"from\": \"GPUCLOUD_PRICE_BOOK\""),
        "{}",
        shown.stdout
    );
    assert!(
        !std::path::Path::new(&book).exists(),
        "{book} outlived the simulator"
    );
}
