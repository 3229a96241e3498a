"""MkDocs hook: the Sphinx roles of the docstrings (``:func:`x```, ``:class:`~a.B```) rendered as code.

The docstrings cross-reference with Sphinx roles, which mkdocstrings' Markdown does not know: it rendered them as
":func:" followed by the name in code.  After rendering, each role's prefix is dropped (and Sphinx's ``~``, "show
the last component only", applied), so the name reads as code, like every other identifier of the reference.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|ref|term):<code>(~?)([^<]*)</code>")


def _code(match: re.Match) -> str:
    name = match.group(2).rsplit(".", 1)[-1] if match.group(1) else match.group(2)
    return f"<code>{name}</code>"


def without_roles(html: str) -> str:
    """``html`` with each rendered Sphinx role shown as the code of its target."""
    return ROLE.sub(_code, html)


def on_page_content(html: str, **_) -> str:
    """MkDocs' hook after a page is rendered: its roles as code (:func:`without_roles`)."""
    return without_roles(html)
