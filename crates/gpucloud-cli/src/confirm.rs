//! Asking before money is spent or clusters are deleted: only when a person is there to
//! answer (stdin and stderr both terminals), and never with `--yes`, so that scripts and CI
//! run unchanged. The question goes to stderr and the answer is one line of at most 64 bytes;
//! anything but `y` or `yes` is a no, and nothing is sent.

use std::io::{BufRead as _, IsTerminal as _, Read as _};

use crate::error::CliError;

/// Whether a person can be asked: stdin and stderr are both terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && crate::terminal::stderr_is_terminal()
}

/// Asks `question` (`… [y/N]` is added) on stderr; `Ok` on yes, [`CliError::Declined`]
/// otherwise (end of input included). The answer is read off the async runtime, so a Ctrl-C
/// while the question waits ends the run as any other interrupt does.
pub async fn ask(question: &str) -> Result<(), CliError> {
    crate::terminal::stderr_prompt(&format!("{question} [y/N] "));
    let answer = tokio::task::spawn_blocking(|| {
        let mut answer = String::new();
        std::io::stdin()
            .lock()
            .take(64)
            .read_line(&mut answer)
            .map(|_| answer)
    })
    .await;
    match answer {
        Ok(Ok(answer)) if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {
            Ok(())
        }
        _ => Err(CliError::Declined),
    }
}
