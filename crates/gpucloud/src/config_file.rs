//! The configuration file (`$GPUCLOUD_CONFIG`, else `$XDG_CONFIG_HOME/gpucloud/config.toml`,
//! else `~/.config/gpucloud/config.toml`): per-provider defaults of a request (SSH keys in each
//! provider's own form, E2E's security group, preferred regions, a base URL), a price book for
//! the offerings a provider states no price for, and currency rates. The command line reads it;
//! a program loads it with [`ConfigFile::load_default`] and applies it with
//! [`ConfigFile::apply`] and [`ConfigFile::pricing`].
//!
//! **Credentials are never read from it**: they stay in the environment, and a key that looks
//! like one (`api_key`, `token`, `secret`, `password`, …) is refused with its line, so a file
//! that may be shared or committed never holds one.
//!
//! ```toml
//! [e2e]
//! ssh_keys = ["101"]          # E2E's numeric key ids
//! security_group_id = 7
//! preferred_regions = ["Delhi"]  # tried first when a request names no region
//!
//! [runcrate]
//! ssh_keys = ["3fa85f64-5717-4562-b3fc-2c963f66afa6"]
//!
//! [pricing]
//! stale_after_days = 90
//!
//! [[price_book]]
//! provider = "together"
//! gpu_model = "H100"
//! region = "*"               # every region
//! billing = "on_demand"      # or "reserved"
//! per_gpu_hour = 2.99        # or per_node_hour
//! currency = "USD"
//! source = "https://www.together.ai/pricing"
//! as_of = "2026-11-01"
//!
//! [rates.INR]
//! USD = 0.01198              # one INR is 0.01198 USD
//! as_of = "2026-12-01"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::catalog::pricing::check_currency;
use crate::catalog::{BookAmount, BookEntry, Pricing, Rate};
use crate::cluster::ProviderKind;
use crate::spec::ClusterSpec;

pub use crate::provider_defaults::ProviderDefaults;

/// The variable that names the configuration file.
pub const CONFIG_ENV: &str = "GPUCLOUD_CONFIG";

/// The largest configuration file read (a price book of thousands of entries fits).
const MAX_BYTES: u64 = 1024 * 1024;

/// A configuration file, read and checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ConfigFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Each provider's section.
    pub providers: BTreeMap<ProviderKind, ProviderDefaults>,
    /// The price book and rates.
    pub pricing: Pricing,
    /// Price book entries older than `stale_after_days`, each `path:line`: used, and shown
    /// stale wherever their price is.
    pub stale: Vec<String>,
}

/// A configuration file that could not be used: the file, the line where known, the field,
/// and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigFileError {
    /// The file.
    pub path: PathBuf,
    /// The line (1-based), where known.
    pub line: Option<usize>,
    /// The field (`price_book[2].currency`), or `file`.
    pub field: String,
    /// Why.
    pub message: String,
}

impl std::fmt::Display for ConfigFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigFileError {}

/// The file's sections as written (any other top-level name must be a provider's section).
#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    pricing: Option<RawPricing>,
    #[serde(default)]
    price_book: Vec<toml::Spanned<RawEntry>>,
    #[serde(default)]
    rates: BTreeMap<String, toml::Spanned<BTreeMap<String, toml::Value>>>,
    #[serde(flatten)]
    providers: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPricing {
    stale_after_days: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    provider: String,
    gpu_model: String,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    billing: Option<String>,
    #[serde(default)]
    per_gpu_hour: Option<f64>,
    #[serde(default)]
    per_node_hour: Option<f64>,
    currency: String,
    source: String,
    as_of: String,
}

impl ConfigFile {
    /// The file a run reads: `$GPUCLOUD_CONFIG` if set, else
    /// `$XDG_CONFIG_HOME/gpucloud/config.toml` (absolute), else
    /// `$HOME/.config/gpucloud/config.toml`; `None` without any of them.
    pub fn default_path() -> Option<PathBuf> {
        path_from(|name| std::env::var_os(name))
    }

    /// The file [`Self::default_path`] names, read and checked; `None` when it is the default
    /// location and no file is there (a file `$GPUCLOUD_CONFIG` names must exist).
    pub fn load_default() -> Result<Option<Self>, ConfigFileError> {
        let named = std::env::var_os(CONFIG_ENV).is_some_and(|v| !v.is_empty());
        match Self::default_path() {
            Some(path) if named || path.exists() => Self::load(&path).map(Some),
            _ => Ok(None),
        }
    }

