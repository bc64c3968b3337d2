//! `gpucloud completions SHELL`: every shell gets a script, and bash loads its own.

use std::process::Command;

use crate::support::gpucloud;

#[test]
fn every_shell_gets_a_script_naming_the_commands() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let run = gpucloud(&["completions", shell], &[]);
        run.expect_code(0);
        for word in ["clusters", "plan", "schema", "completions"] {
            assert!(
                run.stdout.contains(word),
                "{shell}: no {word:?} in the script"
            );
        }
    }
    gpucloud(&["completions", "tcsh"], &[]).expect_code(2);
}

#[test]
fn bash_loads_the_script_and_completes_subcommands() {
    let binary = env!("CARGO_BIN_EXE_gpucloud");
    // Load the script, check the completion is registered, then ask it what follows
    // `gpucloud cl` and `gpucloud clusters `, as bash would on TAB.
    let script = format!(
        r#"set -e
source <("{binary}" completions bash)
complete -p gpucloud
COMP_WORDS=(gpucloud cl); COMP_CWORD=1; COMP_LINE="gpucloud cl"; COMP_POINT=${{#COMP_LINE}}
_gpucloud gpucloud cl gpucloud
echo "first: ${{COMPREPLY[*]}}"
COMP_WORDS=(gpucloud clusters ""); COMP_CWORD=2; COMP_LINE="gpucloud clusters "; COMP_POINT=${{#COMP_LINE}}
_gpucloud gpucloud "" clusters
echo "second: ${{COMPREPLY[*]}}"
"#
    );
    let output = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bash failed\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("-F _gpucloud gpucloud"),
        "no completion registered: {stdout}"
    );
    let line = |prefix: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(line("first: "), "clusters", "{stdout}");
    for sub in ["create", "get", "list", "delete", "wait"] {
        assert!(
            line("second: ").split(' ').any(|w| w == sub),
            "no {sub}: {stdout}"
        );
    }
}
