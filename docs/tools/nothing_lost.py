"""Nothing lost: every heading, number, table row and line of an earlier README lands in some page of the docs.

Usage, from the repository root (the README before the docs site was split out of it)::

    git show 0a32d01:README.md > /tmp/old-readme.md && python docs/tools/nothing_lost.py /tmp/old-readme.md

The corpus is every page under docs/, the generated pages (docs/hooks/generated.py) and the new README.  It
prints the headings not found as headings, the numbers found fewer times than before (a multiset comparison),
the table rows and the other lines not found verbatim (whitespace normalised): the rewritten lines to review.
"""

import collections
import importlib.util
import pathlib
import re
import sys

NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:e[-+]?\d+)?(?:[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?")


def normalised(text: str) -> str:
    """``text`` with every run of whitespace one space."""
    return " ".join(text.split())


def corpus() -> str:
    """Every page of the site as Markdown (generated ones as generated) and the README."""
    spec = importlib.util.spec_from_file_location("generated", "docs/hooks/generated.py")
    generated = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generated)
    pages = [p.read_text(encoding="utf-8") for p in sorted(pathlib.Path("docs").rglob("*.md"))]
    pages.append(pathlib.Path("README.md").read_text(encoding="utf-8"))
    pages += [make() for make in generated.GENERATORS.values()]
    return "\n".join(pages)


def main(old_readme: str) -> int:
    """Print what of ``old_readme`` the docs do not hold verbatim; exit 1 when a heading, number or row is lost."""
    old = pathlib.Path(old_readme).read_text(encoding="utf-8")
    text = corpus()
    flat = normalised(text)
    headings = [h.strip("# ").strip() for h in old.splitlines() if re.match(r"^#{1,6} ", h)]
    lost_headings = [h for h in headings if not re.search(r"^#{1,6} " + re.escape(h) + r"\s*$", text, re.M)]
    before, after = collections.Counter(NUMBER.findall(old)), collections.Counter(NUMBER.findall(text))
    fewer = {n: c - after[n] for n, c in before.items() if after[n] < c}
    rows = [r for r in old.splitlines() if r.startswith("|")]
    lost_rows = [r for r in rows if normalised(r) not in flat]
    lines = [s for s in old.splitlines() if s.strip() and not s.startswith(("|", "```"))]
    rewritten = [s for s in lines if normalised(s).lstrip("#").strip() not in flat]
    print(f"headings: {len(headings)}, not found as headings: {len(lost_headings)} {lost_headings}")
    print(f"numbers: {sum(before.values())} occurrences of {len(before)} distinct; fewer in the docs: {fewer}")
    print(f"table rows: {len(rows)}, not found verbatim: {len(lost_rows)}")
    print("\n".join("  ROW " + r[:150] for r in lost_rows))
    print(f"other lines: {len(lines)}, not found verbatim (rewritten: review them): {len(rewritten)}")
    print("\n".join("  LINE " + s[:150] for s in rewritten))
    return 1 if lost_headings or fewer or lost_rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
