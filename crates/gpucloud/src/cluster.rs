//! The provider-neutral model: what a cluster is, whatever the provider.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use crate::provider_cluster::ProviderCluster;

/// A provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Together AI Instant Clusters.
    Together,
    /// Runcrate clusters.
    Runcrate,
    /// E2E Networks TIR training clusters.
    E2e,
}

impl ProviderKind {
    /// Every provider.
    pub const ALL: [Self; 3] = [Self::Together, Self::Runcrate, Self::E2e];

    /// The lower-case name (`together`, `runcrate`, `e2e`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Together => "together",
            Self::Runcrate => "runcrate",
            Self::E2e => "e2e",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parses a provider's name as [`ProviderKind::as_str`] spells it, ignoring ASCII case
/// (`together`, `Runcrate`, `E2E`); the error names the allowed values.
impl std::str::FromStr for ProviderKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown provider {s:?} (expected together, runcrate or e2e)"))
    }
}

/// With the `clap` feature, `--provider together|runcrate|e2e` parses straight into a
/// [`ProviderKind`] (the possible values are [`ProviderKind::as_str`]).
#[cfg(feature = "clap")]
impl clap::ValueEnum for ProviderKind {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// A cluster's id as its provider issues it (a UUID, an integer, a string): not any string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ClusterId(String);

impl ClusterId {
    /// Wraps a provider's id.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The rule this id breaks, if any: the one rule for ids from users and from provider
    /// answers alike — not empty, not `.` or `..`, no `/`, `\`, `?` or `#`, at most 256
    /// bytes, no control characters. Every call that takes an id checks it before sending.
    pub fn problem(&self) -> Option<&'static str> {
        id_rule(&self.0)
    }
}

impl fmt::Display for ClusterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ClusterId {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

/// The longest cluster id accepted before any request is built.
pub(crate) const MAX_ID_BYTES: usize = 256;

/// The rule `id` breaks, if any: not empty (which would send a request to the collection),
/// not `.` or `..` (which a URL resolves to the collection or its parent), no `/`, `\`, `?`
/// or `#` (which a URL reads as structure), not absurdly long, no control characters. The
/// one rule for ids from users and ids in provider answers.
pub(crate) fn id_rule(id: &str) -> Option<&'static str> {
    if id.trim().is_empty() {
        Some("must not be empty")
    } else if id == "." || id == ".." {
        Some("must not be `.` or `..`: a URL resolves them to another resource")
    } else if id.contains(['/', '\\', '?', '#']) {
        Some("must not contain `/`, `\\`, `?` or `#`: no provider issues one, and a URL reads them")
    } else if id.len() > MAX_ID_BYTES {
        Some("must be at most 256 bytes")
    } else if id.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else {
        None
    }
}

impl From<String> for ClusterId {
    fn from(value: String) -> Self {
        Self(value)
    }
}

/// Where a cluster is in its life, the same words for every provider. Each provider's statuses
/// and phases map onto these through one explicit table (`providers::<name>::state`).
///
/// In JSON it is two fields side by side: `state`, the word (`ready`, `failed`), and
/// `state_detail`, the text a failed or unknown state carries (absent otherwise); a
/// [`Cluster`] carries them at its top level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "state_detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClusterState {
    /// Accepted, waiting for capacity or a scheduled start.
    Pending,
    /// Machines are being started, joined, configured or tested.
    Provisioning,
    /// Usable.
    Ready,
    /// Running but unhealthy (Together `Degraded`): needs attention, will not become ready alone.
    Degraded,
    /// Compute paused (Together); not billed for compute, not usable.
    Paused,
    /// Provisioning failed or tests failed; the text says why.
    Failed(String),
    /// Being torn down.
    Deleting,
    /// Gone.
    Deleted,
    /// A status this version does not know, as the provider sent it. Never read as "deleted".
    Unknown(String),
}

impl ClusterState {
    /// The state's stable code, for storage and queries (`pending`, `failed`, `unknown`, …):
    /// distinct from [`Display`](fmt::Display), which is for people and may change wording,
    /// and without the provider's text (a failure's reason, an unknown status).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Provisioning => "provisioning",
            Self::Ready => "ready",
            Self::Degraded => "degraded",
            Self::Paused => "paused",
            Self::Failed(_) => "failed",
            Self::Deleting => "deleting",
            Self::Deleted => "deleted",
            Self::Unknown(_) => "unknown",
        }
    }

    /// Whether waiting longer cannot make the cluster ready.
    pub fn is_terminal_failure(&self) -> bool {
        matches!(
            self,
            Self::Degraded | Self::Failed(_) | Self::Deleting | Self::Deleted
        )
    }
}

impl fmt::Display for ClusterState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Pending => f.write_str("pending"),
            Self::Provisioning => f.write_str("provisioning"),
            Self::Ready => f.write_str("ready"),
            Self::Degraded => f.write_str("degraded"),
            Self::Paused => f.write_str("paused"),
            Self::Failed(why) => write!(f, "failed ({why})"),
            Self::Deleting => f.write_str("deleting"),
            Self::Deleted => f.write_str("deleted"),
            Self::Unknown(raw) => write!(f, "unknown ({raw})"),
        }
    }
}

/// One machine of a cluster.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Node {
    /// The provider's node id or name.
    pub id: String,
    /// Host name, once assigned.
    pub hostname: Option<String>,
    /// Private or overlay address, once assigned.
    pub private_ip: Option<String>,
    /// Public address, once assigned.
    pub public_ip: Option<String>,
    /// A ready-to-run SSH command, where the provider gives one.
    pub ssh_command: Option<String>,
    /// GPUs on this node.
    pub gpus: Option<u32>,
    /// The provider's status text for the node.
    pub status: Option<String>,
}

