//! Reading what the command is given, bounded: a spec or an acknowledgement file is read only
//! when it is a regular file, and never beyond a size cap, so `/dev/zero`, a FIFO or a
//! runaway file fails at once with the file and the limit named instead of filling memory.
//! Git sides (`GITREV:path`) are checked the same way before git prints them.
//!
//! [`check_document`] is the outline every OpenAPI document must have (`openapi`, `info`,
//! `paths`), checked before anything reads further; `cargo xtask codegen` uses both.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The largest spec read, in bytes (32 MiB; the largest real provider document we know of is
/// about 1 MB).
pub const SPEC_LIMIT: u64 = 32 * 1024 * 1024;

/// The largest acknowledgement file read, in bytes (1 MiB).
pub const ACK_LIMIT: u64 = 1024 * 1024;

/// Reads the UTF-8 text of the regular file at `path`, at most `limit` bytes; `what` names the
/// kind of file in messages ("a spec", "an acknowledgement file").
///
/// Fails, naming the file, when it cannot be opened, is not a regular file (a directory, a
/// device such as `/dev/zero`, a FIFO, a socket), holds more than `limit` bytes (at most
/// `limit + 1` bytes are read, so a file that grows while it is read is caught too), or is not
/// UTF-8.
pub fn read_file(path: &Path, limit: u64, what: &str) -> Result<String, crate::load::error::Error> {
    Ok(read(path, limit, what)?)
}

pub(crate) fn read(path: &Path, limit: u64, what: &str) -> Result<String> {
    let name = path.display();
    // Judged before opening: opening a FIFO for reading blocks until someone writes to it.
    let metadata =
        std::fs::metadata(path).with_context(|| format!("{name}: cannot read the file"))?;
    if !metadata.is_file() {
        bail!(
            "{name}: {}, not a regular file ({what} is read only from a regular file of at most {})",
            file_kind(&metadata.file_type()),
            show_limit(limit)
        );
    }
    if metadata.len() > limit {
        bail!("{name}: {}", too_large(metadata.len(), limit, what));
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("{name}: cannot read the file"))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read the file"))?;
    if bytes.len() as u64 > limit {
        // It grew after the size was judged.
        bail!("{name}: more than {}", too_large(limit, limit, what));
    }
    String::from_utf8(bytes).map_err(|e| anyhow::anyhow!("{name}: not UTF-8 text: {e}"))
}

/// `N bytes, over the limit of LIMIT for WHAT`.
pub(crate) fn too_large(size: u64, limit: u64, what: &str) -> String {
    format!(
        "{size} bytes, over the limit of {} for {what}",
        show_limit(limit)
    )
}

/// `32 MiB`, or `1000 bytes` when the limit is not a whole number of MiB.
fn show_limit(limit: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if limit >= MIB && limit.is_multiple_of(MIB) {
        format!("{} MiB", limit / MIB)
    } else {
        format!("{limit} bytes")
    }
}

fn file_kind(kind: &std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Checks the outline of a parsed document named `name`: an `openapi` version string of 3.0.x
/// or 3.1.x (a Swagger 2.0 document is named as such), an `info` object, a `paths` object
/// (optional in 3.1 when `components` or `webhooks` carry the document), each path item, and
/// `components` and its sections, objects; `security` a list. The error names the file and
/// the JSON pointer: `specs/x.yaml: at /paths: must be an object, got an array`.
pub fn check_document(
    name: &str,
    tree: &serde_json::Value,
) -> Result<(), crate::load::error::Error> {
    Ok(crate::load::outline::check(name, tree)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(path: &Path, limit: u64) -> String {
        read(path, limit, "a spec").unwrap_err().to_string()
    }

    #[test]
    fn devices_directories_and_large_files_are_refused_by_name() {
        #[cfg(unix)]
        assert_eq!(
            message(Path::new("/dev/zero"), SPEC_LIMIT),
            "/dev/zero: a character device, not a regular file (a spec is read only from a regular file of at most 32 MiB)"
        );
        let dir = tempfile::tempdir().unwrap();
        assert!(message(dir.path(), SPEC_LIMIT).contains("a directory, not a regular file"));
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, "x".repeat(1001)).unwrap();
        assert_eq!(
            message(&big, 1000),
            format!(
                "{}: 1001 bytes, over the limit of 1000 bytes for a spec",
                big.display()
            )
        );
        assert_eq!(read(&big, 1001, "a spec").unwrap().len(), 1001);
        std::fs::write(&big, [0xff, 0xfe]).unwrap();
        assert!(message(&big, 1000).contains("not UTF-8"));
    }
}
