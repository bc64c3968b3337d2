//! A [`ClusterSpec`] from flags or from a request file.
//!
//! Request files are the facade's `ClusterSpec` itself (serde, unknown fields rejected), in
//! TOML, YAML or JSON by extension; see `tests/fixtures/` for one of each. Files are read
//! through [`input::read_text`]: regular files of at most 1 MiB.

use std::path::Path;

use gpucloud::{Billing, ClusterSize, ClusterSpec, ProviderKind, SharedStorage};

use crate::error::CliError;
use crate::flags::request::{RequestArgs, SpecFlags};
use crate::input;

/// The request the flags or the file describe, for `providers` (one, or the candidates of a
/// placement: each provider's flags go into its own options).
pub fn spec(providers: &[ProviderKind], args: &RequestArgs) -> Result<ClusterSpec, CliError> {
    let mut spec = match &args.file {
        Some(path) => {
            let mut spec = from_file(path)?;
            if let Some(name) = &args.name {
                spec.name.clone_from(name);
            }
            spec
        }
        None => from_flags(providers, args)?,
    };
    if let Some(ttl) = args.ttl {
        spec.ttl = Some(ttl);
    }
    spec.adopt |= args.adopt;
    spec.ttl_by_provider |= args.ttl_by_provider;
    Ok(spec)
}

/// Reads a request file; the format follows the extension.
pub fn from_file(path: &Path) -> Result<ClusterSpec, CliError> {
    let shown = path.display();
    let text = input::read_text(path, "request file")?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let parsed = match extension.as_deref() {
        Some("toml") => toml::from_str(&text).map_err(|e| toml_error(&text, &e)),
        Some("yaml" | "yml") => serde_saphyr::from_str(&text).map_err(|e| yaml_error(&e)),
        Some("json") => serde_json::from_str(&text).map_err(|e| e.to_string()),
        _ => {
            return Err(CliError::Input(format!(
                "request file {shown}: cannot tell its format; name it .toml, .yaml, .yml or .json"
            )));
        }
    };
    parsed.map_err(|problem| CliError::Input(format!("request file {shown}: {problem}")))
}

/// toml's `Display` draws a multi-line snippet; one line with a position (as serde_json and
/// serde-saphyr say it) reads better here.
fn toml_error(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim_end_matches('.');
    match error.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{message} at line {line}, column {column}")
        }
        None => message.to_string(),
    }
}

/// serde-saphyr's `Display` adds a snippet too; its message without one is `error: line 4
/// column 1: …`.
fn yaml_error(error: &serde_saphyr::Error) -> String {
    let text = error.without_snippet().to_string();
    text.strip_prefix("error: ").unwrap_or(&text).to_string()
}

fn from_flags(providers: &[ProviderKind], args: &RequestArgs) -> Result<ClusterSpec, CliError> {
    reject_foreign_flags(providers, args)?;
    let flags = &args.spec;
    let name = args
        .name
        .clone()
        .ok_or_else(|| CliError::Usage("--name is required without --file".into()))?;
    let size = match (flags.gpus, flags.nodes) {
        (Some(gpus), _) => ClusterSize::Gpus(gpus),
        (None, Some(nodes)) => ClusterSize::Nodes(nodes),
        (None, None) => {
            return Err(CliError::Usage(
                "--gpus (Together) or --nodes (Runcrate, E2E) is required without --file".into(),
            ));
        }
    };
    let mut spec = ClusterSpec::new(name, size)
        .with_billing(billing(flags))
        .with_ssh_keys(flags.ssh_keys.iter().cloned());
    spec.gpu_model = flags.gpu_model.clone();
    spec.region = flags.region.clone();
    spec.preferred_regions = flags.preferred_regions.clone();
    spec.stack = flags.stack.map(Into::into);
    spec.shared_storage = match (&flags.volume, &flags.new_volume, flags.new_volume_tib) {
        (Some(id), _, _) => Some(SharedStorage::Existing { id: id.clone() }),
        (None, Some(name), Some(size_tib)) => Some(SharedStorage::New {
            name: name.clone(),
            size_tib,
        }),
        _ => None,
    };
    for provider in providers {
        spec = match provider {
            ProviderKind::Together => spec.with_options(args.together.options()),
            ProviderKind::Runcrate => spec.with_options(args.runcrate.options()),
            ProviderKind::E2e => spec.with_options(args.e2e.options()?),
        };
    }
    Ok(spec)
}

fn billing(flags: &SpecFlags) -> Billing {
    match (
        flags.reserved_days,
        flags.scheduled_start,
        flags.scheduled_end,
    ) {
        (Some(days), _, _) => Billing::Reserved { days },
        (None, Some(start), Some(end)) => Billing::Scheduled { start, end },
        _ => Billing::OnDemand,
    }
}

