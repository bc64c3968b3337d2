//! The byte sink: the one module that touches stdout and stderr. Clippy's `print_stdout` and
//! `print_stderr` are denied in the crate, and a test fails on any other module that takes
//! either handle. Every line leaves through [`stdout_line`], [`stderr_line`] or [`document`],
//! which scrub the loaded credentials ([`secrets`]) and escape what a terminal would act on
//! ([`sanitize`]); [`stdout_raw`] is for documents piped on as their bytes. It knows nothing of
//! commands or their errors, so every other module may print through it.

use std::sync::Mutex;

use serde::Serialize;

use crate::{sanitize, secrets};

/// Holds `value` as this run's JSON document, written by [`flush_document`] when the run
/// succeeds, or inside the failure document ([`failure_json`], as its `result`) when it fails
/// after all (a plan whose every candidate was skipped, a sweep that left clusters billing, a
/// list that could not read a provider, an interrupted run): stdout is always exactly one
/// document, and a failure's always has its `error`.
///
/// # Errors
/// When `value` cannot be encoded; nothing is held then.
pub fn document(value: &impl Serialize) -> Result<(), serde_json::Error> {
    let compact = serde_json::to_string(value)?;
    if let Ok(mut pending) = PENDING.lock() {
        *pending = Some(compact);
    }
    Ok(())
}

/// Prints `value` as pretty JSON on stdout at once, for a document a run prints before it
/// goes on (`gpucloud sim` once it listens): exact JSON (serde escapes C0 controls,
/// [`sanitize::json`] the rest), with the loaded credentials replaced inside its strings.
///
/// # Errors
/// When `value` cannot be encoded; nothing is printed then.
#[cfg(feature = "sim")]
pub fn document_now(value: &impl Serialize) -> Result<(), serde_json::Error> {
    let text = json_text(value)?;
    write_stdout(&text);
    Ok(())
}

/// Prints the document [`document`] holds, if any: the run succeeded.
pub fn flush_document() {
    let held = PENDING.lock().ok().and_then(|mut pending| pending.take());
    if let Some(text) = held.as_deref().and_then(|compact| pretty(compact).ok()) {
        write_stdout(&text);
    }
}

/// A failure's JSON document on stdout, with the document the run held as its `result`
/// (what it had found before it failed), except that a stdout that cannot be written is left
/// as it is: the run ends with the failure's own exit code, never the 0 of a closed pipe.
pub fn failure_json(value: &impl Serialize) {
    use std::io::Write as _;
    let Ok(mut compact) = serde_json::to_string(value) else {
        return;
    };
    let held = PENDING.lock().ok().and_then(|mut pending| pending.take());
    // The failure is an object with its `error` (so never `{}`): the held document goes in
    // as its last field.
    if let Some(result) = held
        && compact.ends_with('}')
    {
        compact.pop();
        compact.push_str(",\"result\":");
        compact.push_str(&result);
        compact.push('}');
    }
    if let Ok(text) = pretty(&compact) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }
}

/// Compact JSON text as [`json_text`] prints a value: indented, its fields in their order.
fn pretty(compact: &str) -> Result<String, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(compact);
    let mut indented = Vec::with_capacity(compact.len() * 2);
    {
        let mut writer = serde_json::Serializer::pretty(&mut indented);
        serde_transcode::transcode(&mut reader, &mut writer)?;
    }
    reader.end()?;
    let text = String::from_utf8(indented).map_err(serde::ser::Error::custom)?;
    let text = secrets::scrub_json(&text);
    Ok(format!("{}\n", sanitize::json(&text)))
}

/// `value` as pretty JSON and a newline, scrubbed and terminal-safe.
#[cfg(feature = "sim")]
fn json_text(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string_pretty(value)?;
    let text = secrets::scrub_json(&text);
    Ok(format!("{}\n", sanitize::json(&text)))
}

/// The run's document until it ends. Stdout is the process's own, and so is this.
static PENDING: Mutex<Option<String>> = Mutex::new(None);

/// Writes `text` and a newline on stdout, credentials scrubbed (what `say!` calls).
pub fn stdout_line(text: &str) {
    write_stdout(&format!("{}\n", secrets::scrub(text)));
}

/// Writes `text` as it is on stdout, credentials scrubbed.
pub fn stdout_text(text: &str) {
    write_stdout(&secrets::scrub(text));
}

fn write_stdout(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        stdout_failed(error);
    }
}

/// Writes `bytes` on stdout exactly as they are: for a document the user pipes on (a
/// kubeconfig, a completion script), whose bytes are the point. Nothing else uses it.
pub fn stdout_raw(bytes: &[u8]) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        stdout_failed(error);
    }
}

/// Whether stdout is a terminal (a person reads it) rather than a pipe or a file.
pub fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal as _;
    std::io::stdout().is_terminal()
}

/// Whether stderr is a terminal (progress may redraw in place).
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal()
}

/// Writes `text` and a newline on stderr, credentials scrubbed (what `tell!` calls).
pub fn stderr_line(text: &str) {
    use std::io::Write as _;
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(std::io::stderr().lock(), "{}", secrets::scrub(text));
}

/// Writes `text` on stderr without a newline and flushes it: a question whose answer is
/// typed on the same line.
pub fn stderr_prompt(text: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{}", secrets::scrub(text));
    let _ = stderr.flush();
}

/// Ends the program after a failed write to stdout: quietly (exit 0) when the reader went away
/// (a closed pipe), with a one-line error (exit 1) otherwise.
pub fn stdout_failed(error: std::io::Error) -> ! {
    if error.kind() != std::io::ErrorKind::BrokenPipe {
        stderr_line(&format!("error: cannot write to stdout: {error}"));
        std::process::exit(1);
    }
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    /// Only this module takes stdout or stderr: any other module that does would print past
    /// the scrubber and the escaping.
    #[test]
    fn no_other_module_touches_stdout_or_stderr() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.clone()];
        let mut offenders = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{e}")) {
                    files.push(entry.unwrap_or_else(|e| panic!("{e}")).path());
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("terminal.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if [
                    "io::stdout()",
                    "io::stderr()",
                    "std::io::stdout",
                    "std::io::stderr",
                ]
                .iter()
                .any(|handle| code.contains(handle))
                {
                    offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(offenders.is_empty(), "{}", offenders.join("\n"));
    }
}
