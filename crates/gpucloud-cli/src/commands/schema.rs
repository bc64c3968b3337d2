//! `gpucloud schema request`: the JSON Schema of request files (`-f FILE`), generated from the
//! facade's `ClusterSpec` (schemars), with its doc comments as descriptions.
//!
//! Editors use it to complete and check request files: YAML through
//! `# yaml-language-server: $schema=…`, TOML through taplo (see the README).

use clap::{Args, ValueEnum};
use gpucloud::ClusterSpec;

use crate::error::CliError;
use crate::output;

/// Which schema to print.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The file format: `request` is a request file for `clusters create -f` and `plan -f`.
    #[arg(value_enum)]
    pub what: SchemaKind,
}

/// The file formats that have a schema.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaKind {
    /// A request file (TOML, YAML or JSON): the facade's `ClusterSpec`.
    Request,
}

/// The schema's `$id`: where the repository keeps a copy, for editors that want a URL.
const REQUEST_SCHEMA_ID: &str = "urn:gpucloud:schema:request:v1";

/// The JSON Schema of `what`, as a JSON value.
pub fn schema(what: SchemaKind) -> Result<serde_json::Value, CliError> {
    let mut schema = match what {
        SchemaKind::Request => serde_json::to_value(schemars::schema_for!(ClusterSpec))
            .map_err(|e| CliError::Other(format!("cannot encode the schema: {e}")))?,
    };
    if let Some(object) = schema.as_object_mut() {
        object.insert("$id".into(), REQUEST_SCHEMA_ID.into());
        object.insert("title".into(), "gpucloud request file".into());
    }
    Ok(schema)
}

/// Prints the schema as pretty JSON on stdout.
pub fn run(args: &SchemaArgs) -> Result<(), CliError> {
    output::json(&schema(args.what)?)
}