/// A price per hour in the provider's currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Price {
    /// Amount per hour for the whole cluster.
    pub per_hour: f64,
    /// ISO 4217 code as the provider reports it (`USD`, `INR`).
    pub currency: String,
}

/// A cluster, the same shape for every provider, with the provider's own object kept in `raw`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cluster {
    /// The provider's id.
    pub id: ClusterId,
    /// The name given at creation.
    pub name: String,
    /// The provider.
    pub provider: ProviderKind,
    /// The provider-neutral state (`state` and, when it has one, `state_detail` in JSON).
    #[serde(flatten)]
    pub state: ClusterState,
    /// The provider's own status/phase text (latest phase for Together), for progress display.
    pub phase: Option<String>,
    /// The machines known so far.
    pub nodes: Vec<Node>,
    /// GPUs in the cluster.
    pub gpu_count: Option<u32>,
    /// When the cluster was created.
    pub created_at: Option<DateTime<Utc>>,
    /// When it first became ready.
    pub ready_at: Option<DateTime<Utc>>,
    /// Price per hour, where the provider reports one.
    pub price: Option<Price>,
    /// The provider's object, as decoded from its answer.
    pub raw: ProviderCluster,
}

impl Cluster {
    /// The GPUs of each of its GPU nodes, when the answer states them and they all agree; the
    /// unit a size in GPUs is turned into nodes by on a provider that sizes in nodes.
    pub fn gpus_per_node(&self) -> Option<u32> {
        let mut counts = self.nodes.iter().filter_map(|n| n.gpus).filter(|g| *g > 0);
        let first = counts.next()?;
        counts.all(|g| g == first).then_some(first)
    }

    /// Nodes that have an address to connect to.
    pub fn nodes_reachable(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.ssh_command.is_some() || n.public_ip.is_some() || n.private_ip.is_some())
            .count()
    }
}

/// Whether a create made a new cluster or found one that already existed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CreateOutcome {
    /// This call created the cluster.
    Created,
    /// This call created the cluster, but its answer was lost; a look-up found it.
    CreatedReconciled,
    /// An earlier create of ours made the cluster (the journal's record of this name and
    /// request, or Runcrate's answer to our idempotency key); nothing new was started.
    AlreadyExisted,
    /// A cluster of this name that gpucloud did not create was there before the call, and the
    /// request asked to adopt it ([`crate::ClusterSpec::adopt`]): it is ours from now on (a
    /// sweep or a deadline may delete it); nothing new was started.
    Adopted,
}

impl CreateOutcome {
    /// Whether this call started the cluster (rather than finding one an earlier create made,
    /// or adopting one).
    pub fn started_here(self) -> bool {
        matches!(self, Self::Created | Self::CreatedReconciled)
    }

    /// Whether a create of ours started the cluster (this call or an earlier one), so that a
    /// failed wait may delete it as the create's clean-up; an adopted cluster was started by
    /// someone else, and is left as it was.
    pub fn made_by_us(self) -> bool {
        !matches!(self, Self::Adopted)
    }
}

/// The result of a create.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Created {
    /// The cluster.
    pub cluster: Cluster,
    /// Whether it is new.
    pub outcome: CreateOutcome,
    /// How many POSTs were sent.
    pub attempts: u32,
    /// When the cluster is to be deleted: the deadline its create recorded in the journal
    /// (the request's `ttl` from when the intent was recorded), also when an earlier create of
    /// the same request made the cluster. `None` without a ttl or without a journal, which
    /// records it nowhere.
    pub deadline: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::ProviderKind;

    #[test]
    fn state_codes_are_stable_and_carry_no_provider_text() {
        use super::ClusterState as S;
        let states = [
            (S::Pending, "pending"),
            (S::Provisioning, "provisioning"),
            (S::Ready, "ready"),
            (S::Degraded, "degraded"),
            (S::Paused, "paused"),
            (S::Failed("tests failed".into()), "failed"),
            (S::Deleting, "deleting"),
            (S::Deleted, "deleted"),
            (S::Unknown("Hibernating".into()), "unknown"),
        ];
        for (state, code) in &states {
            assert_eq!(state.code(), *code);
        }
        assert_eq!(S::Failed("x".into()).to_string(), "failed (x)");
    }

    #[test]
    fn every_provider_parses_back_from_its_name_in_any_case() {
        for provider in ProviderKind::ALL {
            assert_eq!(provider.to_string(), provider.as_str());
            assert_eq!(provider.as_str().parse::<ProviderKind>(), Ok(provider));
            assert_eq!(provider.to_string().to_uppercase().parse(), Ok(provider));
        }
        assert_eq!("Runcrate".parse(), Ok(ProviderKind::Runcrate));
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_allowed_values() {
        let Err(error) = "aws".parse::<ProviderKind>() else {
            panic!("aws parsed as a provider");
        };
        assert_eq!(
            error,
            r#"unknown provider "aws" (expected together, runcrate or e2e)"#
        );
        for provider in ProviderKind::ALL {
            assert!(error.contains(provider.as_str()), "{error}");
        }
        assert!("".parse::<ProviderKind>().is_err());
        assert!(" together".parse::<ProviderKind>().is_err());
    }

    #[cfg(feature = "clap")]
    #[test]
    fn clap_offers_the_same_names() {
        use clap::ValueEnum;
        let names: Vec<_> = ProviderKind::value_variants()
            .iter()
            .filter_map(|p| Some(p.to_possible_value()?.get_name().to_string()))
            .collect();
        assert_eq!(names, ["together", "runcrate", "e2e"]);
        assert_eq!(ProviderKind::from_str("e2e", false), Ok(ProviderKind::E2e));
        assert!(ProviderKind::from_str("E2E", false).is_err());
    }
}
