//! The providers' specs (`specs/*.yaml`), embedded so the binary works anywhere, as the single
//! source of truth for what the simulator serves and accepts: its routes, its parameter and
//! body validation, and the check that its own answers match the documented responses.

mod operations;
pub(crate) mod request;
mod schema;

use std::sync::OnceLock;

use serde_json::Value;

pub(crate) use operations::{Operation, Route};
use schema::SchemaSet;

use crate::provider::Provider;

const TOGETHER: &str = include_str!("../../specs/together.yaml");
const RUNCRATE: &str = include_str!("../../specs/runcrate.yaml");
const E2E: &str = include_str!("../../specs/e2e.yaml");

/// One provider's spec, parsed.
#[derive(Debug)]
pub(crate) struct ApiSpec {
    operations: Vec<Operation>,
    pub(crate) schemas: SchemaSet,
}

impl ApiSpec {
    fn parse(yaml: &str) -> Result<Self, String> {
        let doc: Value = serde_saphyr::from_str(yaml).map_err(|e| e.to_string())?;
        Ok(Self {
            operations: operations::operations(&doc)?,
            schemas: SchemaSet::new(&doc),
        })
    }

    /// The operation serving `method path` (the path after the provider's prefix).
    pub(crate) fn route(&self, method: &http::Method, path: &str) -> Route<'_> {
        operations::route(&self.operations, method, path)
    }

    /// Every operation id, in the spec's order.
    pub(crate) fn operation_ids(&self) -> Vec<&str> {
        self.operations.iter().map(|o| o.id.as_str()).collect()
    }

    /// Problems with an answer of `op`: its status must be documented (exactly, by range, as
    /// `default`, or — for an error status a spec lists only partly — like the spec's other
    /// errors) and its body must match that response's schema.
    pub(crate) fn check_response(&self, op: &Operation, status: u16, body: &Value) -> Vec<String> {
        let exact = status.to_string();
        let range = format!("{}XX", status / 100);
        let find = |key: &str| {
            op.responses
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
        };
        let declared = find(&exact)
            .or_else(|| find(&range))
            .or_else(|| find("default"))
            .or_else(|| {
                (status >= 400).then(|| {
                    op.responses
                        .iter()
                        .find(|(k, s)| s.is_some() && (k.starts_with('4') || k.starts_with('5')))
                })?
            });
        let schema = match declared {
            None => {
                return vec![format!(
                    "HTTP {status} is not a documented answer of {}",
                    op.id
                )];
            }
            Some((_, None)) => return Vec::new(),
            Some((_, Some(schema))) => schema,
        };
        match self.schemas.check(schema, body) {
            Ok(()) => Vec::new(),
            Err(violations) => violations
                .into_iter()
                .map(|v| format!("{} HTTP {status} at `{}`: {}", op.id, v.path, v.message))
                .collect(),
        }
    }
}

/// The three specs.
#[derive(Debug)]
pub(crate) struct Specs {
    together: ApiSpec,
    runcrate: ApiSpec,
    e2e: ApiSpec,
}

impl Specs {
    /// The embedded specs, parsed once per process.
    pub(crate) fn get() -> Result<&'static Self, String> {
        static SPECS: OnceLock<Result<Specs, String>> = OnceLock::new();
        SPECS
            .get_or_init(|| {
                let parse = |provider: Provider, yaml| {
                    ApiSpec::parse(yaml).map_err(|e| format!("specs/{provider}.yaml: {e}"))
                };
                Ok(Self {
                    together: parse(Provider::Together, TOGETHER)?,
                    runcrate: parse(Provider::Runcrate, RUNCRATE)?,
                    e2e: parse(Provider::E2e, E2E)?,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// One provider's spec.
    pub(crate) fn of(&self, provider: Provider) -> &ApiSpec {
        match provider {
            Provider::Together => &self.together,
            Provider::Runcrate => &self.runcrate,
            Provider::E2e => &self.e2e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_specs_parse_with_the_documented_operations() {
        let specs = Specs::get().unwrap();
        assert_eq!(
            specs.of(Provider::Runcrate).operation_ids(),
            ["create_cluster", "list_offers", "get_cluster"]
        );
        assert_eq!(specs.of(Provider::E2e).operation_ids().len(), 7);
        assert!(specs.of(Provider::Together).operation_ids().len() >= 20);
    }

    #[test]
    fn every_schema_of_every_spec_compiles() {
        let specs = Specs::get().unwrap();
        for provider in Provider::ALL {
            let spec = specs.of(provider);
            for op in &spec.operations {
                let schemas = op
                    .responses
                    .iter()
                    .filter_map(|(_, s)| s.as_ref())
                    .chain(op.body.as_ref().map(|(s, _)| s))
                    .chain(op.params.iter().map(|p| &p.schema));
                for schema in schemas {
                    // Any instance will do: only a compile failure is reported at the root
                    // with this message.
                    if let Err(violations) = spec.schemas.check(schema, &Value::Null) {
                        assert!(
                            !violations[0].message.contains("does not compile"),
                            "{provider} {}: {}",
                            op.id,
                            violations[0].message
                        );
                    }
                }
            }
        }
    }
}
