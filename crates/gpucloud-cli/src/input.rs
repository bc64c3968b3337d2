//! Reading the files a command line names (request files, lifecycle scripts), bounded.
//!
//! Only regular files are read — not `/dev/zero`, a FIFO (whose `open` would block until a
//! writer comes) or a directory — and at most [`MAX_FILE_BYTES`]: a request or a script is a
//! few kilobytes, and a path typed by mistake must end in a clear error, not in memory
//! exhaustion.

use std::io::Read as _;
use std::path::Path;

use crate::error::CliError;

/// The largest file read: 1 MiB.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The text of the regular file at `path`, at most [`MAX_FILE_BYTES`]; `what` names it in
/// errors (`request file`, `lifecycle script`), which are [`CliError::Input`] (exit 3).
pub fn read_text(path: &Path, what: &str) -> Result<String, CliError> {
    let shown = path.display();
    let error = |problem: String| CliError::Input(format!("cannot read {what} {shown}: {problem}"));
    // `metadata` follows symlinks and never blocks; checked before `open`, which would block on
    // a FIFO, and again on the opened file, which may have been swapped in between.
    let regular = |metadata: &std::fs::Metadata| {
        if !metadata.is_file() {
            return Err(error("not a regular file".into()));
        }
        if metadata.len() > MAX_FILE_BYTES {
            return Err(too_large(what, path));
        }
        Ok(())
    };
    regular(&std::fs::metadata(path).map_err(|e| error(e.to_string()))?)?;
    let file = std::fs::File::open(path).map_err(|e| error(e.to_string()))?;
    regular(&file.metadata().map_err(|e| error(e.to_string()))?)?;
    // A file that grows while it is read still stops one byte past the limit.
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| error(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(what, path));
    }
    String::from_utf8(bytes).map_err(|_| error("not UTF-8 text".into()))
}

fn too_large(what: &str, path: &Path) -> CliError {
    CliError::Input(format!(
        "{what} {} is larger than the 1 MiB limit ({MAX_FILE_BYTES} bytes)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gpucloud-cli-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir.join(name)
    }

    #[test]
    fn files_up_to_the_limit_are_read_and_larger_ones_refused() {
        let at_limit = scratch("at-limit.toml");
        std::fs::write(&at_limit, vec![b'#'; MAX_FILE_BYTES as usize])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read_text(&at_limit, "request file")
                .ok()
                .map(|t| t.len() as u64),
            Some(MAX_FILE_BYTES)
        );
        let over = scratch("over.toml");
        std::fs::write(&over, vec![b'#'; MAX_FILE_BYTES as usize + 1])
            .unwrap_or_else(|e| panic!("{e}"));
        let message = read_text(&over, "request file").unwrap_err().to_string();
        assert!(message.contains("larger than the 1 MiB limit"), "{message}");
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = scratch("");
        let message = read_text(&dir, "request file").unwrap_err().to_string();
        assert!(message.ends_with("not a regular file"), "{message}");
        #[cfg(unix)]
        {
            let message = read_text(Path::new("/dev/zero"), "lifecycle script")
                .unwrap_err()
                .to_string();
            assert_eq!(
                message,
                "cannot read lifecycle script /dev/zero: not a regular file"
            );
        }
    }
}
