//! What can go wrong in the command line, and the exit code each failure gets.
//!
//! Every failure is printed as one line on stderr (`error: …`) and mapped to a documented exit
//! code, so a script can tell "fix your input" from "the provider said no" from "try later".
//! With `--json`, a failure is also one JSON document on stdout ([`CliError::print_document`]):
//! the error's kind and exit code, what a placement tried, and a cluster left behind.

use std::fmt;
use std::process::ExitCode;

use gpucloud::{Attempt, Error, ErrorKind, FailureClass, ProviderKind};
use serde::Serialize;

use crate::sanitize;

/// The exit codes, as documented in `gpucloud --help`.
pub mod code {
    /// Success.
    pub const OK: u8 = 0;
    /// Anything else: network unreachable, I/O, the simulator could not start.
    pub const OTHER: u8 = 1;
    /// Unknown command, flag or value (clap's own code for usage errors).
    pub const USAGE: u8 = 2;
    /// Invalid request, request file or configuration; nothing was sent.
    pub const INVALID: u8 = 3;
    /// The provider refused or could not do it, or answered with a broken or oversized answer.
    pub const PROVIDER: u8 = 4;
    /// Timed out (a request or a wait), or the cluster failed while we waited.
    pub const TIMEOUT: u8 = 5;
    /// The person asked to confirm said no (or gave no answer): nothing was sent.
    pub const DECLINED: u8 = 6;
}

/// A failure of one command.
#[derive(Debug)]
pub enum CliError {
    /// Flags that clap cannot reject alone (an option of another provider).
    Usage(String),
    /// Input that cannot be used: a request file that cannot be read or parsed, a node or
    /// field the cluster does not have. Nothing was sent (exit 3).
    Input(String),
    /// An error from the facade.
    Cloud(Error),
    /// A placement over several providers that created nothing: the error that ended it,
    /// and what happened at each place tried.
    Placement(Box<PlacementFailed>),
    /// A create whose cluster was made but never became ready (`create --wait`): the wait's
    /// error, and what became of the cluster.
    WaitFailed(Box<WaitFailed>),
    /// A plan in which no candidate could be created (each skipped, with why): what the same
    /// `create` would fail with, so a CI gate on `plan` fails the same way.
    NothingToCreate(String),
    /// Clusters asked to be deleted that the provider's API cannot delete: still billing.
    StillBilling(String),
    /// The person asked to confirm said no: nothing was sent.
    Declined,
    /// No cluster has the id or name given, wherever it was looked for (the ledger, each
    /// provider's list, or the provider's answer): the same condition as a provider's 404.
    NotFound(String),
    /// A SIGINT, SIGTERM or SIGHUP ended the run (what it left behind is already said).
    Interrupted(crate::interrupt::Signal),
    /// A command run on a node (`clusters ssh … -- CMD`) exited with this status; gpucloud
    /// exits with it too.
    Remote(u8),
    /// Anything else (I/O on our side, the simulator).
    Other(String),
}

