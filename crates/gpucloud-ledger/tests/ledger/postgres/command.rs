//! Server commands run to completion with their output captured and an outer deadline, so a
//! hung `initdb` or `pg_ctl` fails the test with what it printed instead of hanging the run.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The outer bound on any one command, past which it is killed (pg_ctl and psql have their
/// own, shorter bounds; initdb has none).
const COMMAND_DEADLINE: Duration = Duration::from_secs(90);

/// Runs `command` to completion with its output captured, killing it past
/// [`COMMAND_DEADLINE`]. Panics (naming `what`) if it cannot be started or runs too long.
pub(super) fn run_bounded(command: &mut Command, what: &str) -> Output {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .unwrap_or_else(|err| panic!("could not run {what} ({}): {err}", describe(command)));
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let deadline = Instant::now() + COMMAND_DEADLINE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{what} ({}) still running after {COMMAND_DEADLINE:?}: killed",
                    describe(command)
                );
            }
            Err(err) => panic!("could not wait for {what} ({}): {err}", describe(command)),
        }
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The program and its arguments, without the environment (`Command`'s `Debug` would show
/// `PGPASSWORD`).
fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Both output streams of a finished command, for a failure message.
pub(super) fn output_text(out: &Output) -> String {
    format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stdout).trim_end(),
        String::from_utf8_lossy(&out.stderr).trim_end()
    )
}
