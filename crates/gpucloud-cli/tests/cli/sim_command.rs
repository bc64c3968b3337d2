//! `gpucloud sim`, run as a user would: in the foreground, in its own process.

use crate::support::{assert_golden, gpucloud, normalize};

/// `gpucloud sim` in the foreground: it prints exports that work, and stops on SIGTERM.
#[cfg(unix)]
#[test]
fn sim_prints_working_exports_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_gpucloud"))
        .args(["sim", "--port", "0", "--time-scale", "60"])
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start gpucloud sim: {e}"));
    let mut stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let mut banner = String::new();
    while !banner.contains("Then, for example") {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        banner.push_str(&line);
    }
    let env: Vec<(&str, String)> = banner
        .lines()
        .filter_map(|l| l.strip_prefix("export ")?.split_once('='))
        .map(|(name, value)| (name, value.to_string()))
        .collect();
    let listed = gpucloud(&["clusters", "list", "-p", "e2e"], &env);

    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    let status = child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    assert_golden("sim_banner", &normalize(&banner));
    listed.expect_code(0).golden("sim_exports_work");
    assert!(stopped && status.success(), "{status:?}: {stderr}");
    assert_eq!(stderr, "Stopping the simulator.\n");
}
