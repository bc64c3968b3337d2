//! The rules: every id the diff can emit, with the *effect* it has (`rule_ids.rs` lists them
//! all). Levels come from the table in `levels.rs`, never from here.
//!
//! Ids are oasdiff's wherever oasdiff has the check (README: *Rule ids and oasdiff's*), in its
//! `<direction>-<subject>-<what>` style; a few changes oasdiff names by one id are one id here
//! too (a new path and a new operation are both `endpoint-added`; a format change is a
//! `type-changed`/`-generalized`/`-specialized`, as oasdiff reports type and format together). Schema keyword rules are one slug combined with a direction and a subject
//! (`request-property-` + `enum-value-removed`); the others are listed one by one.

use crate::judge::levels::{Direction, Effect, Guard};

/// Where a schema sits, which names the rule family (`request-body-…`, `response-header-…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The top-level schema of a request or response media type.
    Body,
    /// Anything reached through `properties`.
    Property,
    /// A request parameter (path, query, header, cookie).
    Parameter,
    /// A response header.
    Header,
}

impl Subject {
    pub fn as_str(self) -> &'static str {
        match self {
            Subject::Body => "body",
            Subject::Property => "property",
            Subject::Parameter => "parameter",
            Subject::Header => "header",
        }
    }
}

/// Numeric, length, size and count bounds; each has the same four changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Max,
    Min,
    MaxLength,
    MinLength,
    MaxItems,
    MinItems,
    MaxProperties,
    MinProperties,
    MaxContains,
    MinContains,
}

impl Bound {
    pub const ALL: [Bound; 10] = [
        Bound::Max,
        Bound::Min,
        Bound::MaxLength,
        Bound::MinLength,
        Bound::MaxItems,
        Bound::MinItems,
        Bound::MaxProperties,
        Bound::MinProperties,
        Bound::MaxContains,
        Bound::MinContains,
    ];

    /// The keyword in the schema.
    pub fn keyword(self) -> &'static str {
        match self {
            Bound::Max => "maximum",
            Bound::Min => "minimum",
            Bound::MaxLength => "maxLength",
            Bound::MinLength => "minLength",
            Bound::MaxItems => "maxItems",
            Bound::MinItems => "minItems",
            Bound::MaxProperties => "maxProperties",
            Bound::MinProperties => "minProperties",
            Bound::MaxContains => "maxContains",
            Bound::MinContains => "minContains",
        }
    }

    fn slug(self) -> &'static str {
        match self {
            Bound::Max => "max",
            Bound::Min => "min",
            Bound::MaxLength => "max-length",
            Bound::MinLength => "min-length",
            Bound::MaxItems => "max-items",
            Bound::MinItems => "min-items",
            Bound::MaxProperties => "max-properties",
            Bound::MinProperties => "min-properties",
            Bound::MaxContains => "max-contains",
            Bound::MinContains => "min-contains",
        }
    }

    /// An upper bound narrows when it decreases; a lower bound when it increases.
    pub fn is_upper(self) -> bool {
        matches!(
            self,
            Bound::Max
                | Bound::MaxLength
                | Bound::MaxItems
                | Bound::MaxProperties
                | Bound::MaxContains
        )
    }
}

/// How a bound moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundChange {
    Increased,
    Decreased,
    Set,
    Removed,
}

macro_rules! slug_rules {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $slug:literal => $effect:ident,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant,)* }
        impl $name {
            pub const ALL: &[$name] = &[$($name::$variant,)*];
            pub fn slug(self) -> &'static str { match self { $($name::$variant => $slug,)* } }
            pub fn effect(self) -> Effect { match self { $($name::$variant => Effect::$effect,)* } }
        }
    };
}