    /// The file at `path`, read (at most 1 MiB) and checked.
    pub fn load(path: &Path) -> Result<Self, ConfigFileError> {
        let fail = |message: String| ConfigFileError {
            path: path.to_path_buf(),
            line: None,
            field: "file".into(),
            message,
        };
        let size = std::fs::metadata(path)
            .map_err(|e| fail(format!("cannot be read: {e}")))?
            .len();
        if size > MAX_BYTES {
            return Err(fail(format!(
                "is {size} bytes, over the {MAX_BYTES}-byte limit"
            )));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot be read: {e}")))?;
        Self::parse(path, &text)
    }

    /// `text` as the file at `path` (named in every error).
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigFileError> {
        let at = |line: Option<usize>, field: &str, message: String| ConfigFileError {
            path: path.to_path_buf(),
            line,
            field: field.to_string(),
            message,
        };
        refuse_credentials(text).map_err(|(line, key)| {
            at(
                Some(line),
                &key,
                "looks like a credential, and credentials are never read from this file: they \
                 stay in the environment (TOGETHER_API_KEY, RUNCRATE_API_KEY, E2E_API_KEY, \
                 E2E_AUTH_TOKEN); remove it"
                    .into(),
            )
        })?;
        let raw: Raw = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            at(line, "file", e.message().to_string())
        })?;
        let mut providers = BTreeMap::new();
        for (name, section) in raw.providers {
            let line = section_line(text, &name);
            let provider: ProviderKind = name.parse().map_err(|_| {
                at(
                    line,
                    &name,
                    format!(
                        "is neither a provider ({}) nor pricing, price_book or rates",
                        ProviderKind::ALL.map(ProviderKind::as_str).join(", ")
                    ),
                )
            })?;
            let defaults: ProviderDefaults = section
                .try_into()
                .map_err(|e: toml::de::Error| at(line, &name, e.message().to_string()))?;
            providers.insert(provider, defaults);
        }
        let stale_after = raw
            .pricing
            .and_then(|p| p.stale_after_days)
            .map(|days| Duration::from_secs(u64::from(days) * 24 * 3600));
        let mut book = Vec::new();
        let mut stale = Vec::new();
        for (i, spanned) in raw.price_book.into_iter().enumerate() {
            let line = line_of(text, spanned.span().start);
            let field = |name: &str| format!("price_book[{i}].{name}");
            let entry = book_entry(spanned.into_inner())
                .map_err(|(name, message)| at(Some(line), &field(name), message))?;
            if let Some(limit) = stale_after
                && crate::catalog::pricing::older_than(entry.as_of, limit)
            {
                stale.push(format!("{}:{line}", path.display()));
            }
            book.push(entry);
        }
        let mut rates = Vec::new();
        for (from, spanned) in raw.rates {
            let line = Some(line_of(text, spanned.span().start));
            let field = format!("rates.{from}");
            let table = spanned.into_inner();
            check_currency(&from).map_err(|m| at(line, &field, m))?;
            let as_of = match table.get("as_of") {
                Some(toml::Value::String(day)) => parse_day(day),
                _ => Err("needs `as_of = \"YYYY-MM-DD\"`, the day the rate was read".into()),
            }
            .map_err(|m| at(line, &format!("{field}.as_of"), m))?;
            for (to, value) in table.iter().filter(|(k, _)| *k != "as_of") {
                let field = format!("{field}.{to}");
                check_currency(to).map_err(|m| at(line, &field, m))?;
                let rate = value
                    .as_float()
                    .or_else(|| value.as_integer().map(|i| i as f64))
                    .filter(|r| r.is_finite() && *r > 0.0)
                    .ok_or_else(|| {
                        at(
                            line,
                            &field,
                            "must be a number above 0 (units of it per unit)".into(),
                        )
                    })?;
                rates.push(Rate::new(from.clone(), to.clone(), rate, as_of));
            }
        }
        let mut pricing = Pricing::new(book, rates);
        if let Some(limit) = stale_after {
            pricing = pricing.with_stale_after(limit);
        }
        Ok(Self {
            path: path.to_path_buf(),
            providers,
            pricing,
            stale,
        })
    }

    /// `provider`'s section, if the file has one.
    pub fn defaults(&self, provider: ProviderKind) -> Option<&ProviderDefaults> {
        self.providers.get(&provider)
    }

    /// Applies `provider`'s section to `spec` where the request sets nothing itself (SSH keys,
    /// and the provider's own defaults such as E2E's security group); returns what was
    /// applied, for a plan to say.
    pub fn apply(&self, provider: ProviderKind, spec: &mut ClusterSpec) -> Vec<String> {
        let Some(defaults) = self.defaults(provider) else {
            return Vec::new();
        };
        let mut applied = Vec::new();
        if spec.ssh_keys.is_empty() && !defaults.ssh_keys.is_empty() {
            spec.ssh_keys.clone_from(&defaults.ssh_keys);
            applied.push(format!(
                "ssh_keys from {} [{provider}]",
                self.path.display()
            ));
        }
        if spec.region.is_none()
            && spec.preferred_regions.is_empty()
            && !defaults.preferred_regions.is_empty()
        {
            spec.preferred_regions
                .clone_from(&defaults.preferred_regions);
            applied.push(format!(
                "preferred_regions from {} [{provider}]",
                self.path.display()
            ));
        }
        applied.extend(
            (provider.profile().apply_defaults)(defaults, spec)
                .into_iter()
                .map(|what| format!("{what} from {} [{provider}]", self.path.display())),
        );
        applied
    }
}

