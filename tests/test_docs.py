"""The documentation agrees with the code: help texts and docs, the API reference and the public names, the links.

The CLI reference is generated at build time by ``docs/hooks/generated.py`` from the parsers; these tests check
that the generated page lists exactly each parser's options (against ``--help`` as argparse prints it, an
independent reading of the same parser), that no hand-written page or the README names an option no command has,
that every public name of ``pdp_audit`` is in the API reference, and that the home page and the README link pages
that exist.  They run without MkDocs (CI builds the site itself with ``mkdocs build --strict``).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import pytest

import pdp_audit

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# An option in prose: two dashes, a letter, then letters, digits, dashes (``--claim-epsilon``, ``--d``), not in a word.
OPTION = re.compile(r"(?<![\w-])--[a-z](?:[a-z0-9-]*[a-z0-9])?")
# Options of other programs that the pages quote, each with where it comes from.
OTHER_PROGRAMS = {
    "--port": "dask scheduler",
    "--nthreads": "dask worker",
    "--no-nanny": "dask worker",
    "--no-deps": "pip wheel",
    "--strict": "mkdocs build",
    "--upgrade": "pip install",
    "--quiet": "pip install",
    "--pids-limit": "docker run",
}


def generated():
    spec = importlib.util.spec_from_file_location("docs_generated", DOCS / "hooks" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sections(markdown: str) -> dict[str, str]:
    """The generated CLI page cut at its command headings: ``{"pdp-audit run gaussian": text, ...}``."""
    parts = re.split(r"^#{2,4} `([^`]+)`\n", markdown, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def table_options(section: str) -> set[str]:
    """The option strings in the first column of a section's argument table."""
    cells = re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)
    return {s for cell in cells for s in cell.split(", ") if s.startswith("-")}


def help_options(parser) -> set[str]:
    """The option strings of one parser as its ``--help`` prints them: each line of the options block that starts
    with a dash, up to the gap before its help text (``  -o OUT, --output OUT    the output``)."""
    flags = set()
    for line in parser.format_help().splitlines():
        if re.match(r"^ {2}-", line):
            invocation = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
            flags |= set(re.findall(r"(?<![\w-])(-{1,2}\w[\w-]*)", invocation))
    return flags


def parsers_options(gen) -> set[str]:
    return {s for _, parser in gen.cli_parsers() for s in gen.parser_options(parser)}


def pytest_options() -> set[str]:
    """The options the pytest plugin and this project's conftest add, collected from their ``pytest_addoption``."""
    found: set[str] = set()

    class Group:
        def addoption(self, *flags, **kwargs):
            found.update(flags)

    class Parser(Group):
        def getgroup(self, *args, **kwargs):
            return Group()

    from pdp_audit import pytest_plugin

    pytest_plugin.pytest_addoption(Parser())
    spec = importlib.util.spec_from_file_location("project_conftest", ROOT / "tests" / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    conftest.pytest_addoption(Parser())
    return found


def script_options() -> set[str]:
    """Options the benchmark and example scripts declare (``"--markdown"`` in their argparse calls)."""
    sources = [*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "examples").rglob("*.py")]
    return {m for path in sources for m in re.findall(r"""["'](--[a-z][a-z0-9-]*)["']""", path.read_text())}


def hand_written_pages() -> list[Path]:
    return [p for p in sorted(DOCS.rglob("*.md")) if "<!-- generated: cli -->" not in p.read_text(encoding="utf-8")]


def test_the_cli_reference_lists_exactly_each_parsers_options():
    gen = generated()
    by_command = sections(gen.cli_markdown())
    parsers = gen.cli_parsers()
    assert set(by_command) == {command for command, _ in parsers}
    for command, parser in parsers:
        listed = table_options(by_command[command])
        assert listed == gen.parser_options(parser), command
        assert listed == help_options(parser), command


def test_the_cli_reference_shows_each_options_help_text():
    gen = generated()
    by_command = sections(gen.cli_markdown())
    for command, parser in gen.cli_parsers():
        for action in gen.option_actions(parser):
            words = " ".join(gen._help(parser, action).split()).replace("|", "\\|")
            assert words in by_command[command], (command, action.option_strings)


def test_the_checker_sees_an_option_the_parser_lacks():
    gen = generated()
    (command, parser), *_ = [(c, p) for c, p in gen.cli_parsers() if c == "pdp-audit tau"]
    listed = table_options(sections(gen.cli_markdown())[command])
    parser.add_argument("--not-in-the-docs", help="added after the page was written")
    assert listed != gen.parser_options(parser)


def test_no_page_names_an_option_that_no_command_has():
    known = parsers_options(generated()) | pytest_options() | script_options() | set(OTHER_PROGRAMS)
    unknown = {}
    for path in [*hand_written_pages(), ROOT / "README.md"]:
        for option in set(OPTION.findall(path.read_text(encoding="utf-8"))) - known:
            unknown.setdefault(option, []).append(str(path.relative_to(ROOT)))
    assert not unknown, unknown


