//! `gpucloud schema request`: the JSON Schema of request files (`-f FILE`), generated from the
//! facade's `ClusterSpec` (schemars), with its doc comments as descriptions.
//! `gpucloud schema output COMMAND`: the JSON Schema of what `gpucloud --json COMMAND` prints,
//! success and failure, from the files of `schemas/output/` (one per command, and the
//! definitions they share), composed here so that the failure document is written once.
//!
//! Editors use the request schema to complete and check request files: YAML through
//! `# yaml-language-server: $schema=…`, TOML through taplo (see the README).

use clap::{Args, ValueEnum};
use gpucloud::ClusterSpec;

use crate::error::CliError;
use crate::output;

/// Which schema to print.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// `request`: a request file for `clusters create -f` and `plan -f`; `output`: what
    /// `--json` prints for COMMAND.
    #[arg(value_enum)]
    pub what: SchemaKind,
    /// With `output`: the command, as its words (`clusters create`, `plan`).
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The formats that have a schema.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaKind {
    /// A request file (TOML, YAML or JSON): the facade's `ClusterSpec`.
    Request,
    /// A command's `--json` document, success and failure.
    Output,
}

/// Each command's `--json` success document (`schemas/output/<words joined by ->.json`).
pub const OUTPUTS: &[(&str, &str)] = &[
    ("catalog", include_str!("../../schemas/output/catalog.json")),
    (
        "clusters create",
        include_str!("../../schemas/output/clusters-create.json"),
    ),
    (
        "clusters delete",
        include_str!("../../schemas/output/clusters-delete.json"),
    ),
    (
        "clusters get",
        include_str!("../../schemas/output/clusters-get.json"),
    ),
    (
        "clusters kubeconfig",
        include_str!("../../schemas/output/clusters-kubeconfig.json"),
    ),
    (
        "clusters list",
        include_str!("../../schemas/output/clusters-list.json"),
    ),
    (
        "clusters resize",
        include_str!("../../schemas/output/clusters-resize.json"),
    ),
    (
        "clusters ssh",
        include_str!("../../schemas/output/clusters-ssh.json"),
    ),
    (
        "clusters sweep",
        include_str!("../../schemas/output/clusters-sweep.json"),
    ),
    (
        "clusters wait",
        include_str!("../../schemas/output/clusters-wait.json"),
    ),
    (
        "completions",
        include_str!("../../schemas/output/completions.json"),
    ),
    (
        "config show",
        include_str!("../../schemas/output/config-show.json"),
    ),
    ("demo", include_str!("../../schemas/output/demo.json")),
    ("ledger", include_str!("../../schemas/output/ledger.json")),
    ("offers", include_str!("../../schemas/output/offers.json")),
    ("plan", include_str!("../../schemas/output/plan.json")),
    ("schema", include_str!("../../schemas/output/schema.json")),
    ("sim", include_str!("../../schemas/output/sim.json")),
];

/// What every command's schema shares: the cluster, an attempt, the failure document.
const SHARED: &str = include_str!("../../schemas/output/defs.json");

/// The schema's `$id`: where the repository keeps a copy, for editors that want a URL.
const REQUEST_SCHEMA_ID: &str = "urn:gpucloud:schema:request:v1";

/// The JSON Schema of request files, as a JSON value.
pub fn schema(what: SchemaKind) -> Result<serde_json::Value, CliError> {
    let mut schema = match what {
        SchemaKind::Request => serde_json::to_value(schemars::schema_for!(ClusterSpec))
            .map_err(|e| CliError::Other(format!("cannot encode the schema: {e}")))?,
        SchemaKind::Output => {
            return Err(CliError::Usage(
                "schema output needs a COMMAND (`gpucloud schema output clusters create`)".into(),
            ));
        }
    };
    if let Some(object) = schema.as_object_mut() {
        object.insert("$id".into(), REQUEST_SCHEMA_ID.into());
        object.insert("title".into(), "gpucloud request file".into());
    }
    Ok(schema)
}

/// The JSON Schema of `gpucloud --json COMMAND`'s document: a failure (an object with its
/// `error`) is the shared failure document, whose `result` is what the command found (or,
/// for an interrupted run, what was at stake); anything else is the command's own.
pub fn output_schema(command: &str) -> Result<serde_json::Value, CliError> {
    let Some((name, own)) = OUTPUTS.iter().find(|(name, _)| *name == command) else {
        return Err(CliError::Usage(format!(
            "no command {command:?} prints JSON; the commands are: {}",
            OUTPUTS
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    let parse = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .map_err(|e| CliError::Other(format!("the built-in schema of {name} is broken: {e}")))
    };
    let mut defs = parse(SHARED)?;
    let own = parse(own)?;
    let Some(shared) = defs.as_object_mut() else {
        return Err(CliError::Other(
            "the built-in shared schema is not an object".into(),
        ));
    };
    shared.insert("result".into(), own);
    if let Some(result) = shared
        .get_mut("failure")
        .and_then(|failure| failure.pointer_mut("/properties/result"))
    {
        *result = serde_json::json!({
            "description": "What the command had found before it failed (its own document), \
                            or what an interrupted run left at stake.",
            "anyOf": [{"$ref": "#/$defs/result"}, {"$ref": "#/$defs/interrupted"}]
        });
    }
    Ok(serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("urn:gpucloud:schema:output:{}:v1", name.replace(' ', "-")),
        "title": format!("gpucloud --json {name}"),
        "description": "One JSON document on stdout: a failure is an object with its `error`; \
                        any other document is the command's result. Fields are only added \
                        between versions, never renamed or removed.",
        "if": {"type": "object", "required": ["error"]},
        "then": {"$ref": "#/$defs/failure"},
        "else": {"$ref": "#/$defs/result"},
        "$defs": defs
    }))
}

/// Prints the schema as pretty JSON on stdout.
pub fn run(args: &SchemaArgs) -> Result<(), CliError> {
    match args.what {
        SchemaKind::Output => output::json(&output_schema(&args.command.join(" "))?),
        SchemaKind::Request if !args.command.is_empty() => {
            Err(CliError::Usage("schema request takes no COMMAND".into()))
        }
        SchemaKind::Request => output::json(&schema(args.what)?),
    }
}
