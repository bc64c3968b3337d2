//! The first stage: reading the two documents and making them safe to walk. A side is read
//! from a file or a git revision ([`side`]) within a size cap ([`input`]), parsed from YAML or
//! JSON ([`yaml`]), checked for the outline every OpenAPI document has ([`outline`]), rewritten
//! where OpenAPI 3.1 spells a 3.0 construct differently ([`openapi31_rewrite`]) and held as a
//! [`document::Doc`] whose `$ref`s have all been checked. Everything that can make a diff
//! impossible fails here, with the [`error::Error`] naming the file and the pointer, so the
//! walk that follows cannot fail.
//!
//! This stage knows nothing of rules or findings: nothing here imports the walk or the
//! judgement.

pub(crate) mod document;
pub(crate) mod error;
pub mod input;
pub(crate) mod key_context;
pub(crate) mod openapi31_rewrite;
pub(crate) mod outline;
pub(crate) mod pointer;
pub(crate) mod side;
pub(crate) mod yaml;
