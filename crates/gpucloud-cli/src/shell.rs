//! What a person types to stop a bill: the delete command for a cluster, quoted for a POSIX
//! shell so that pasting it runs nothing else.

use crate::sanitize::cell;

/// How a person stops the bill of `provider`'s cluster `id`, as a sentence: the command that
/// deletes it, quoted for a POSIX shell so that pasting it runs nothing else whatever the id
/// holds; or, where the provider's API cannot delete a cluster, where a person stops it.
pub fn how_to_stop(provider: gpucloud::ProviderKind, id: &str) -> String {
    let profile = provider.profile();
    if !profile.deletes_clusters {
        return format!(
            "Its API cannot delete it: stop it in {} (it bills until then).",
            profile.console
        );
    }
    // An id that starts with `-` would be read as a flag: after `--` it is the id.
    let id = if id.starts_with('-') {
        format!("-- {}", shell_word(id))
    } else {
        shell_word(id)
    };
    format!("Delete it with `gpucloud clusters delete -p {provider} --wait {id}`.")
}

/// `word` quoted for a POSIX shell when it needs it (control characters escaped for the
/// terminal first; a NUL, which no shell word can hold, shown escaped).
pub fn shell_word(word: &str) -> String {
    let shown = cell(word);
    shlex::try_quote(&shown).map_or_else(|_| format!("{shown:?}"), |q| q.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printed_delete_command_is_safe_to_paste_and_names_the_console_where_there_is_none() {
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::Together, "c-1;echo pwned $(id)"),
            "Delete it with `gpucloud clusters delete -p together --wait 'c-1;echo pwned $(id)'`."
        );
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::E2e, "101"),
            "Delete it with `gpucloud clusters delete -p e2e --wait 101`."
        );
        assert_eq!(
            how_to_stop(gpucloud::ProviderKind::Together, "-rf"),
            "Delete it with `gpucloud clusters delete -p together --wait -- -rf`."
        );
        assert_eq!(shell_word("it's"), r#""it's""#);
        // Control characters never reach the terminal raw, quoted or not.
        assert_eq!(shell_word("a\u{1b}]0;x\u{7}"), r#""a\\x1b]0;x\\x07""#);
        let runcrate = how_to_stop(gpucloud::ProviderKind::Runcrate, "r-1");
        assert!(
            runcrate.contains("cannot delete")
                && runcrate.contains("Runcrate dashboard")
                && !runcrate.contains("gpucloud clusters delete"),
            "{runcrate}"
        );
    }
}
