"""Counts a crate's public API from its rustdoc HTML: the items (structs, enums, traits,
functions, type aliases, constants, macros), their inherent methods and associated constants,
enum variants and public fields, and the paths under which each item is public (an item
re-exported at the crate root and also public in its module counts twice there).

    cargo doc -p gpucloud --no-deps && python3 .ci/public_items.py target/doc/gpucloud
"""

import html
import pathlib
import re
import sys


def count(doc: pathlib.Path) -> dict:
    listed = re.findall(r'<a href="([^"]+\.html)">', (doc / "all.html").read_text())
    items = [h for h in listed if not h.endswith("index.html")]
    members = variants = fields = 0
    for href in items:
        page = (doc / href).read_text()
        # Inherent associated items: between "Implementations" and the trait implementations.
        start = page.find('id="implementations"')
        if start >= 0:
            end = min(
                (i for i in (page.find('id="trait-implementations"', start),
                             page.find('id="synthetic-implementations"', start),
                             page.find('id="blanket-implementations"', start)) if i >= 0),
                default=len(page),
            )
            members += len(re.findall(r'<section id="(?:method|associatedconstant)\.', page[start:end]))
        variants += len(re.findall(r'<section id="variant\.[^"]+"', page))
        fields += len(re.findall(r'<span id="structfield\.[^"]+"', page))
    # Every path an item is public under: its own page, and each re-export page pointing to it.
    paths = len(items) + sum(
        len(re.findall(r'<dt id="reexport\.', p.read_text())) for p in doc.rglob("index.html")
    )
    return {
        "items": len(items),
        "inherent methods and constants": members,
        "enum variants": variants,
        "public fields": fields,
        "total": len(items) + members + variants + fields,
        "paths (items and re-exports)": paths,
    }


if __name__ == "__main__":
    for name, value in count(pathlib.Path(sys.argv[1])).items():
        print(f"{value:6}  {name}")