def test_the_option_scan_finds_a_misspelt_option():
    known = parsers_options(generated())
    assert "--claim-epsilon" in known
    assert set(OPTION.findall("run it with `--claim-epsilon 1 --claim-epsilom 2`")) - known == {"--claim-epsilom"}


def test_the_api_reference_documents_every_public_name():
    api = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^::: pdp_audit\.(\w+)$", api, flags=re.M))
    assert documented == set(pdp_audit.__all__) - {"__version__"}
    assert "`pdp_audit.__version__`" in api


def linked_pages(markdown: str) -> set[str]:
    return {link.split("#")[0] for link in re.findall(r"\]\(([^)\s]+\.md(?:#[\w-]+)?)\)", markdown)}


@pytest.mark.parametrize(
    "task, page",
    [
        ("certify my CSV", "how-to/certify.md"),
        ("test my own mechanism", "how-to/own-mechanism.md"),
        ("audit canary scores", "how-to/canaries.md"),
        ("run a sweep on Dask", "how-to/sweeps.md"),
    ],
)
def test_the_home_page_links_each_task_directly(task, page):
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    line = next(line for line in home.splitlines() if task in line)
    assert f"]({page})" in line
    assert (DOCS / page).is_file()
    assert page in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_readme_and_home_page_link_pages_that_exist():
    for page in linked_pages((ROOT / "README.md").read_text(encoding="utf-8")):
        assert (ROOT / page).is_file(), page
    for page in linked_pages((DOCS / "index.md").read_text(encoding="utf-8")):
        assert (DOCS / page).is_file(), page


@pytest.mark.parametrize(
    "page, first_screen, prefix",
    [("README.md", "\n```bash\n", "docs/"), ("docs/index.md", "\n## I want to", "")],
)
def test_the_first_screen_leads_to_the_program_guides_the_tutorial_and_the_glossary(page, first_screen, prefix):
    """Issue 86: the program audit was found by accident -- neither the README nor the home page linked the programs
    or library guides.  Their first screen (before the README's first command, the home page's task table) does."""
    text = (ROOT / page).read_text(encoding="utf-8")
    top = text.split(first_screen)[0]
    for guide in (
        "how-to/programs.md",
        "how-to/library-pipelines.md",
        "tutorials/five-minutes.md",
        "reference/glossary.md",
    ):
        assert f"]({prefix}{guide})" in top, (page, guide)
        assert (DOCS / guide).is_file() and guide in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for guide in ("tutorials/five-minutes.md", "reference/glossary.md"):  # the program guide leads to both
        assert f"(../{guide})" in (DOCS / "how-to" / "programs.md").read_text(encoding="utf-8")


