//! Log lines on stderr (never stdout, which holds tables and JSON), through tracing-subscriber.
//!
//! The filter is `RUST_LOG` when it is set, otherwise the `-v` count: no log lines by default
//! (what a run must say, the command line says itself, in its own words), `-v` warnings and
//! the gpucloud crates' info, `-vv` debug, `-vvv` trace (other crates stay at warnings).
//! Each formatted event goes through the same scrubber as every other output line, so a
//! credential that a server echoed into an error never reaches the log either, and its control
//! characters are escaped: one event, one terminal-safe line.

use std::io::Write;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::error::CliError;
use crate::{sanitize, secrets};

/// The filter `-v` repeated `verbosity` times asks for.
fn directives(verbosity: u8) -> &'static str {
    match verbosity {
        0 => "off",
        1 => "warn,gpucloud=info",
        2 => "warn,gpucloud=debug",
        _ => "warn,gpucloud=trace",
    }
}

/// Installs the subscriber; a malformed `RUST_LOG` is a configuration error (exit 3).
pub fn init(verbosity: u8) -> Result<(), CliError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.trim().is_empty() => EnvFilter::try_new(&spec)
            .map_err(|e| CliError::Input(format!("configuration: RUST_LOG: {e}")))?,
        _ => EnvFilter::new(directives(verbosity)),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(ScrubbedStderr)
        .try_init()
        .map_err(|e| CliError::Other(format!("cannot start logging: {e}")))
}

/// Hands tracing-subscriber one [`EventLine`] per event.
struct ScrubbedStderr;

impl<'a> MakeWriter<'a> for ScrubbedStderr {
    type Writer = EventLine;

    fn make_writer(&'a self) -> Self::Writer {
        EventLine(Vec::new())
    }
}

/// One formatted event, collected and written on drop: scrubbed, escaped, one line.
struct EventLine(Vec<u8>);

impl Write for EventLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.0);
        let line = text.strip_suffix('\n').unwrap_or(&text);
        if !line.is_empty() {
            crate::terminal::stderr_line(&sanitize::text(&secrets::scrub(line)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_v_adds_a_level_and_the_filters_parse() {
        for verbosity in 0..=4 {
            assert!(EnvFilter::try_new(directives(verbosity)).is_ok());
        }
        assert_eq!(directives(0), "off");
        assert_eq!(directives(3), "warn,gpucloud=trace");
        assert_eq!(directives(9), directives(3));
    }
}