impl CliError {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Usage(_) => code::USAGE,
            Self::Input(_) => code::INVALID,
            Self::Cloud(error) => cloud_exit_code(error),
            Self::Placement(failed) => cloud_exit_code(&failed.error),
            Self::WaitFailed(failed) => cloud_exit_code(&failed.error),
            Self::NothingToCreate(_) | Self::StillBilling(_) => code::PROVIDER,
            Self::Interrupted(signal) => signal.exit_code(),
            Self::Declined => code::DECLINED,
            Self::NotFound(_) => code::PROVIDER,
            Self::Remote(status) => *status,
            Self::Other(_) => code::OTHER,
        }
    }

    /// Prints the failure as one line on stderr (and, for a name taken by another request,
    /// the two requests side by side) and returns the exit code.
    pub fn report(&self) -> ExitCode {
        // A remote command's failure is its own to tell (ssh passed its output through).
        if !matches!(self, Self::Remote(_)) {
            tell!("error: {self}");
        }
        match self.cloud() {
            Some(Error::NameInUse {
                differences,
                cluster,
                ..
            }) => tell_differences(cluster.as_str(), differences),
            Some(Error::NameTaken {
                adoptable: true, ..
            }) => tell!(
                "It is not ours, so it is left alone. Use another --name, or add --adopt to \
                 take it as this create's result and make it ours (clusters sweep and --ttl may \
                 then delete it)."
            ),
            Some(Error::NameTaken { .. }) => {
                tell!("It is not ours, so it is left alone. Use another --name.");
            }
            Some(Error::PriceAboveCeiling {
                provider,
                cluster,
                deleted: false,
                delete_error: Some(_),
                ..
            }) => tell!("{}", crate::shell::how_to_stop(*provider, cluster.as_str())),
            Some(Error::Unrecorded(unrecorded)) => {
                let cluster = &unrecorded.created.cluster;
                tell!(
                    "No sweep will see it: keep its id ({}). {}",
                    sanitize::cell(cluster.id.as_str()),
                    crate::shell::how_to_stop(cluster.provider, cluster.id.as_str())
                );
            }
            _ => {}
        }
        ExitCode::from(self.exit_code())
    }

    /// The facade's error behind this failure, if it is one.
    fn cloud(&self) -> Option<&Error> {
        match self {
            Self::Cloud(error) => Some(error),
            Self::Placement(failed) => Some(&failed.error),
            Self::WaitFailed(failed) => Some(&failed.error),
            _ => None,
        }
    }

    /// What kind of failure this is, as the JSON failure document names it: the facade's
    /// [`ErrorKind::as_str`] for its errors, the command line's own category otherwise.
    pub fn kind(&self) -> &'static str {
        if let Some(error) = self.cloud() {
            return error.kind().as_str();
        }
        match self {
            Self::Usage(_) => "usage",
            Self::Input(_) => "invalid_input",
            Self::NothingToCreate(_) => "nothing_to_create",
            Self::StillBilling(_) => "still_billing",
            Self::Declined => "declined",
            Self::NotFound(_) => "not_found",
            Self::Interrupted(_) => "interrupted",
            Self::Remote(_) => "remote_command",
            Self::Cloud(_) | Self::Placement(_) | Self::WaitFailed(_) | Self::Other(_) => "other",
        }
    }

    /// With `--json`: the failure as one JSON document on stdout, always with its `error`
    /// (message, kind, exit code), and with what the command had found before it failed as
    /// its `result` (a plan whose every candidate was skipped, a sweep that left clusters
    /// billing, an interrupted run), so that stdout is always exactly one document. A failed
    /// placement's attempts and a cluster a failed wait left behind are in it, as a script
    /// needs them to know why nothing was made or what still bills.
    pub fn print_document(&self) {
        // A remote command's output is its own (and `--json` is refused where one runs).
        if matches!(self, Self::Remote(_)) {
            return;
        }
        let (placement, cluster) = match self {
            Self::Placement(failed) => (
                Some(failed.attempts.as_slice()),
                LeftBehind::of_error(&failed.error),
            ),
            Self::WaitFailed(failed) => (failed.placement.as_deref(), Some(failed.cluster.clone())),
            Self::Cloud(error) => (None, LeftBehind::of_error(error)),
            _ => (None, None),
        };
        crate::terminal::failure_json(&FailureDocument {
            error: FailureSummary {
                message: self.to_string(),
                kind: self.kind(),
                exit_code: self.exit_code(),
            },
            placement,
            cluster,
        });
    }
}

/// A placement that created nothing.
#[derive(Debug)]
pub struct PlacementFailed {
    /// The error that ended it.
    pub error: Error,
    /// Every place it tried, in order, with its outcome.
    pub attempts: Vec<Attempt>,
}

impl fmt::Display for PlacementFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no candidate created the cluster: ")?;
        let tried: Vec<String> = self
            .attempts
            .iter()
            .filter_map(|a| match &a.outcome {
                gpucloud::AttemptOutcome::Skipped { reason, .. }
                | gpucloud::AttemptOutcome::Refused { reason, .. }
                | gpucloud::AttemptOutcome::Failed { reason, .. } => {
                    Some(format!("{}: {reason}", a.place()))
                }
                _ => None,
            })
            .collect();
        f.write_str(&tried.join("; "))
    }
}

/// A cluster made by a create whose wait failed, with what became of it.
#[derive(Debug)]
pub struct WaitFailed {
    /// Why the wait failed (the cluster failed, or the wait timed out).
    pub error: Error,
    /// What happened at each place a placement tried, when one ran.
    pub placement: Option<Vec<Attempt>>,
    /// The cluster, and whether it may still be billing.
    pub cluster: LeftBehind,
}

