//! Where the ledger lives by default.
//!
//! A dozen lines of environment reading rather than the `dirs` or `directories` crates:
//! `dirs::state_dir()` reads the same two variables on Linux but is `None` on macOS and
//! Windows, where we want the same `~/.local/state` rule anyway, and the XDG rule (an
//! absolute `$XDG_STATE_HOME`, else `$HOME/.local/state`) is all there is to it.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::LedgerError;

/// The variable that overrides the ledger's location.
pub const LEDGER_ENV: &str = "GPUCLOUD_LEDGER";

/// The ledger's default path: `$GPUCLOUD_LEDGER` if set, else
/// `$XDG_STATE_HOME/gpucloud/ledger.sqlite3` (when that is absolute, as the XDG Base
/// Directory spec requires), else `$HOME/.local/state/gpucloud/ledger.sqlite3`.
pub fn default_path() -> Result<PathBuf, LedgerError> {
    path_from(|name| std::env::var_os(name))
}

/// [`default_path`] with the environment given as a function.
pub(crate) fn path_from(env: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, LedgerError> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(path) = set(LEDGER_ENV) {
        return Ok(path);
    }
    let state = set("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| {
            set("HOME")
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local").join("state"))
        })
        .ok_or(LedgerError::NoLocation)?;
    Ok(state.join("gpucloud").join("ledger.sqlite3"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_override_then_xdg_then_home() {
        let all = [
            (LEDGER_ENV, "/tmp/l.db"),
            ("XDG_STATE_HOME", "/s"),
            ("HOME", "/h"),
        ];
        assert_eq!(path_from(env(&all)).unwrap(), PathBuf::from("/tmp/l.db"));
        assert_eq!(
            path_from(env(&all[1..])).unwrap(),
            PathBuf::from("/s/gpucloud/ledger.sqlite3")
        );
        assert_eq!(
            path_from(env(&all[2..])).unwrap(),
            PathBuf::from("/h/.local/state/gpucloud/ledger.sqlite3")
        );
    }

    #[test]
    fn empty_or_relative_values_are_ignored() {
        let vars = [(LEDGER_ENV, ""), ("XDG_STATE_HOME", "rel"), ("HOME", "/h")];
        assert_eq!(
            path_from(env(&vars)).unwrap(),
            PathBuf::from("/h/.local/state/gpucloud/ledger.sqlite3")
        );
        assert!(matches!(
            path_from(env(&[("HOME", "")])),
            Err(LedgerError::NoLocation)
        ));
    }
}
