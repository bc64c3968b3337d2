//! The providers we generate clients for: which spec feeds which crate.

/// One generated client crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// Name used on the command line (`--provider together`).
    pub name: &'static str,
    /// Spec path, relative to the workspace root.
    pub spec: &'static str,
    /// Crate directory, relative to the workspace root.
    pub crate_dir: &'static str,
}

impl Provider {
    /// The generated file, relative to the workspace root.
    pub fn generated_file(&self) -> String {
        format!("{}/src/generated.rs", self.crate_dir)
    }
}

/// Every provider, in the order codegen runs them.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "together",
        spec: "specs/together.yaml",
        crate_dir: "crates/gpucloud-together",
    },
    Provider {
        name: "runcrate",
        spec: "specs/runcrate.yaml",
        crate_dir: "crates/gpucloud-runcrate",
    },
    Provider {
        name: "e2e",
        spec: "specs/e2e.yaml",
        crate_dir: "crates/gpucloud-e2e",
    },
];
