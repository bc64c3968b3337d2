//! Open enums for every named string enum of a spec.
//!
//! typify generates closed serde enums: one value a provider adds later fails the *whole*
//! response. For each named string enum we tell typify to use our type instead
//! (`with_replacement`) and emit that type here: one variant per documented value plus
//! `Unknown(String)`, which keeps the raw value so it round-trips unchanged.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use heck::ToPascalCase;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use serde_json::Value;

/// A named string enum found in `components/schemas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenEnum {
    /// The Rust type name, as typify derives it from the schema name.
    pub type_name: String,
    /// The schema's description, if any.
    pub description: Option<String>,
    /// The documented wire values, in spec order.
    pub values: Vec<String>,
}

/// Finds every `components/schemas` entry that is a string enum.
pub fn collect(tree: &Value) -> Vec<OpenEnum> {
    let Some(schemas) = tree
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    schemas
        .iter()
        .filter_map(|(name, schema)| {
            let values = schema.get("enum")?.as_array()?;
            let values: Option<Vec<String>> = values
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            Some(OpenEnum {
                type_name: typify_type_name(name),
                description: schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                values: values?,
            })
        })
        .collect()
}

/// The name typify gives a component schema (`sanitize(name, Case::Pascal)` in typify-impl 0.8),
/// which is also the key `with_replacement` matches on.
pub fn typify_type_name(schema_name: &str) -> String {
    let cleaned: String = schema_name
        .replace('\'', "")
        .chars()
        .map(|c| {
            if unicode_ident::is_xid_continue(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    identifier(cleaned.to_pascal_case())
}

/// Makes `name` a valid Rust identifier the way typify does: an `X` prefix when it does not
/// start with a letter, a trailing `_` for keywords.
fn identifier(name: String) -> String {
    let name = match name.chars().next() {
        Some(c) if unicode_ident::is_xid_start(c) => name,
        _ => format!("X{name}"),
    };
    if syn::parse_str::<Ident>(&name).is_ok() {
        name
    } else {
        format!("{name}_")
    }
}

/// The variant name of each wire value; fails if two values collapse to one name.
fn variant_names(e: &OpenEnum) -> Result<Vec<Ident>> {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    let mut out = Vec::with_capacity(e.values.len());
    for value in &e.values {
        let mut name = identifier(
            value
                .replace(|c: char| !c.is_alphanumeric(), "_")
                .to_pascal_case(),
        );
        // `Unknown(String)` is the catch-all; a documented value of that name gets a suffix.
        if name == "Unknown" {
            name = "UnknownValue".to_string();
        }
        if let Some(other) = seen.insert(name.clone(), value) {
            bail!(
                "enum {}: values {other:?} and {value:?} both become the variant {name}",
                e.type_name
            );
        }
        out.push(Ident::new(&name, Span::call_site()));
    }
    Ok(out)
}

/// The Rust items for one open enum.
pub fn tokens(e: &OpenEnum) -> Result<TokenStream> {
    let name = Ident::new(&e.type_name, Span::call_site());
    let variants = variant_names(e)?;
    let values = &e.values;
    let variant_docs = values.iter().map(|v| format!("`{v}`"));
    let description = e
        .description
        .clone()
        .unwrap_or_else(|| format!("`{}`", e.type_name));
    let open_note = "Open enum: a value the spec does not list decodes as [`Self::Unknown`] with the \
                     raw string kept, so a provider adding a value never breaks decoding.";
    Ok(quote! {
        #[doc = #description]
        ///
        #[doc = #open_note]
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name {
            #( #[doc = #variant_docs] #variants, )*
            /// A value this client's spec does not list; the raw wire value is kept.
            Unknown(::std::string::String),
        }

        impl #name {
            /// The wire values the spec documents, in spec order.
            pub const KNOWN_VALUES: &'static [&'static str] = &[ #( #values ),* ];

            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    #( Self::#variants => #values, )*
                    Self::Unknown(raw) => raw.as_str(),
                }
            }

            /// Whether the value is one the spec documents.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Unknown(_))
            }
        }

        impl ::std::convert::From<&str> for #name {
            fn from(value: &str) -> Self {
                match value {
                    #( #values => Self::#variants, )*
                    other => Self::Unknown(other.to_string()),
                }
            }
        }

        impl ::std::convert::From<::std::string::String> for #name {
            fn from(value: ::std::string::String) -> Self {
                match Self::from(value.as_str()) {
                    Self::Unknown(_) => Self::Unknown(value),
                    known => known,
                }
            }
        }

        impl ::std::str::FromStr for #name {
            type Err = ::std::convert::Infallible;
            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                Ok(Self::from(value))
            }
        }

        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                ::std::string::String::deserialize(deserializer).map(Self::from)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_match_typify() {
        assert_eq!(typify_type_name("GPUClusterInfo"), "GpuClusterInfo");
        assert_eq!(typify_type_name("cluster.status"), "ClusterStatus");
        assert_eq!(typify_type_name("2fa"), "X2fa");
    }

    #[test]
    fn variant_names_are_pascal_and_unique() {
        let e = OpenEnum {
            type_name: "Gpu".into(),
            description: None,
            values: vec![
                "H100_SXM".into(),
                "on-demand".into(),
                "UNKNOWN".into(),
                "8x".into(),
            ],
        };
        let names: Vec<String> = variant_names(&e)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(names, ["H100Sxm", "OnDemand", "UnknownValue", "X8x"]);
    }

    #[test]
    fn colliding_values_are_an_error() {
        let e = OpenEnum {
            type_name: "Gpu".into(),
            description: None,
            values: vec!["h100_sxm".into(), "H100-SXM".into()],
        };
        let err = variant_names(&e).unwrap_err().to_string();
        assert!(
            err.contains("\"h100_sxm\" and \"H100-SXM\" both become the variant H100Sxm"),
            "{err}"
        );
    }
}
