//! Where the PostgreSQL server binaries are: only in `GPUCLOUD_PG_BIN` when it is set, else on
//! `PATH`, else in the newest of Debian's versioned directories, so a test machine with the
//! distribution's package needs no setting at all.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::PG_BIN_ENV;

/// The server binaries of one installation, and the `psql` to talk to it with.
#[derive(Debug, Clone)]
pub(super) struct Bins {
    pub(super) dir: PathBuf,
    pub(super) initdb: PathBuf,
    pub(super) pg_ctl: PathBuf,
    pub(super) psql: PathBuf,
}

/// `initdb` and `pg_ctl` from the first place that has both, in the order the module
/// documentation gives; why none was found, otherwise.
pub(super) fn find_bins() -> Result<Bins, String> {
    if let Some(dir) = std::env::var_os(PG_BIN_ENV).filter(|dir| !dir.is_empty()) {
        let dir = PathBuf::from(dir);
        return bins_in(&dir).ok_or_else(|| {
            format!(
                "no initdb and pg_ctl in {} (from {PG_BIN_ENV})",
                dir.display()
            )
        });
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(bins) = std::env::split_paths(&path).find_map(|dir| bins_in(&dir)) {
        return Ok(bins);
    }
    let mut versions: Vec<(Vec<u64>, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name
                .split('.')
                .map(|part| part.parse::<u64>().ok())
                .collect::<Option<Vec<u64>>>()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort();
    versions
        .iter()
        .rev()
        .find_map(|(_, dir)| bins_in(dir))
        .ok_or_else(|| {
            "initdb and pg_ctl found neither on PATH nor in /usr/lib/postgresql/*/bin".to_owned()
        })
}

/// Both server binaries in `dir`; psql from there too, else from `PATH`.
fn bins_in(dir: &Path) -> Option<Bins> {
    let initdb = dir.join("initdb");
    let pg_ctl = dir.join("pg_ctl");
    if !is_executable(&initdb) || !is_executable(&pg_ctl) {
        return None;
    }
    let psql = dir.join("psql");
    let psql = if is_executable(&psql) {
        psql
    } else {
        PathBuf::from("psql")
    };
    Some(Bins {
        dir: dir.to_owned(),
        initdb,
        pg_ctl,
        psql,
    })
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.mode() & 0o111 != 0)
}