slug_rules! {
    /// A schema keyword change; the same slug serves bodies, properties, parameters and headers.
    Keyword {
        TypeChanged = "type-changed" => Incomparable,
        TypeGeneralized = "type-generalized" => Widen,
        TypeSpecialized = "type-specialized" => Narrow,
        FormatChanged = "type-changed" => Incomparable,
        FormatGeneralized = "type-generalized" => Widen,
        FormatSpecialized = "type-specialized" => Narrow,
        FormatSet = "type-specialized" => Narrow,
        FormatRemoved = "type-generalized" => Widen,
        BecameNullable = "became-nullable" => Widen,
        BecameNotNullable = "became-not-nullable" => Narrow,
        EnumValueAdded = "enum-value-added" => Widen,
        EnumValueRemoved = "enum-value-removed" => Narrow,
        BecameEnum = "became-enum" => Narrow,
        EnumRemoved = "enum-removed" => Widen,
        DefaultValueChanged = "default-value-changed" => Unknown,
        DefaultValueSet = "default-value-added" => None,
        DefaultValueRemoved = "default-value-removed" => None,
        MultipleOfSet = "multiple-of-set" => Narrow,
        MultipleOfRemoved = "multiple-of-removed" => Widen,
        MultipleOfChanged = "multiple-of-changed" => Incomparable,
        UniqueItemsSet = "unique-items-set" => Narrow,
        UniqueItemsRemoved = "unique-items-removed" => Widen,
        PatternSet = "pattern-added" => Narrow,
        PatternRemoved = "pattern-removed" => Widen,
        PatternChanged = "pattern-changed" => Unknown,
        AdditionalPropertiesRestricted = "additional-properties-restricted" => Narrow,
        AdditionalPropertiesRelaxed = "additional-properties-relaxed" => Widen,
        OneOfAdded = "one-of-added" => Widen,
        OneOfRemoved = "one-of-removed" => Narrow,
        AnyOfAdded = "any-of-added" => Widen,
        AnyOfRemoved = "any-of-removed" => Narrow,
        OneOfConstraintAdded = "one-of-constraint-added" => Narrow,
        OneOfConstraintRemoved = "one-of-constraint-removed" => Widen,
        AnyOfConstraintAdded = "any-of-constraint-added" => Narrow,
        AnyOfConstraintRemoved = "any-of-constraint-removed" => Widen,
        OneOfBecameAnyOf = "one-of-became-any-of" => Widen,
        AnyOfBecameOneOf = "any-of-became-one-of" => Narrow,
        DiscriminatorChanged = "discriminator-property-name-changed" => Incomparable,
        DiscriminatorAdded = "discriminator-added" => Unknown,
        DiscriminatorRemoved = "discriminator-removed" => Unknown,
        DiscriminatorMappingAdded = "discriminator-mapping-added" => Widen,
        DiscriminatorMappingDeleted = "discriminator-mapping-deleted" => Narrow,
        DiscriminatorMappingChanged = "discriminator-mapping-changed" => Incomparable,
        AllOfAdded = "all-of-added" => Narrow,
        AllOfRemoved = "all-of-removed" => Widen,
        XExtensibleEnumValueAdded = "x-extensible-enum-value-added" => None,
        XExtensibleEnumValueRemoved = "x-extensible-enum-value-removed" => Narrow,
        // JSON Schema 2020-12 / OpenAPI 3.1 (oasdiff's ids where it has them).
        ListOfTypesWidened = "list-of-types-widened" => Widen,
        ListOfTypesNarrowed = "list-of-types-narrowed" => Narrow,
        ConstAdded = "const-added" => Narrow,
        ConstRemoved = "const-removed" => Widen,
        ConstChanged = "const-changed" => Incomparable,
        ContainsAdded = "contains-added" => Narrow,
        ContainsRemoved = "contains-removed" => Widen,
        // A position added to a closed tuple (`items: false`) allows longer arrays; added where
        // any item was allowed, it constrains that position.
        PrefixItemsAdded = "prefix-items-added" => Widen,
        PrefixItemsConstrained = "prefix-items-constrained" => Narrow,
        PrefixItemsRemoved = "prefix-items-removed" => Narrow,
        PrefixItemsReleased = "prefix-items-released" => Widen,
        IfAdded = "if-added" => Narrow,
        IfRemoved = "if-removed" => Widen,
        IfChanged = "if-changed" => Unknown,
        ThenAdded = "then-added" => Narrow,
        ThenRemoved = "then-removed" => Widen,
        ElseAdded = "else-added" => Narrow,
        ElseRemoved = "else-removed" => Widen,
        DependentRequiredAdded = "dependent-required-added" => Narrow,
        DependentRequiredRemoved = "dependent-required-removed" => Widen,
        DependentRequiredChanged = "dependent-required-changed" => Incomparable,
        DependentSchemaAdded = "dependent-schema-added" => Narrow,
        DependentSchemaRemoved = "dependent-schema-removed" => Widen,
        UnevaluatedPropertiesAdded = "unevaluated-properties-added" => Narrow,
        UnevaluatedPropertiesRemoved = "unevaluated-properties-removed" => Widen,
        UnevaluatedItemsAdded = "unevaluated-items-added" => Narrow,
        UnevaluatedItemsRemoved = "unevaluated-items-removed" => Widen,
        PropertyNamesAdded = "property-names-added" => Narrow,
        PropertyNamesRemoved = "property-names-removed" => Widen,
        PatternPropertyAdded = "pattern-property-added" => Narrow,
        PatternPropertyRemoved = "pattern-property-removed" => Widen,
        ContentMediaTypeChanged = "content-media-type-changed" => Incomparable,
        ContentEncodingChanged = "content-encoding-changed" => Incomparable,
        ContentSchemaAdded = "content-schema-added" => Narrow,
        ContentSchemaRemoved = "content-schema-removed" => Widen,
        NotAdded = "not-added" => Narrow,
        NotRemoved = "not-removed" => Widen,
        NotChanged = "not-changed" => Unknown,
    }
}

