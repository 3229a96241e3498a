"""The README's code blocks as files to run, letter for letter (the wheel smoke test runs them; see .ci/wheel-smoke).

    python readme_blocks.py README.md OUT

writes into OUT: ``install.sh`` (the first line of the top block: a venv, ``pip install .`` and ``pdp-audit run
gaussian``; its second line, the test suite, is CI's own step), ``quickstart1.sh``, ``quickstart2.py`` (the Python
block), ``my_mechanism.py`` (that block without the three lines that run it, as the README says),
``test_privacy.py`` (the plugin block), ``quickstart2-plugin.sh`` (the command the README runs it with),
``quickstart3.sh`` (every line of the sweep block but the Dask one) and
``quickstart3-dask.sh`` (that line alone: its 100 cells are run on a spec cut to tiny budgets).  Each block must be
where the README's headings put it: a README edited out of shape fails here, naming what it missed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def section(text: str, start: str, end: str) -> str:
    """The README from heading ``start`` to heading ``end``; exits naming them when either is gone."""
    try:
        return text[text.index(start) : text.index(end)]
    except ValueError:
        sys.exit(f"readme_blocks: no section between {start!r} and {end!r}")


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``text``, in order."""
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def main(readme: str, out: str) -> None:
    """Write the files named in the module's docstring into ``out``."""
    text = Path(readme).read_text(encoding="utf-8")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    top = blocks(section(text, "# pdp-audit", "## What it does"), "bash")[0].splitlines()
    assert len(top) == 2 and "pip install ." in top[0] and "pytest" in top[1], top
    (folder / "install.sh").write_text(top[0] + "\n", encoding="utf-8")
    first = section(text, "## Quickstart 1", "## Quickstart 2")
    (folder / "quickstart1.sh").write_text(blocks(first, "bash")[0], encoding="utf-8")
    second = section(text, "## Quickstart 2", "## Quickstart 3")
    mechanism, tests = blocks(second, "python")[:2]
    plugin = re.findall(r"`([^`]*pytest test_privacy\.py)`", second)
    assert len(plugin) == 1, plugin
    (folder / "quickstart2-plugin.sh").write_text(plugin[0] + "\n", encoding="utf-8")
    (folder / "quickstart2.py").write_text(mechanism, encoding="utf-8")
    class_alone = "\n".join(mechanism.rstrip("\n").split("\n")[:-3]) + "\n"
    (folder / "my_mechanism.py").write_text(class_alone, encoding="utf-8")
    (folder / "test_privacy.py").write_text(tests, encoding="utf-8")
    lines = blocks(section(text, "## Quickstart 3", "## Documentation"), "bash")[0].splitlines()
    dask = [line for line in lines if "--dask-local" in line]
    assert len(dask) == 1, dask
    (folder / "quickstart3.sh").write_text("\n".join(line for line in lines if line not in dask) + "\n")
    (folder / "quickstart3-dask.sh").write_text(dask[0] + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