/// The default path with the environment given as a function.
fn path_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(path) = set(CONFIG_ENV) {
        return Some(path);
    }
    set("XDG_CONFIG_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| {
            set("HOME")
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".config"))
        })
        .map(|dir| dir.join("gpucloud").join("config.toml"))
}

/// The line of the `[name]` header (or of the first `name.…` key) in `text`.
fn section_line(text: &str, name: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim();
            line == format!("[{name}]")
                || line.starts_with(&format!("[{name}."))
                || line.starts_with(&format!("{name}."))
                || line.starts_with(&format!("{name} ="))
                || line.starts_with(&format!("{name}="))
        })
        .map(|i| i + 1)
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

/// The first key that names a credential, and its line: `api_key`, `apikey`, `token`,
/// `secret`, `password`, `auth` (whatever else the key says), anywhere in the file.
fn refuse_credentials(text: &str) -> Result<(), (usize, String)> {
    const WORDS: [&str; 7] = [
        "api_key", "apikey", "api-key", "token", "secret", "password", "auth",
    ];
    for (i, line) in text.lines().enumerate() {
        // Keys: at the start of a line, or after `{` or `,` in an inline table.
        let code = line.split('#').next().unwrap_or("");
        for part in code.split(['{', ',']) {
            let Some((key, _)) = part.split_once('=') else {
                continue;
            };
            let key = key.trim().trim_matches('"').to_ascii_lowercase();
            if WORDS.iter().any(|w| key.contains(w)) {
                return Err((i + 1, key));
            }
        }
    }
    Ok(())
}

/// A price book entry as written, checked; `Err` names the field and why.
fn book_entry(raw: RawEntry) -> Result<BookEntry, (&'static str, String)> {
    let provider: ProviderKind = raw.provider.parse().map_err(|_| {
        (
            "provider",
            format!(
                "{:?} is not one of {}",
                raw.provider,
                ProviderKind::ALL.map(ProviderKind::as_str).join(", ")
            ),
        )
    })?;
    if raw.gpu_model.trim().is_empty() {
        return Err(("gpu_model", "is empty".into()));
    }
    let amount = match (raw.per_gpu_hour, raw.per_node_hour) {
        (Some(a), None) => {
            BookAmount::PerGpuHour(check_amount(a).map_err(|m| ("per_gpu_hour", m))?)
        }
        (None, Some(a)) => {
            BookAmount::PerNodeHour(check_amount(a).map_err(|m| ("per_node_hour", m))?)
        }
        _ => {
            return Err((
                "per_gpu_hour",
                "give exactly one of per_gpu_hour and per_node_hour".into(),
            ));
        }
    };
    check_currency(&raw.currency).map_err(|m| ("currency", m))?;
    if raw.source.trim().is_empty() {
        return Err(("source", "is empty: say where the price comes from".into()));
    }
    let as_of = parse_day(&raw.as_of).map_err(|m| ("as_of", m))?;
    let reserved = match raw.billing.as_deref() {
        None | Some("on_demand") => false,
        Some("reserved") => true,
        Some(other) => {
            return Err(("billing", format!("{other:?} is not on_demand or reserved")));
        }
    };
    let mut entry = BookEntry::new(
        provider,
        raw.gpu_model,
        amount,
        raw.currency,
        raw.source,
        as_of,
    );
    if let Some(region) = raw.region.filter(|r| r != "*") {
        entry = entry.in_region(region);
    }
    if reserved {
        entry = entry.reserved();
    }
    Ok(entry)
}

fn check_amount(amount: f64) -> Result<f64, String> {
    if amount.is_finite() && amount >= 0.0 {
        Ok(amount)
    } else {
        Err(format!(
            "must be a finite amount of at least 0, not {amount}"
        ))
    }
}

fn parse_day(day: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .map_err(|_| format!("{day:?} is not a day (YYYY-MM-DD)"))
}

#[cfg(test)]
mod tests;