/// A schema rule: a keyword change or a bound change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaRule {
    Keyword(Keyword),
    Bound(Bound, BoundChange),
}

impl SchemaRule {
    pub fn id(self, direction: Direction, subject: Subject) -> String {
        let what = match self {
            SchemaRule::Keyword(k) => k.slug().to_string(),
            SchemaRule::Bound(b, c) => {
                let change = match c {
                    BoundChange::Increased => "increased",
                    BoundChange::Decreased => "decreased",
                    BoundChange::Set => "set",
                    BoundChange::Removed => "unset",
                };
                format!("{}-{change}", b.slug())
            }
        };
        format!("{}-{}-{what}", direction.as_str(), subject.as_str())
    }

    pub fn effect(self) -> Effect {
        match self {
            SchemaRule::Keyword(k) => k.effect(),
            SchemaRule::Bound(_, BoundChange::Set) => Effect::Narrow,
            SchemaRule::Bound(_, BoundChange::Removed) => Effect::Widen,
            SchemaRule::Bound(b, BoundChange::Increased) if b.is_upper() => Effect::Widen,
            SchemaRule::Bound(b, BoundChange::Decreased) if b.is_upper() => Effect::Narrow,
            SchemaRule::Bound(_, BoundChange::Increased) => Effect::Narrow,
            SchemaRule::Bound(_, BoundChange::Decreased) => Effect::Widen,
        }
    }
}

macro_rules! api_rules {
    ($($variant:ident = $id:literal => $dir:ident $effect:ident $($guard:ident)?,)*) => {
        /// A rule with a fixed id: existence, requiredness, lifecycle, status codes, security.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Rule { $($variant,)* }
        impl Rule {
            pub const ALL: &[Rule] = &[$(Rule::$variant,)*];
            pub fn id(self) -> &'static str { match self { $(Rule::$variant => $id,)* } }
            pub fn direction(self) -> Direction { match self { $(Rule::$variant => Direction::$dir,)* } }
            pub fn effect(self) -> Effect { match self { $(Rule::$variant => Effect::$effect,)* } }
            /// A guard that always holds for this rule (`…-with-deprecation`).
            pub fn guard(self) -> Option<Guard> {
                match self { $(Rule::$variant => api_rules!(@guard $($guard)?),)* }
            }
        }
    };
    (@guard) => { None };
    (@guard $guard:ident) => { Some(Guard::$guard) };
}

