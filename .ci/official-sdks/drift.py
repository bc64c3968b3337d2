#!/usr/bin/env python3
"""What the official Together Python SDK's models say that specs/together.yaml does not, and
the reverse: for each SDK model below, the fields it has and the spec schema lacks (and the
other way), and each `Literal` field's values missing from the spec's enum. Printed, never
gating (exit 0 when the comparison ran, 2 when it could not).

Run it in the virtualenv of the SDK to compare: the pinned one of CI, or the newest release:

    python3 -m venv target/drift && target/drift/bin/pip install --quiet together
    target/drift/bin/python .ci/official-sdks/drift.py
"""
import importlib
import pathlib
import sys
import typing

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

# SDK model (module, class) -> our schema.
PAIRS = [
    ("together.types.cluster", "Cluster", "GPUClusterInfo"),
    ("together.types.clusters.cluster_storage", "ClusterStorage", "GPUClustersSharedVolume"),
    ("together.types.clusters.remediation", "Remediation", "Remediation"),
]


def literals(annotation):
    """The values of a Literal annotation, through Optional/List wrappers."""
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    values = set()
    for arg in typing.get_args(annotation):
        values |= literals(arg)
    return values


def enum_of(spec, prop):
    """The enum of a property (directly or through allOf/$ref/items)."""
    schemas = spec["components"]["schemas"]
    node = prop
    for _ in range(4):
        if "enum" in node:
            return set(node["enum"])
        if "$ref" in node:
            node = schemas[node["$ref"].rsplit("/", 1)[1]]
        elif node.get("allOf"):
            node = node["allOf"][0]
        elif "items" in node:
            node = node["items"]
        else:
            return None
    return None


def main():
    try:
        import together
    except ImportError:
        print("drift: the together SDK is not installed in this Python", file=sys.stderr)
        return 2
    spec = yaml.safe_load((ROOT / "specs" / "together.yaml").read_text())
    schemas = spec["components"]["schemas"]
    print(f"together {together.__version__} against specs/together.yaml")
    findings = 0
    for module, name, ours in PAIRS:
        try:
            model = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as e:
            print(f"  {name}: not in this SDK version ({e})")
            findings += 1
            continue
        props = schemas[ours].get("properties", {})
        sdk_fields = {f.alias or key: f for key, f in model.model_fields.items()}
        for field in sorted(set(sdk_fields) - set(props)):
            print(f"  {ours}: SDK field {field!r} is not in the spec")
            findings += 1
        for field in sorted(set(props) - set(sdk_fields)):
            print(f"  {ours}: spec property {field!r} is not in the SDK's {name}")
            findings += 1
        for field, info in sorted(sdk_fields.items()):
            values = literals(info.annotation)
            known = enum_of(spec, props.get(field, {}))
            if values and known is not None and values - known:
                print(f"  {ours}.{field}: SDK values {sorted(values - known)} not in the spec's enum")
                findings += 1
    print(f"drift: {findings} finding(s) (printed, not gating)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
