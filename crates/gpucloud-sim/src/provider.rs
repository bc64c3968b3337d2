//! The three simulated providers and where each one lives on the simulator's single port.

use std::fmt;
use std::str::FromStr;

/// A simulated provider. Each is served under its own path prefix on the one port, so one
/// simulator replaces all three APIs at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provider {
    /// Together AI Instant Clusters (`/together/v1`).
    Together,
    /// Runcrate clusters (`/runcrate/api/v1`).
    Runcrate,
    /// E2E Networks TIR training clusters (`/e2e/myaccount/api/v1/gpu`).
    E2e,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Self; 3] = [Self::Together, Self::Runcrate, Self::E2e];

    /// The lower-case name (`together`, `runcrate`, `e2e`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Together => "together",
            Self::Runcrate => "runcrate",
            Self::E2e => "e2e",
        }
    }

    /// The path prefix standing in for the provider's host and base path. It keeps each
    /// provider's own base path (`/v1`, `/api/v1`, `/myaccount/api/v1/gpu`) after its name, so
    /// only the host part of a real base URL changes.
    pub fn path_prefix(self) -> &'static str {
        match self {
            Self::Together => "/together/v1",
            Self::Runcrate => "/runcrate/api/v1",
            Self::E2e => "/e2e/myaccount/api/v1/gpu",
        }
    }

    /// The provider whose prefix starts `path`, with the rest of the path.
    pub(crate) fn split_path(path: &str) -> Option<(Self, &str)> {
        Self::ALL.into_iter().find_map(|provider| {
            let rest = path.strip_prefix(provider.path_prefix())?;
            (rest.is_empty() || rest.starts_with('/')).then_some((provider, rest))
        })
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`Provider`] name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {0:?} (expected together, runcrate or e2e)")]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownProvider(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_prefixes_split() {
        for provider in Provider::ALL {
            assert_eq!(provider.to_string().parse::<Provider>(), Ok(provider));
        }
        assert_eq!("E2E".parse::<Provider>(), Ok(Provider::E2e));
        assert!("aws".parse::<Provider>().is_err());
        assert_eq!(
            Provider::split_path("/runcrate/api/v1/clusters/offers"),
            Some((Provider::Runcrate, "/clusters/offers"))
        );
        assert_eq!(Provider::split_path("/together/v10/x"), None);
        assert_eq!(Provider::split_path("/nothing"), None);
    }
}
