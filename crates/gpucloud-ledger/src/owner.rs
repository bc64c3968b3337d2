//! Who holds a claim: a name people can read (host and process id), and, where the system
//! can tell, a node identity under which a process id can be checked for life.

use std::path::Path;

/// The caller a claim belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    /// `host/pid`, for people.
    pub(crate) display: String,
    /// The kernel boot and process-id namespace this process runs in (Linux), so that a
    /// process id recorded under the same node can be looked up in `/proc`: the same host
    /// name alone is not enough (containers share names and not process ids).
    pub(crate) node: Option<String>,
    /// This process.
    pub(crate) pid: u32,
}

impl Owner {
    pub(crate) fn of_this_process() -> Self {
        let pid = std::process::id();
        let host = read_trimmed("/proc/sys/kernel/hostname")
            .or_else(|| read_trimmed("/etc/hostname"))
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "unknown-host".to_string());
        let node = match (
            read_trimmed("/proc/sys/kernel/random/boot_id"),
            std::fs::read_link("/proc/self/ns/pid").ok(),
        ) {
            (Some(boot), Some(ns)) => Some(format!("{boot}/{}", ns.display())),
            _ => None,
        };
        Self {
            display: format!("{}/{pid}", host.chars().take(64).collect::<String>()),
            node,
            pid,
        }
    }

    /// Whether the process `pid` recorded under `node` has certainly exited: it ran where this
    /// process runs and `/proc` no longer has it. Anything else (another machine, no `/proc`,
    /// a process id reused) is not certain, and the claim's lease decides.
    pub(crate) fn certainly_dead(&self, node: Option<&str>, pid: i64) -> bool {
        let Some(ours) = &self.node else {
            return false;
        };
        node == Some(ours.as_str())
            && pid != i64::from(self.pid)
            && pid > 0
            && !Path::new(&format!("/proc/{pid}")).exists()
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_of_this_node_that_exited_is_dead_and_nothing_else_is() {
        let me = Owner::of_this_process();
        let Some(node) = me.node.clone() else {
            assert!(
                !Path::new("/proc/self").exists(),
                "with /proc, this process knows its node"
            );
            return; // no /proc: only the lease decides, which the claim tests cover
        };
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
        let ns = std::fs::read_link("/proc/self/ns/pid").unwrap();
        assert_eq!(node, format!("{}/{}", boot.trim(), ns.display()));
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        assert_eq!(
            me.display,
            format!("{}/{}", host.trim(), std::process::id())
        );
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i64::from(child.id());
        child.wait().unwrap();
        assert!(me.certainly_dead(Some(&node), pid), "an exited process");
        assert!(
            !me.certainly_dead(Some(&node), i64::from(me.pid)),
            "this process"
        );
        assert!(
            !me.certainly_dead(Some("another-node"), pid),
            "another node"
        );
        assert!(!me.certainly_dead(None, pid), "no node recorded");
        assert!(!me.certainly_dead(Some(&node), 0), "no process id recorded");
    }
}
