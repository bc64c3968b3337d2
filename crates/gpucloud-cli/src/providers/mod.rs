//! What the command line knows of each provider, one file per provider: the flags of its
//! create options and how they become its options. Everything else reads the provider's
//! profile through the facade.

pub mod e2e;
pub mod runcrate;
pub mod together;

/// The first of `flags` that was given (`(name, given)` pairs).
pub(crate) fn first_given<const N: usize>(
    flags: [(&'static str, bool); N],
) -> Option<&'static str> {
    flags
        .into_iter()
        .find_map(|(name, given)| given.then_some(name))
}