api_rules! {
    SpecAdded = "spec-added" => None Widen,
    SpecRemoved = "spec-removed" => None Narrow,
    PathAdded = "endpoint-added" => None Widen,
    WebhookAdded = "webhook-added" => None Widen,
    WebhookRemoved = "webhook-removed" => None Narrow,
    PathRemovedWithoutDeprecation = "api-path-removed-without-deprecation" => None Narrow,
    PathRemovedWithDeprecation = "api-path-removed-with-deprecation" => None Narrow Deprecated,
    OperationAdded = "endpoint-added" => None Widen,
    RemovedWithoutDeprecation = "api-removed-without-deprecation" => None Narrow,
    RemovedWithDeprecation = "api-removed-with-deprecation" => None Narrow Deprecated,
    Deprecated = "endpoint-deprecated" => None None,
    DeprecatedWithSunset = "endpoint-deprecated-with-sunset" => None None,
    DeprecatedSunsetMissing = "api-deprecated-sunset-missing" => None Violation,
    SunsetParse = "api-deprecated-sunset-parse" => None Violation,
    SunsetTooSmall = "api-sunset-date-too-small" => None Violation,
    SunsetChangedTooSmall = "api-sunset-date-changed-too-small" => None Violation,
    SunsetDeleted = "sunset-deleted" => None Violation,
    RemovedBeforeSunset = "api-removed-before-sunset" => None Narrow,
    PathRemovedBeforeSunset = "api-path-removed-before-sunset" => None Narrow,
    // Removed while deprecated with an `x-sunset` that is not a date: the announced day cannot
    // be read, so the removal may come before it.
    PathSunsetParse = "api-path-sunset-parse" => None Violation,
    StabilityDecreased = "api-stability-decreased" => None Violation,
    StabilityIncreased = "api-stability-increased" => None None,
    InvalidStability = "api-invalid-stability-level" => None Violation,
    Reactivated = "endpoint-reactivated" => None None,
    OperationIdChanged = "api-operation-id-removed" => None Unknown,
    OperationIdAdded = "api-operation-id-added" => None None,
    PathParameterRenamed = "request-path-parameter-renamed" => Request None,
    NewRequiredParameter = "new-required-request-parameter" => Request Narrow,
    NewOptionalParameter = "new-optional-request-parameter" => Request None,
    ParameterRemoved = "request-parameter-removed" => Request Unknown,
    ParameterRemovedWithDeprecation = "request-parameter-removed-with-deprecation" => Request Narrow Deprecated,
    ParameterRemovedBeforeSunset = "request-parameter-removed-before-sunset" => Request Narrow,
    ParameterDeprecated = "request-parameter-deprecated" => Request None,
    ParameterReactivated = "request-parameter-reactivated" => Request None,
    ParameterSunsetMissing = "request-parameter-deprecated-sunset-missing" => Request Violation,
    ParameterSunsetTooSmall = "request-parameter-sunset-date-too-small" => Request Violation,
    ParameterSunsetParse = "request-parameter-sunset-parse" => Request Violation,
    ParameterSunsetChangedTooSmall = "request-parameter-sunset-date-changed-too-small" => Request Violation,
    ParameterSunsetDeleted = "request-parameter-sunset-deleted" => Request Violation,
    ParameterBecameRequired = "request-parameter-became-required" => Request Narrow,
    // How a parameter is written into the request (see `parameters::serialization`).
    ParameterStyleChanged = "request-parameter-style-changed" => Request Incomparable,
    ParameterExplodeChanged = "request-parameter-explode-changed" => Request Incomparable,
    ParameterSerializationChanged = "request-parameter-serialization-changed" => Request Incomparable,
    ParameterAllowEmptyValueAdded = "request-parameter-allow-empty-value-added" => Request Widen,
    ParameterAllowEmptyValueRemoved = "request-parameter-allow-empty-value-removed" => Request Narrow,
    ParameterAllowReservedAdded = "request-parameter-allow-reserved-added" => Request Widen,
    ParameterAllowReservedRemoved = "request-parameter-allow-reserved-removed" => Request Narrow,
    ParameterBecameOptional = "request-parameter-became-optional" => Request Widen,
    NewRequiredBody = "request-body-added-required" => Request Narrow,
    NewOptionalBody = "request-body-added-optional" => Request None,
    RequestBodyRemoved = "request-body-removed" => Request Unknown,
    RequestBodyBecameRequired = "request-body-became-required" => Request Narrow,
    RequestBodyBecameOptional = "request-body-became-optional" => Request Widen,
    RequestMediaTypeAdded = "request-body-media-type-added" => Request Widen,
    RequestMediaTypeSchemaAdded = "request-body-media-type-schema-added" => Request Narrow,
    RequestMediaTypeSchemaRemoved = "request-body-media-type-schema-removed" => Request Widen,
    ResponseMediaTypeSchemaAdded = "response-body-media-type-schema-added" => Response Narrow,
    ResponseMediaTypeSchemaRemoved = "response-body-media-type-schema-removed" => Response Widen,
    RequestMediaTypeRemoved = "request-body-media-type-removed" => Request Narrow,
    ResponseMediaTypeAdded = "response-media-type-added" => Response Widen Negotiated,
    ResponseMediaTypeRemoved = "response-media-type-removed" => Response Incomparable,
    SuccessStatusAdded = "response-success-status-added" => Response Widen,
    // Incomparable: the answer a client was built for is gone (usually moved to a status it
    // does not know), whatever other statuses remain.
    SuccessStatusRemoved = "response-success-status-removed" => Response Incomparable,
    NonSuccessStatusAdded = "response-non-success-status-added" => Response Widen NonSuccess,
    NonSuccessStatusRemoved = "response-non-success-status-removed" => Response Narrow,
    HeaderAdded = "response-header-added" => Response None,
    RequiredHeaderRemoved = "required-response-header-removed" => Response Widen,
    OptionalHeaderRemoved = "optional-response-header-removed" => Response None,
    HeaderBecameOptional = "response-header-became-optional" => Response Widen,
    HeaderBecameRequired = "response-header-became-required" => Response Narrow,
    NewRequiredRequestProperty = "new-required-request-property" => Request Narrow,
    NewOptionalRequestProperty = "new-optional-request-property" => Request None,
    RequestPropertyRemoved = "request-property-removed" => Request Unknown,
    RequestPropertyBecameRequired = "request-property-became-required" => Request Narrow,
    RequestPropertyBecameOptional = "request-property-became-optional" => Request Widen,
    RequestPropertyBecameReadOnly = "request-property-became-read-only" => Request Narrow,
    RequestPropertyBecameNotReadOnly = "request-property-became-not-read-only" => Request Widen,
    ResponseRequiredPropertyAdded = "response-required-property-added" => Response Narrow,
    ResponseOptionalPropertyAdded = "response-optional-property-added" => Response None,
    ResponseRequiredPropertyRemoved = "response-required-property-removed" => Response Widen,
    ResponseOptionalPropertyRemoved = "response-optional-property-removed" => Response Unknown,
    ResponsePropertyBecameOptional = "response-property-became-optional" => Response Widen,
    ResponsePropertyBecameRequired = "response-property-became-required" => Response Narrow,
    RequestPropertyDeprecated = "request-property-deprecated" => Request None,
    RequestPropertyReactivated = "request-property-reactivated" => Request None,
    ResponsePropertyDeprecated = "response-property-deprecated" => Response None,
    ResponsePropertyReactivated = "response-property-reactivated" => Response None,
    ResponsePropertyBecameWriteOnly = "response-property-became-write-only" => Response Widen,
    // readOnly in a response and writeOnly in a request change nothing there.
    ResponsePropertyBecameReadOnly = "response-property-became-read-only" => Response None,
    ResponsePropertyBecameNotReadOnly = "response-property-became-not-read-only" => Response None,
    RequestPropertyBecameWriteOnly = "request-property-became-write-only" => Request None,
    RequestPropertyBecameNotWriteOnly = "request-property-became-not-write-only" => Request None,
    ResponsePropertyBecameNotWriteOnly = "response-property-became-not-write-only" => Response Narrow,
    AuthenticationAdded = "api-authentication-added" => Request Narrow,
    AuthenticationRemoved = "api-authentication-removed" => Request Widen,
    SecuritySchemeAdded = "api-security-added" => Request Widen,
    SecuritySchemeRemoved = "api-security-removed" => Request Narrow,
    SecurityScopeAdded = "api-security-scope-added" => Request Narrow,
    SecurityScopeRemoved = "api-security-scope-removed" => Request Widen,
    // A scheme's definition edited in place (same type, same name on the wire): where clients
    // get tokens, and the scopes it offers.
    OAuthTokenUrlChanged = "api-security-component-oauth-token-url-changed" => Request Unknown,
    OAuthUrlChanged = "api-security-component-oauth-url-changed" => Request Unknown,
    OAuthScopeAdded = "api-security-component-oauth-scope-added" => Request None,
    OAuthScopeRemoved = "api-security-component-oauth-scope-removed" => Request Unknown,
    OAuthFlowAdded = "api-security-component-oauth-flow-added" => Request Widen,
    OAuthFlowRemoved = "api-security-component-oauth-flow-removed" => Request Narrow,
    // A requirement's schemes must all be met: one more is one more credential every caller
    // must present.
    SecurityRequirementSchemeAdded = "api-security-requirement-scheme-added" => Request Narrow,
    SecurityRequirementSchemeRemoved = "api-security-requirement-scheme-removed" => Request Widen,
    // Servers are where a client sends its requests (see `servers.rs`).
    ServerRemoved = "api-server-removed" => Request Narrow,
    ServerAdded = "api-server-added" => Request Widen,
    ServerUrlChanged = "api-server-url-changed" => Request Incomparable,
    ServerVariableEnumValueRemoved = "api-server-variable-enum-value-removed" => Request Narrow,
    ServerVariableEnumValueAdded = "api-server-variable-enum-value-added" => Request Widen,
    ServerVariableDefaultChanged = "api-server-variable-default-changed" => Request Unknown,
}

/// The id of a difference in a wire-constraining keyword that no rule claims (the
/// completeness pass): reported with both values and its pointer, at WARN, in the direction of
/// the place it was found.
pub const UNCLASSIFIED: &str = "unclassified-change";