def test_the_readme_holds_the_test_command_ci_runs():
    """CI runs the README's test command with tier 2 beside it (``--tier all``, tests/tiers.py): the README names
    that command, and its first screen's test command is the same command without the tier."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    (lap,) = [i for i, line in enumerate(ci) if line.startswith("lap ") and "the README's test command" in line]
    command = ci[lap + 1].strip()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert command in readme
    tier_1 = command.removesuffix(" --tier all")
    assert tier_1 != command and f'pip install -e ".[test]" && {tier_1}\n' in readme


# The audit pages' option tables (hand-written: they say what an option means) and the audits they describe.
AUDIT_PAGES = {
    "gaussian": ("gaussian",),
    "objpert": ("objpert",),
    "goe": ("goe-release",),
    "linreg": ("output-perturbation", "ops", "adaops", "adassp", "ssp"),
    "dp-sgd": ("dp-sgd",),
}


def declared_default(audit: str, flag: str):
    """The default of ``pdp-audit run AUDIT``'s ``flag``: its declared option's, else the parser's; where that is
    None (resolved at run time), the text after "default:" in its help (``diabetes, unless --data``); None if none.
    """
    from pdp_audit.catalogue.plans import plans_by_name

    gen = generated()
    options = {o.cli_flag: o for o in plans_by_name()[audit].options().values()}
    (parser,) = [p for command, p in gen.cli_parsers() if command == f"pdp-audit run {audit}"]
    (action,) = [a for a in parser.arguments if flag in a.option_strings]
    default = options[flag].default if flag in options else action.default
    if default is None or default is False or default == argparse.SUPPRESS:
        said = re.search(r"default: ([^)]*)", gen._help(parser, action))
        return said.group(1) if said else None
    return default


def agrees(stated, declared) -> bool:
    """A stated number equals the declared one; a stated word is the declared value or leads its help's default."""
    if isinstance(declared, str):  # the help's words: the stated value must lead them
        number = re.match(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?\b", declared)
        if isinstance(stated, float):
            return bool(number) and float(number.group(0)) == stated
        return bool(re.match(rf"{re.escape(stated)}\b", declared))
    return (
        not isinstance(stated, str) and float(declared) == stated if isinstance(stated, float) else declared == stated
    )


def stated_defaults(cell: str) -> list:
    """A default cell's values when it states plain values (``1, 1e-5``, `` `sum` ``), else [] (prose, a dash)."""
    values = []
    for token in (t.strip().strip("`") for t in cell.split(",")):
        if re.fullmatch(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", token):
            values.append(float(token))
        elif re.fullmatch(r"[a-z][a-z0-9-]*", token):
            values.append(token)
        else:
            return []
    return values


@pytest.mark.tier2
def test_the_defaults_the_audit_pages_state_are_the_parsers():
    compared = 0
    for page, audits in AUDIT_PAGES.items():
        text = (DOCS / "reference" / "audits" / f"{page}.md").read_text(encoding="utf-8")
        for options, cell in re.findall(r"^\| (`--[^|]*`) \| .* \| ([^|]*) \|$", text, flags=re.M):
            flags = OPTION.findall(options)
            stated = stated_defaults(cell.strip())
            if not stated:
                continue
            for audit in audits:
                declared = [d for d in (declared_default(audit, f) for f in flags) if d is not None]
                assert len(declared) == len(stated), (page, options, cell, audit, declared)
                for want, have in zip(stated, declared):
                    assert agrees(want, have), (page, options, cell, audit, have)
                compared += 1
    assert compared >= 30  # the tables state about 30 plain defaults: a parse that found none would prove nothing


def test_sphinx_roles_of_the_docstrings_render_as_code():
    """mkdocstrings rendered ":func:`x`" as ":func:" and the name in code; the hook drops the role."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("roles", Path(__file__).parents[1] / "docs/hooks/roles.py")
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    html = "see :func:<code>pdp_audit.audit_pair</code> and :class:<code>~pdp_audit.reports.records.Run</code>."
    assert roles.on_page_content(html) == "see <code>pdp_audit.audit_pair</code> and <code>Run</code>."


def _blocks(markdown: str, start: str, end: str | None, language: str) -> list[str]:
    section = markdown[markdown.index(start) : markdown.index(end) if end else None]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def test_getting_started_runs_the_readmes_quickstarts_as_written():
    """The wheel smoke test runs the README's quickstarts verbatim (.ci/wheel-smoke); getting-started repeats them,
    so its blocks must be the README's, letter for letter (they had drifted: `pdp-audit examples examples` there
    exited 2 in a checkout, and its sweep named examples/ in a folder that had none)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    pairs = [
        (("## Install", "## Three quickstarts", "bash"), ("# pdp-audit", "## What it does", "bash")),
        (("**1. Certify", "**2. Test", "bash"), ("## Quickstart 1", "## Quickstart 2", "bash")),
        (("**2. Test", "**3. Run", "python"), ("## Quickstart 2", "## Quickstart 3", "python")),
        (("**3. Run", "## A tour", "bash"), ("## Quickstart 3", "## Documentation", "bash")),
    ]
    for ours, theirs in pairs:
        assert _blocks(started, *ours)[0] == _blocks(readme, *theirs)[0], ours


def prose_paragraphs(markdown: str) -> list[str]:
    """The paragraphs of ``markdown`` that are prose: not code, tables, lists or headings."""
    markdown = re.sub(r"```.*?```", "", markdown, flags=re.S)
    paragraphs = re.split(r"\n\s*\n", markdown)
    return [p for p in paragraphs if p.strip() and not re.match(r"(\s|[|#*>-]|\d+\.)", p)]  # indented: a list's


def test_how_to_paragraphs_are_recipes_not_walls_of_text():
    """A how-to is steps and short paragraphs (the own-mechanism page had 300–570-word paragraphs mixing the recipe
    with the history of each check; those details live in docs/explanation/pair-checks.md now)."""
    long = {
        f"{path.name}: {' '.join(p.split()[:8])}… ({len(p.split())} words)"
        for path in sorted((DOCS / "how-to").glob("*.md")) + [DOCS / "getting-started.md"]
        for p in prose_paragraphs(path.read_text(encoding="utf-8"))
        if len(p.split()) > 200
    }
    assert not long, long


def test_the_guides_start_from_the_installed_examples():
    """A guide's commands run from an install: the shipped files come from ``pdp-audit examples ex && cd ex``, never
    from a checkout's ``examples/`` (``cp examples/deploy-gaussian.toml`` failed from an install)."""
    from pdp_audit.cli.examples import shipped_examples

    shipped = set(shipped_examples())
    pages = sorted((DOCS / "how-to").glob("*.md")) + [DOCS / "getting-started.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not re.findall(r"(?<![\w.])examples/[\w.-]+", text), page.name
        named = {name for name in shipped if re.search(rf"(?<![\w/.-]){re.escape(name)}\b", text)}
        if named:
            commands = "\n".join(_fenced(text, "bash"))
            assert re.search(r"pdp-audit examples \S+ && cd \S+", commands), (page.name, sorted(named)[:3])


def _fenced(markdown: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", markdown, re.S)
