"""Check that every packed crate holds every file its sources pull in at compile time.

`cargo package --no-verify` packs each publishable crate as crates.io would get it (its `include`
list) without building it. What a build from such an archive could find missing is a file outside
the sources that the sources name: `include_str!`, `include_bytes!` or `#[path]` targets, or a
build script. Each crate's `include` list already takes every `src/**/*.rs`, so this check
inspects those references and proves each target is in the archive; that is what the verification
build found, without compiling the workspace a second time.

Usage: python3 check_packages.py TARGET_DIR/package
Exit status: 0 every reference resolves inside its archive, 1 otherwise (each miss printed).
"""

import posixpath
import re
import sys
import tarfile
from pathlib import Path

# A literal path argument; `concat!`/`env!` forms are refused below, not guessed at.
INCLUDE = re.compile(r"\binclude_(?:str|bytes)!\s*\(\s*(\"(?:[^\"\\]|\\.)*\"|[^)]*)\)")
PATH_ATTR = re.compile(r"#\[path\s*=")


def check_archive(archive: Path) -> list[str]:
    problems = []
    with tarfile.open(archive, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
        # Every member sits under `<name>-<version>/`.
        roots = {name.split("/", 1)[0] for name in members}
        if len(roots) != 1:
            return [f"{archive.name}: expected one top-level directory, found {sorted(roots)}"]
        (root,) = roots
        files = {name[len(root) + 1 :] for name, m in members.items() if m.isfile()}
        if "build.rs" in files:
            problems.append(f"{archive.name}: has a build script; check its inputs by a verified build")
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            extracted = tar.extractfile(members[f"{root}/{name}"])
            if extracted is None:
                problems.append(f"{archive.name}: {name} could not be read")
                continue
            text = extracted.read().decode("utf-8", errors="replace")
            if PATH_ATTR.search(text):
                problems.append(f"{archive.name}: {name} uses #[path]; not checked here")
            for match in INCLUDE.finditer(text):
                argument = match.group(1).strip()
                if not (argument.startswith('"') and argument.endswith('"')):
                    problems.append(
                        f"{archive.name}: {name} includes a non-literal path ({argument}); not checked here"
                    )
                    continue
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), argument[1:-1]))
                if target.startswith("../") or target not in files:
                    problems.append(f"{archive.name}: {name} includes {argument[1:-1]}, not in the archive")
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    archives = sorted(Path(sys.argv[1]).glob("*.crate"))
    if not archives:
        print(f"no .crate archives under {sys.argv[1]}", file=sys.stderr)
        return 1
    problems = [p for archive in archives for p in check_archive(archive)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(archives)} archives checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
