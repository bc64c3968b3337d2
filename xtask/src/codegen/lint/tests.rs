//! The lints on small specs: a clean one, every rule with its pointer, credentials by apiKey.

use std::path::Path;

use super::lint;
use crate::spec::SpecFile;

fn violations(yaml: &str) -> Vec<String> {
    let spec = SpecFile::parse(Path::new("t.yaml"), yaml).unwrap();
    lint(&spec).iter().map(ToString::to_string).collect()
}

const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

#[test]
fn clean_spec_passes() {
    let yaml = format!(
        "{HEAD}paths:\n  /a/{{id}}:\n    get:\n      operationId: get_a\n      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/A'}}}}}}}}\n        '201': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/A'}}}}}}}}\n        '404': {{description: e, content: {{application/json: {{schema: {{$ref: '#/components/schemas/E'}}}}}}}}\n        '500': {{description: e, content: {{application/json: {{schema: {{$ref: '#/components/schemas/E'}}}}}}}}\ncomponents:\n  schemas:\n    A: {{type: object, properties: {{enum: {{type: string}}, s: {{$ref: '#/components/schemas/S'}}}}}}\n    S: {{type: string, enum: [a, b]}}\n    E: {{type: object}}\n"
    );
    assert_eq!(violations(&yaml), Vec::<String>::new());
}

#[test]
fn reports_each_rule_with_its_pointer() {
    let yaml = format!(
        "{HEAD}paths:\n  /a:\n    get:\n      parameters: [{{name: Authorization, in: header, schema: {{type: string}}}}]\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{type: object}}}}}}}}\n        '201': {{description: ok, content: {{application/json: {{schema: {{type: string}}}}}}}}\n        '400': {{description: e, content: {{application/json: {{schema: {{type: object}}}}}}}}\n        '500': {{description: e}}\n    post:\n      operationId: x\n      requestBody: {{content: {{multipart/form-data: {{schema: {{type: object}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n  /b:\n    get:\n      operationId: x\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  schemas:\n    A:\n      type: object\n      additionalProperties: false\n      properties:\n        s: {{type: string, enum: [a]}}\n        u: {{anyOf: [{{type: string}}, {{type: integer}}]}}\n    N: {{type: integer, enum: [1, 2]}}\n"
    );
    let found = violations(&yaml);
    let expected = [
        "at /paths/~1a/get: operation has no operationId",
        "at /paths/~1a/get/parameters/0: header parameter \"Authorization\" carries credentials",
        "at /paths/~1a/get/responses/201: a second success schema (the first is at /paths/~1a/get/responses/200)",
        "at /paths/~1a/get/responses/400: error responses differ from the one at /paths/~1a/get/responses/500",
        "at /paths/~1a/post/requestBody/content: request bodies must have exactly one media type",
        "at /paths/~1b/get/operationId: operationId \"x\" is already used at /paths/~1a/post",
        "at /components/schemas/A/additionalProperties: additionalProperties: false",
        "at /components/schemas/A/properties/s/enum: enums must be named components",
        "at /components/schemas/A/properties/u/anyOf: anyOf",
        "at /components/schemas/N/enum: only string enums",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for want in expected {
        assert!(
            found.iter().any(|f| f.starts_with(want)),
            "missing {want:?} in {found:#?}"
        );
    }
}

#[test]
fn apikey_scheme_parameter_is_flagged() {
    let yaml = format!(
        "{HEAD}paths:\n  /a:\n    get:\n      operationId: a\n      parameters: [{{$ref: '#/components/parameters/K'}}]\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  parameters:\n    K: {{name: apikey, in: query, schema: {{type: string}}}}\n  securitySchemes:\n    key: {{type: apiKey, in: query, name: apikey}}\n"
    );
    let found = violations(&yaml);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("at /paths/~1a/get/parameters/0: query parameter \"apikey\""));
}
