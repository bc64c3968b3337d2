#!/usr/bin/env python3
"""Validates every spec with an independent OpenAPI 3.0 validator, and every documented fixture
(tests/fixtures/<provider>/index.yaml) against the schema it names, with format checks.

Independent of the Rust toolchain on purpose: a spec that progenitor happens to accept can still
be invalid OpenAPI, and a fixture that our generated types happen to decode can still break the
schema's rules (patterns, required, enums). Exits non-zero naming every file that fails.
"""
import json
import pathlib
import sys

import yaml
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    failures = []
    specs = sorted((ROOT / "specs").glob("*.yaml"))
    specs = [s for s in specs if s.name != "contract-ack.yaml"]
    for spec_path in specs:
        rel = spec_path.relative_to(ROOT)
        spec, _ = read_from_filename(str(spec_path))
        try:
            validate(spec)
        except Exception as e:  # the validator raises its own exception types
            failures.append(f"{rel}: {e}")
            continue
        print(f"ok   {rel}: valid OpenAPI {spec['openapi']}")

        index = ROOT / "tests" / "fixtures" / spec_path.stem / "index.yaml"
        if not index.exists():
            failures.append(f"{index.relative_to(ROOT)}: missing (every spec has fixtures)")
            continue
        for entry in yaml.safe_load(index.read_text()):
            fixture = index.parent / entry["file"]
            schema_name = entry["schema"]
            if schema_name not in spec["components"]["schemas"]:
                failures.append(f"{fixture.relative_to(ROOT)}: schema {schema_name} not in {rel}")
                continue
            schema = {"$ref": f"#/components/schemas/{schema_name}", "components": spec["components"]}
            validator = OAS30Validator(schema, format_checker=OAS30Validator.FORMAT_CHECKER)
            instance = json.loads(fixture.read_text())
            errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
            pointers = ["/" + "/".join(str(p) for p in e.absolute_path) for e in errors]
            # A docs example with placeholder values the documented rules reject (Together's
            # `num_gpus: 0`): the index names each pointer that must fail, and nothing else may.
            expected = entry.get("rejected_at", [])
            for pointer, error in zip(pointers, errors):
                if pointer not in expected:
                    failures.append(f"{fixture.relative_to(ROOT)}: at {pointer}: {error.message}")
            for pointer in expected:
                if pointer not in pointers:
                    failures.append(
                        f"{fixture.relative_to(ROOT)}: at {pointer}: accepted, but the index says "
                        "the schema rejects this placeholder"
                    )
            if set(pointers) == set(expected):
                note = f" (placeholder rejected at {', '.join(expected)})" if expected else ""
                print(f"ok   {fixture.relative_to(ROOT)} against {schema_name}{note}")

    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
