//! `gpucloud config show`: the settings a run would use and where each comes from (the
//! configuration file, a variable, a default); credentials are said set or not, never shown.

use clap::{Args, Subcommand};
use gpucloud::ProviderKind;
use gpucloud::catalog::BookAmount;
use serde::Serialize;

use crate::context::Context;
use crate::error::CliError;
use crate::sanitize::cell;
use crate::table::{render, table};

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// The effective settings, and where each came from.
    Show,
}

/// One setting, its value and where it came from.
#[derive(Serialize)]
struct Setting {
    /// `gpucloud`, or a provider.
    scope: String,
    name: String,
    value: String,
    from: String,
}

/// `config show --json`.
#[derive(Serialize)]
struct Shown {
    /// The configuration file read, if any.
    file: Option<String>,
    settings: Vec<Setting>,
    /// The price book, first match wins.
    price_book: Vec<gpucloud::catalog::BookEntry>,
    rates: Vec<gpucloud::catalog::Rate>,
    /// Price book entries older than their file's `stale_after_days` (`path:line`).
    stale: Vec<String>,
}

pub fn run(ctx: &Context, args: &ConfigArgs) -> Result<(), CliError> {
    let ConfigCommand::Show = args.command;
    let config = ctx.config()?;
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let file = config.map(|c| c.path.display().to_string());
    let mut settings = vec![Setting {
        scope: "gpucloud".into(),
        name: "configuration file".into(),
        value: file.clone().unwrap_or_else(|| "none".into()),
        from: if env(gpucloud::config_file::CONFIG_ENV).is_some() {
            gpucloud::config_file::CONFIG_ENV.into()
        } else if file.is_some() {
            "--config, or the default location".into()
        } else {
            "no file at the default location".into()
        },
    }];
    settings.push(Setting {
        scope: "gpucloud".into(),
        name: "ledger".into(),
        value: gpucloud_ledger::default_path()
            .map_or_else(|e| format!("none ({e})"), |p| p.display().to_string()),
        from: if env(gpucloud_ledger::LEDGER_ENV).is_some() {
            gpucloud_ledger::LEDGER_ENV.into()
        } else {
            "the default location".into()
        },
    });
    for provider in ProviderKind::ALL {
        let profile = provider.profile();
        let scope = provider.to_string();
        let section = config.and_then(|c| c.defaults(provider));
        let from_file =
            |what: &str| format!("{} [{provider}] {what}", file.as_deref().unwrap_or(""));
        for variable in profile.credential_variables {
            settings.push(Setting {
                scope: scope.clone(),
                name: "credential".into(),
                value: if env(variable).is_some() {
                    "set (never shown)".into()
                } else {
                    "not set".into()
                },
                from: (*variable).into(),
            });
        }
        for variable in profile.setting_variables {
            settings.push(Setting {
                scope: scope.clone(),
                name: variable.to_ascii_lowercase(),
                value: env(variable).map_or_else(|| "not set".into(), |v| cell(&v)),
                from: (*variable).into(),
            });
        }
        let (base_url, from) = match (
            env(profile.base_url_variable),
            section.and_then(|s| s.base_url.clone()),
        ) {
            (Some(url), _) => (url, profile.base_url_variable.to_string()),
            (None, Some(url)) => (url, from_file("base_url")),
            (None, None) => (profile.default_base_url.to_string(), "the default".into()),
        };
        settings.push(Setting {
            scope: scope.clone(),
            name: "base_url".into(),
            value: cell(&base_url),
            from,
        });
        if let Some(section) = section {
            for (name, list) in [
                ("ssh_keys", &section.ssh_keys),
                ("preferred_regions", &section.preferred_regions),
            ] {
                if !list.is_empty() {
                    settings.push(Setting {
                        scope: scope.clone(),
                        name: name.into(),
                        value: list.iter().map(cell).collect::<Vec<_>>().join(", "),
                        from: from_file(name),
                    });
                }
            }
            if let Some(group) = section.security_group_id {
                settings.push(Setting {
                    scope: scope.clone(),
                    name: "security_group_id".into(),
                    value: group.to_string(),
                    from: from_file("security_group_id"),
                });
            }
        }
        if !profile.takes_ssh_keys {
            settings.push(Setting {
                scope,
                name: "access".into(),
                value: "kubeconfig (takes no SSH keys)".into(),
                from: "the provider".into(),
            });
        }
    }
    let prices = super::placement::prices(config, None)?;
    if let Some((path, named_by)) = &prices.book_file {
        settings.push(Setting {
            scope: "gpucloud".into(),
            name: "price book file".into(),
            value: cell(path.display().to_string()),
            from: (*named_by).into(),
        });
    }
    let shown = Shown {
        file,
        settings,
        price_book: prices.pricing.book,
        rates: prices.pricing.rates,
        stale: prices.stale,
    };
    for at in &shown.stale {
        tell!(
            "warning: {}: price book entry older than its file's stale_after_days: shown STALE wherever its price is",
            cell(at)
        );
    }
    ctx.output().result(&shown, print)
}

fn print(shown: &Shown) {
    let mut list = table(&["scope", "setting", "value", "from"]);
    for s in &shown.settings {
        list.add_row([
            s.scope.clone(),
            s.name.clone(),
            s.value.clone(),
            cell(&s.from),
        ]);
    }
    say!("{}", render(&mut list));
    if !shown.price_book.is_empty() {
        let mut book = table(&[
            "provider",
            "gpu model",
            "region",
            "price",
            "source",
            "as of",
        ]);
        for e in &shown.price_book {
            let price = match e.amount {
                BookAmount::PerGpuHour(a) => format!("{a:.2} {}/GPU-hour", cell(&e.currency)),
                BookAmount::PerNodeHour(a) => format!("{a:.2} {}/node-hour", cell(&e.currency)),
            };
            book.add_row([
                e.provider.to_string(),
                cell(&e.gpu_model),
                e.region.as_deref().map_or_else(|| "*".into(), cell),
                price,
                cell(&e.source),
                e.as_of.to_string(),
            ]);
        }
        say!("\nPrice book (first match wins):\n{}", render(&mut book));
    }
    if !shown.rates.is_empty() {
        let mut rates = table(&["from", "to", "rate", "as of"]);
        for r in &shown.rates {
            rates.add_row([
                cell(&r.from),
                cell(&r.to),
                r.rate.to_string(),
                r.as_of.to_string(),
            ]);
        }
        say!("\nRates:\n{}", render(&mut rates));
    }
}
