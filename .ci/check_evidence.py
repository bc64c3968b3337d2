#!/usr/bin/env python3
"""The evidence lint: every claim of a spec that a provider's doc page does not make directly
names its source.

A spec node (operation, parameter, schema, property) whose description leans on anything but a
doc page (an SDK, a CLI, a Terraform provider, a third-party client, Prism) or says that a fact
is unverified, unconfirmed, inferred or disputed must carry `x-evidence`: a non-empty list of
sources, one string each, `<kind>: <what>`:

  doc: <page title or URL>                 a provider doc page
  document: <name, version, date>          a published document (Together's OpenAPI document)
  sdk: <package> <version> (<registry>), <file> <symbol>
  cli: <package> <version> (<registry>), <file> <symbol>
  terraform: / third-party: <repository @commit>, <file>
  inferred: <what it is inferred from>     our own reading, said as such

`sdk:`, `cli:`, `terraform:` and `third-party:` sources name a version (`1.2.3`) or a commit
(`@abc1234`), so the next reader can open the same code. Exits non-zero naming the file and
JSON pointer of every node that breaks a rule. Run as `python3 .ci/check_evidence.py [spec…]`
(all of `specs/*.yaml` but the contract acknowledgements by default).
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Words that say a description relies on something other than a doc page, or is unsure.
NEEDS_EVIDENCE = re.compile(
    r"\b(SDKs?|CLI|Terraform|third-party|Prism|unverified|unconfirmed|inferred|disagree\w*)\b"
)
KINDS = ("doc", "document", "sdk", "cli", "terraform", "third-party", "inferred")
ENTRY = re.compile(r"^(%s): \S" % "|".join(re.escape(k) for k in KINDS))
VERSIONED = ("sdk", "cli", "terraform", "third-party")
VERSION = re.compile(r"\b\d+\.\d+(\.\d+)?\b|@[0-9a-f]{7,40}\b")


def pointer(parts):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def check_node(node, parts, problems):
    if isinstance(node, dict):
        evidence = node.get("x-evidence")
        description = node.get("description")
        if evidence is not None:
            if not isinstance(evidence, list) or not evidence:
                problems.append((parts, "x-evidence must be a non-empty list of sources"))
            else:
                for i, entry in enumerate(evidence):
                    where = parts + ["x-evidence", i]
                    if not isinstance(entry, str) or not ENTRY.match(entry):
                        problems.append(
                            (where, f"a source is '<kind>: <what>', kind one of {', '.join(KINDS)}")
                        )
                    elif entry.split(":", 1)[0] in VERSIONED and not VERSION.search(entry):
                        problems.append((where, "an SDK, CLI or repository source names its version or commit"))
        elif isinstance(description, str):
            found = NEEDS_EVIDENCE.search(description)
            if found:
                problems.append(
                    (parts, f"the description relies on {found.group(0)!r} but names no x-evidence")
                )
        for key, value in node.items():
            if key != "x-evidence":
                check_node(value, parts + [key], problems)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            check_node(value, parts + [i], problems)


def check(path):
    problems = []
    check_node(yaml.safe_load(path.read_text()), [], problems)
    return [f"{path.relative_to(ROOT)}#{pointer(parts)}: {message}" for parts, message in problems]


def main(argv):
    paths = [pathlib.Path(a).resolve() for a in argv] or sorted(
        p for p in (ROOT / "specs").glob("*.yaml") if p.name != "contract-ack.yaml"
    )
    failures = []
    for path in paths:
        found = check(path)
        failures.extend(found)
        if not found:
            print(f"ok   {path.relative_to(ROOT)}: every claim beyond the doc pages names its source")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