/// What was done about a cluster a failed command leaves behind (`snake_case` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CleanedUp {
    /// Deleted, and the provider confirmed it gone.
    Deleted,
    /// A failed start the provider released itself: nothing bills.
    Released,
    /// Its delete failed.
    DeleteFailed,
    /// Left as it is (asked to, or the API cannot delete it).
    Kept,
}

impl CleanedUp {
    /// Whether a cluster so cleaned up may still be billing.
    pub fn may_be_billing(self) -> bool {
        matches!(self, Self::DeleteFailed | Self::Kept)
    }
}

/// A cluster a failed command leaves behind, as its JSON failure document shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LeftBehind {
    /// Its provider.
    pub provider: ProviderKind,
    /// Its id.
    pub id: String,
    /// What was done about it.
    pub cleanup: CleanedUp,
    /// Whether it may still be billing (`delete_failed` or `kept`).
    pub may_be_billing: bool,
    /// How to stop it, when it may be billing: the command that deletes it, or where the
    /// provider's console stops it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how_to_stop: Option<String>,
}

impl LeftBehind {
    /// `provider`'s cluster `id`, after `cleanup`: with how to stop it where it may bill.
    pub fn new(provider: ProviderKind, id: &str, cleanup: CleanedUp) -> Self {
        let may_be_billing = cleanup.may_be_billing();
        Self {
            provider,
            id: id.to_string(),
            cleanup,
            may_be_billing,
            how_to_stop: may_be_billing.then(|| crate::shell::how_to_stop(provider, id)),
        }
    }

    /// The cluster a failed create leaves: one whose own answer stated a price over the
    /// ceiling (deleted at once, or, its delete failed or the API cannot delete it, still
    /// there), or one the journal could not record (kept, and unknown to every sweep).
    fn of_error(error: &Error) -> Option<Self> {
        match error {
            Error::Unrecorded(unrecorded) => Some(Self::new(
                unrecorded.created.cluster.provider,
                unrecorded.created.cluster.id.as_str(),
                CleanedUp::Kept,
            )),
            Error::PriceAboveCeiling {
                provider,
                cluster,
                deleted,
                delete_error,
                ..
            } => Some(Self::new(
                *provider,
                cluster.as_str(),
                match (deleted, delete_error) {
                    (true, _) => CleanedUp::Deleted,
                    // An API that cannot delete kept it, as it keeps a failed wait's.
                    (false, Some(_)) if !provider.profile().deletes_clusters => CleanedUp::Kept,
                    (false, Some(_)) => CleanedUp::DeleteFailed,
                    (false, None) => CleanedUp::Kept,
                },
            )),
            _ => None,
        }
    }
}

/// What `--json` prints on stdout for a failed command.
#[derive(Serialize)]
struct FailureDocument<'a> {
    error: FailureSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    placement: Option<&'a [Attempt]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<LeftBehind>,
}

/// The failure itself: its one-line message, its kind and the exit code it ends with.
#[derive(Serialize)]
struct FailureSummary {
    message: String,
    kind: &'static str,
    exit_code: u8,
}

/// The fields on which this request differs from the one that made `cluster`, side by side.
fn tell_differences(cluster: &str, differences: &[gpucloud::FieldDifference]) {
    let cluster = sanitize::cell(cluster);
    if differences.is_empty() {
        tell!(
            "The request that made {cluster} is not on record field by field (only its hash), \
             so the differences cannot be shown."
        );
    } else {
        let mut table = crate::table::table(&["field", "request that made it", "this request"]);
        let shown = |v: &Option<String>| v.as_deref().map_or_else(|| "-".into(), sanitize::cell);
        for d in differences {
            table.add_row([
                sanitize::cell(&d.field),
                shown(&d.earlier),
                shown(&d.requested),
            ]);
        }
        tell!("{}", crate::table::render(&mut table));
    }
    tell!("Use another --name, or send the request that made {cluster} again to get it back.");
}

/// The exit code of a facade error, by kind.
pub fn cloud_exit_code(error: &Error) -> u8 {
    exit_code_of(error.kind())
}

