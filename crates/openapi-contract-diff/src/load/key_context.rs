//! What a key of an OpenAPI document is, by where it stands: an annotation keyword, the name of
//! something (a property, a media type, a status), or the start of a literal value.
//!
//! The same word means different things at different places: `description` is documentation in
//! a schema but a property in `properties: {description: {type: string}}`, and `const` is a
//! keyword in a schema but a property name inside `properties`. Reading a key without its
//! context made changes inside such properties invisible, so every reader of keys (the content
//! hash, the 3.1 rewrite, the completeness pass) asks this module with the context it is in.

/// Where a key stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ctx {
    /// An object whose keys are keywords (a schema, an operation, a parameter…).
    Keywords,
    /// A map whose keys are names chosen by the author (`properties`, `content`, `headers`,
    /// `components/schemas`…): every key is significant, none is a keyword.
    Names,
    /// A map of names that OpenAPI lets carry `x-` extensions (`paths`, `responses`,
    /// `callbacks`, `webhooks`): `x-` keys are extensions, the rest are names.
    ExtensibleNames,
    /// A literal JSON value (`enum`, `const`, `default`): compared as data, nothing is skipped.
    Literal,
}

impl Ctx {
    /// The context of the value under `key`, a key of an object in context `self`.
    pub fn child(self, key: &str) -> Ctx {
        match self {
            Ctx::Literal => Ctx::Literal,
            Ctx::Names | Ctx::ExtensibleNames => Ctx::Keywords,
            Ctx::Keywords => match key {
                "properties" | "patternProperties" | "dependentSchemas" | "dependentRequired"
                | "$defs" | "definitions" | "headers" | "content" | "encoding" | "schemas"
                | "securitySchemes" | "parameters" | "requestBodies" | "links" | "mapping"
                | "variables" | "scopes" | "pathItems" => Ctx::Names,
                "paths" | "responses" | "callbacks" | "webhooks" => Ctx::ExtensibleNames,
                // Requirement lists are data too: scheme names and scopes.
                "enum" | "const" | "default" | "x-extensible-enum" | "required" | "security" => {
                    Ctx::Literal
                }
                _ => Ctx::Keywords,
            },
        }
    }

    /// The context of the items of an array in context `self`: literals stay literals,
    /// anything else holds objects of keywords (`allOf` branches, parameters).
    pub fn item(self) -> Ctx {
        match self {
            Ctx::Literal => Ctx::Literal,
            _ => Ctx::Keywords,
        }
    }

    /// Whether `key` in this context changes nothing a message may contain.
    pub fn is_annotation(self, key: &str) -> bool {
        match self {
            Ctx::Keywords => is_annotation_keyword(key),
            Ctx::ExtensibleNames => key.starts_with("x-"),
            Ctx::Names | Ctx::Literal => false,
        }
    }
}

/// Keywords that document and never constrain: descriptions, summaries, examples, titles,
/// tags, comments, schema identifiers, and `x-` extensions (except the ones that say something
/// about the values: `x-extensible-enum`; and the lifecycle ones the policy reads are judged
/// by their own rules, not as wire constraints).
pub fn is_annotation_keyword(key: &str) -> bool {
    matches!(
        key,
        "description"
            | "summary"
            | "example"
            | "examples"
            | "externalDocs"
            | "title"
            | "tags"
            | "$comment"
            | "$schema"
            | "$id"
            | "$anchor"
            | "$dynamicAnchor"
    ) || (key.starts_with("x-") && key != "x-extensible-enum")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_named_like_an_annotation_is_a_property() {
        let props = Ctx::Keywords.child("properties");
        assert_eq!(props, Ctx::Names);
        for name in [
            "description",
            "title",
            "summary",
            "example",
            "x-id",
            "const",
        ] {
            assert!(!props.is_annotation(name), "{name}");
            assert!(
                Ctx::Keywords.is_annotation(name) || name == "const",
                "{name}"
            );
        }
        // The schema of such a property is an ordinary schema again.
        assert_eq!(props.child("description"), Ctx::Keywords);
        assert!(Ctx::Keywords.child("paths").is_annotation("x-internal"));
        assert!(!Ctx::Keywords.child("paths").is_annotation("/description"));
        assert!(!Ctx::Keywords.child("enum").is_annotation("description"));
    }
}