/// An option of a provider not asked for is a mistake (a copied command line), not
/// something to drop.
fn reject_foreign_flags(providers: &[ProviderKind], args: &RequestArgs) -> Result<(), CliError> {
    let given = [
        (ProviderKind::Together, args.together.first_given()),
        (ProviderKind::Runcrate, args.runcrate.first_given()),
        (ProviderKind::E2e, args.e2e.first_given()),
    ];
    for (owner, flag) in given {
        if let Some(flag) = flag
            && !providers.contains(&owner)
        {
            let asked: Vec<String> = providers.iter().map(ToString::to_string).collect();
            return Err(CliError::Usage(format!(
                "{flag} is a {owner} option; it cannot be used with --provider {}",
                asked.join(",")
            )));
        }
    }
    Ok(())
}

/// `error` in the user's words: a provider's validation error names the fields of the
/// provider's request (`security_group_id`); each is followed by what the user sets for it
/// (`--security-group-id`, or the configuration file's key). Any other error is left as it is.
pub fn in_users_words(error: &mut gpucloud::Error) {
    let gpucloud::Error::Validation(invalid) = error else {
        return;
    };
    if let Some(set) = set_with(invalid.provider, &invalid.field) {
        invalid.rule = format!("{}; {set}", invalid.rule);
    }
}

/// A placement attempt's reason in the user's words, as [`in_users_words`] does for the
/// error it was made from (`invalid request: PROVIDER: FIELDS: …`).
pub fn reason_in_users_words(
    provider: ProviderKind,
    kind: gpucloud::ErrorKind,
    reason: &mut String,
) {
    if kind != gpucloud::ErrorKind::Validation {
        return;
    }
    let prefix = format!("invalid request: {provider}: ");
    let Some(fields) = reason
        .strip_prefix(&prefix)
        .and_then(|rest| rest.split_once(": "))
        .map(|(fields, _)| fields.to_string())
    else {
        return;
    };
    if let Some(set) = set_with(provider, &fields) {
        reason.push_str("; ");
        reason.push_str(&set);
    }
}

/// `set FIELD with FLAG; …` for each of `fields` (`a, b`) a flag or key sets.
fn set_with(provider: ProviderKind, fields: &str) -> Option<String> {
    let each: Vec<String> = fields
        .split(", ")
        .filter_map(|field| Some(format!("{field} with {}", flag_for(provider, field)?)))
        .collect();
    (!each.is_empty()).then(|| format!("set {}", each.join("; ")))
}

/// What a user sets for `provider`'s request field `field`.
fn flag_for(provider: ProviderKind, field: &str) -> Option<&'static str> {
    match provider {
        ProviderKind::Together => crate::providers::together::flag_for(field),
        ProviderKind::Runcrate => crate::providers::runcrate::flag_for(field),
        ProviderKind::E2e => crate::providers::e2e::flag_for(field),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, ClustersCommand, Command};

    fn parse(args: &[&str]) -> RequestArgs {
        let cli = Cli::try_parse_from(["gpucloud", "clusters", "create"].iter().chain(args))
            .unwrap_or_else(|e| panic!("{e}"));
        match cli.command {
            Command::Clusters(ClustersCommand::Create(create)) => create.request,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn flags_build_the_provider_options() {
        let args = parse(&[
            "-p",
            "together",
            "--name",
            "t",
            "--gpus",
            "16",
            "--gpu-model",
            "H100_SXM",
            "--reserved-days",
            "30",
            "--auto-scale-max-gpus",
            "32",
        ]);
        let spec = spec(&[ProviderKind::Together], &args).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.size, ClusterSize::Gpus(16));
        assert_eq!(spec.billing, Billing::Reserved { days: 30 });
        let Some(options) = spec.options.together else {
            panic!("{:?}", spec.options)
        };
        assert!(options.auto_scale);
        assert_eq!(options.auto_scale_max_gpus, Some(32));
    }

    #[test]
    fn a_foreign_option_is_a_usage_error() {
        let args = parse(&[
            "-p",
            "together",
            "--name",
            "t",
            "--gpus",
            "8",
            "--offer-id",
            "x",
        ]);
        let error = spec(&[ProviderKind::Together], &args).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--offer-id is a runcrate option; it cannot be used with --provider together"
        );
    }

    #[test]
    fn toml_errors_are_one_line_with_a_position() {
        let text = "name = \"x\"\nsize = { gpus = 8 }\ncolour = 1\n";
        let error = toml::from_str::<ClusterSpec>(text).unwrap_err();
        let line = toml_error(text, &error);
        assert!(line.starts_with("unknown field `colour`"), "{line}");
        assert!(line.ends_with("at line 3, column 1"), "{line}");
    }
}