/// The exit code of each kind of facade error: its class in the facade's table of kinds
/// ([`ErrorKind::facts`]), so that a new kind is placed there and nowhere else.
fn exit_code_of(kind: ErrorKind) -> u8 {
    match kind.facts().class {
        // The request, the configuration, or a journal that cannot record the intent (which
        // stops the create before anything is sent, as a ledger that cannot be opened does).
        FailureClass::Request => code::INVALID,
        // Refused, or answered wrongly (cut off, reset, malformed, larger than the cap).
        FailureClass::Provider => code::PROVIDER,
        // A wait, a request that got no answer in time (`--request-timeout`), or a cluster
        // that failed to start: exit 5, not "network unreachable".
        FailureClass::Timeout => code::TIMEOUT,
        // No connection: the network or the address, not the provider.
        FailureClass::Network => code::OTHER,
        // Our side (the journal) failed after the provider acted: I/O, not the request.
        FailureClass::Local => code::OTHER,
        // A class newer than this match (the list is `#[non_exhaustive]`).
        _ => code::OTHER,
    }
}

/// A facade error and its sources on one line (`transport error calling get_cluster on
/// together: error sending request: …`), terminal-safe: the provider's words in it (messages,
/// bodies) have their control characters escaped, line breaks included. The facade keeps
/// credentials out of every error and transport errors carry no URL; the output layer scrubs
/// what a server echoed anyway.
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        // Some errors repeat their source in their own message; say it once.
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    flatten(&line)
}

/// One terminal-safe line: surrounding blanks trimmed, control characters (line breaks
/// included) escaped.
pub fn flatten(text: &str) -> String {
    sanitize::cell(text.trim())
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(message)
            | Self::Input(message)
            | Self::NothingToCreate(message)
            | Self::StillBilling(message)
            | Self::NotFound(message)
            | Self::Other(message) => f.write_str(&flatten(message)),
            Self::Cloud(error) => f.write_str(&one_line(error)),
            Self::Interrupted(signal) => write!(f, "interrupted by {}", signal.name()),
            Self::Declined => f.write_str("not confirmed: nothing was sent"),
            Self::Remote(status) => write!(f, "the command on the node exited with {status}"),
            Self::Placement(failed) => f.write_str(&flatten(&failed.to_string())),
            Self::WaitFailed(failed) => f.write_str(&one_line(&failed.error)),
        }
    }
}

impl From<Error> for CliError {
    fn from(value: Error) -> Self {
        Self::Cloud(value)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gpucloud::{ApiError, ProviderKind, ValidationError};

    use super::*;

    fn api(status: u16) -> ApiError {
        ApiError {
            provider: ProviderKind::Together,
            operation: "get_cluster",
            status,
            code: None,
            message: Some("no such\ncluster".into()),
            reason: None,
            retry_hint: None,
            body: String::new(),
        }
    }

    #[test]
    fn kinds_map_to_documented_codes() {
        let validation = Error::Validation(ValidationError {
            provider: ProviderKind::Together,
            field: "num_gpus".into(),
            rule: "must be a multiple of 8".into(),
            source: "docs",
        });
        assert_eq!(cloud_exit_code(&validation), code::INVALID);
        assert_eq!(cloud_exit_code(&Error::NotFound(api(404))), code::PROVIDER);
        assert_eq!(
            cloud_exit_code(&Error::Unsupported {
                provider: ProviderKind::Runcrate,
                operation: "deleting clusters"
            }),
            code::PROVIDER
        );
        assert_eq!(
            cloud_exit_code(&Error::Timeout {
                what: "waiting".into(),
                after: Duration::from_secs(1)
            }),
            code::TIMEOUT
        );
        assert_eq!(
            cloud_exit_code(&Error::ResponseTooLarge {
                provider: ProviderKind::E2e,
                operation: "get_cluster",
                limit: 32 << 20,
            }),
            code::PROVIDER
        );
        assert_eq!(CliError::Usage("x".into()).exit_code(), code::USAGE);
        assert_eq!(CliError::Input("x".into()).exit_code(), code::INVALID);
        assert_eq!(CliError::Other("x".into()).exit_code(), code::OTHER);
        assert_eq!(
            CliError::NothingToCreate("x".into()).exit_code(),
            code::PROVIDER
        );
    }

    #[test]
    fn messages_are_one_line() {
        let error = CliError::Cloud(Error::NotFound(api(404)));
        assert_eq!(
            error.to_string(),
            "not found: together get_cluster answered HTTP 404: no such\\ncluster"
        );
    }
}
