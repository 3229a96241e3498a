"""Plain-text mathematics as matplotlib draws it: :func:`math` typesets the scripts a statement is written with.

Check texts and the claims ledger write mathematics in plain Unicode with ASCII scripts, as a reader would type it:
``δ_{D‖D'}(ε)``, ``e^ε``, ``n^(−1/4)``, ``λ_n^(−1/2)``, ``Π_(j<i)``, ``‖θ‖²_((XᵀX)⁻¹)``, ``P_D[L > ε]``.  On a page
every such script is set as mathtext (no TeX), so that no reader meets ``^(`` or ``_`` in a statement:

* a token with braces, ``x_{…}`` or ``x^{…}``, whole;
* a one-letter superscript, ``e^ε``, ``σ^2``, ``[0,1]^d``, ``μ̄^p`` (not ``X^TX`` or ``2^-32``);
* a parenthesised script, its parentheses dropped: ``n^(−1/4)`` with its base, and any other -- nested
  (``e^(−log(2/δ))``, ``Ce^(−cdt^(3/2))``), spaced (``n^(a/4 − 1/2)``), after a subscript (``λ_n^(−1/2)``) or a
  subscript itself (``Π_(j<i)``) -- as scripts after their base;
* a short subscript on a one-letter base or an operator: ``λ_n``, ``E_𝒟``, ``θ*_λ``, ``P_D'``, ``max_i``
  (never an identifier such as ``lambda_min`` or ``n_iter``);
* the letters :data:`MATH_GLYPHS` DejaVu Sans lacks.

:func:`bind_scripts` keeps a spaced script on one line when a paragraph is wrapped.
"""

from __future__ import annotations

import re

# a token such as δ_{D‖D'}(ε) or e^{ε}; no backslash, so nothing in it can be read as a mathtext command
_SUBSCRIPTED = re.compile(r"(?<![\\\w])([^\s$(),;:=\\]*[_^]\{[^{}\\]*\}(?:\([^()\s\\]*\))?)")

#: Letters DejaVu Sans lacks, as mathtext (drawn from matplotlib's own math fonts): no tofu, no warning.
MATH_GLYPHS = {
    "𝒟": r"\mathcal{D}",
    "𝒳": r"\mathcal{X}",
    "𝒴": r"\mathcal{Y}",
    "𝒵": r"\mathcal{Z}",
    "𝒩": r"\mathcal{N}",
    "⟂": r"\perp",
}
_MATH_SEGMENT = re.compile(r"((?<!\\)\$.*?(?<!\\)\$)")


def _glyphs(segment: str, in_math: bool) -> str:
    for glyph, command in MATH_GLYPHS.items():
        segment = segment.replace(glyph, command + " " if in_math else f"${command}$")
    return segment


# a one-letter superscript such as e^ε, σ^2 or R^d (not X^TX or 2^-32; n^(…) is _PAREN_SUPERSCRIPT's): mathtext
_SUPERSCRIPT = re.compile(r"(?<![\\\w$])([A-Za-zα-ωΑ-Ω0-9]+\^[A-Za-zα-ω0-9])(?![\w{])")
# the same after any other base (μ̄^p, [0,1]^d, D∞^δ): the exponent alone is typeset
_CLOSED_LETTER = re.compile(r"(?<=[^\s$\\^_])\^([A-Za-zα-ω0-9])(?![\w{])")
# a parenthesised exponent such as n^(−1/4) or log(n)^(1/2): typeset as n^{−1/4} (the parentheses dropped)
_PAREN_SUPERSCRIPT = re.compile(r"(?<![\\\w$])([A-Za-zα-ωΑ-Ωℝ0-9]+|[A-Za-z]+\([^()$\s]{1,8}\))\^\(([^()$\s]{1,12})\)")
# the same after a closing parenthesis, (log(1/ρ))^(2/3): the exponent alone is typeset
_CLOSED_SUPERSCRIPT = re.compile(r"\)\^\(([^()$\s]{1,12})\)")
# A short subscript on a one-letter base or an operator: λ_n, E_𝒟, P_D', θ*_λ, χ²_d, F⁻¹_λ1, I_d, max_i.  A Latin
# base stands alone (never inside an identifier such as lambda_min or n_rows: no letter, digit, _, - or . before it);
# a Greek one may follow other symbols (dγ_n, Δλ_min, 8ρ_max), as no identifier of code holds a Greek letter, and
# takes a word too (δ_exact, λ_ObjPert, ε_Thm17).  A squared subscript keeps its square (λ_n²).
_MARKS = "*²ᵀᵖᴾ\u0302\u0303\u0304⁻¹"
_LATIN = rf"(?:(?<![A-Za-z0-9_\-./])[A-Za-z][{_MARKS}]*|\b(?:max|min|sup|inf|mean|median))"
_GREEK = rf"(?<![_\-.])[α-ωΑ-Ω][0-9]?[{_MARKS}]*"
_SHORT = r"(?:[A-Za-z0-9α-ω]'{0,2}){1,3}"
_END = r"(?![A-Za-z0-9α-ωΑ-Ω_])"
_SUBSCRIPT = re.compile(
    rf"({_LATIN}|{_GREEK})_(?:([𝒟𝒳𝒴𝒵]'{{0,2}})|({_SHORT}){_END})"  # E_𝒟e^(2ε): the script letter ends itself
    rf"|({_GREEK})_()([A-Za-z][A-Za-z0-9]{{3,9}}){_END}"
)
# a norm's subscript: ‖H‖_F, ‖θ‖²_K, ‖·‖_A
_NORM_SUBSCRIPT = re.compile(rf"(‖[²]?)_([A-Za-z0-9]{{1,3}}){_END}")
_SCRIPT_LIMIT = 48  # characters a parenthesised script may hold


def _closing(text: str, start: int) -> int | None:
    """The index of the parenthesis that closes the one at ``start``; None when it is not closed within
    :data:`_SCRIPT_LIMIT` characters or the script holds what mathtext reads as a command."""
    depth = 0
    for k in range(start, min(len(text), start + _SCRIPT_LIMIT + 2)):
        if text[k] in "\\{}$%#&~":
            return None
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return None


def _script_groups(text: str):
    """(start, end) of every parenthesised script ``^(…)`` or ``_(…)`` in ``text`` (after a non-space base)."""
    k = 1
    while k < len(text) - 1:
        if text[k] in "^_" and text[k + 1] == "(" and not text[k - 1].isspace():
            end = _closing(text, k + 1)
            if end is not None:
                yield k, end
                k = end
        k += 1


def bind_scripts(text: str) -> str:
    """``text`` with the spaces inside parenthesised scripts made unbreakable (U+00A0), so that wrapping keeps
    ``n^(a/4 − 1/2)`` whole."""
    out, done = [], 0
    for start, end in _script_groups(text):
        out += [text[done:start], text[start : end + 1].replace(" ", "\u00a0")]
        done = end + 1
    return "".join(out) + text[done:]


def _inner(script: str) -> str:
    """A script's content as mathtext: nested parenthesised scripts in braces, spaces kept as thin spaces."""
    out, done = [], 0
    for start, end in _script_groups(script):
        out += [script[done:start], f"{script[start]}{{{_inner(script[start + 2 : end])}}}"]
        done = end + 1
    text = "".join(out) + script[done:]
    return re.sub(r"[ \u00a0]+", r"\\,", text)


def _simple(part: str, start: int, end: int) -> bool:
    """Whether :data:`_PAREN_SUPERSCRIPT` or :data:`_CLOSED_SUPERSCRIPT` may set this script: an exponent of at most
    12 characters, neither nested nor spaced nor after a subscript."""
    content = part[start + 2 : end]
    after_subscript = re.search(r"_[A-Za-z0-9α-ω]{1,3}$", part[:start]) is not None
    return part[start] == "^" and len(content) <= 12 and not re.search(r"[()\s]", content) and not after_subscript


def _parenthesised_scripts(part: str, all_scripts: bool = True) -> str:
    """The parenthesised scripts of plain text (all, or only those the patterns cannot set) typeset after their
    base (with a subscript just before it)."""
    out, done = [], 0
    for start, end in _script_groups(part):
        if start < done or not (all_scripts or not _simple(part, start, end)):
            continue
        script = f"{part[start]}{{{_inner(part[start + 2 : end])}}}"
        base_end = start
        before = re.search(r"(?<=[^\s_])_([A-Za-z0-9α-ω]{1,3})$", part[done:start])
        if before and part[start] == "^":  # λ_n^(−1/2): both scripts on one base
            base_end, script = done + before.start(), f"_{{{before.group(1)}}}{script}"
        out += [part[done:base_end], f"${script}$"]
        done = end + 1
    return "".join(out) + part[done:]


def _subscript(match: re.Match) -> str:
    base = match.group(1) or match.group(4) or ""
    sub = match.group(2) or match.group(3) or match.group(6) or ""
    letters = sub.rstrip("'")
    if len(letters) > 1 and letters.isascii() and letters.isalpha() and not letters.isupper():  # λ_min: upright
        sub = rf"\mathrm{{{letters}}}" + sub[len(letters) :]
    return f"{base}$_{{{sub}}}$"


def _superscripts(part: str) -> str:
    part = _parenthesised_scripts(part, all_scripts=False)  # nested, spaced, after a subscript: before the patterns
    part = _CLOSED_SUPERSCRIPT.sub(r")$^{\1}$", _PAREN_SUPERSCRIPT.sub(r"$\1^{\2}$", part))
    part = _SUPERSCRIPT.sub(r"$\1$", part)
    segments = _MATH_SEGMENT.split(part)  # what is left in plain text: scripts after other bases, subscripts
    for k in range(0, len(segments), 2):
        plain = _CLOSED_LETTER.sub(r"$^{\1}$", _parenthesised_scripts(segments[k]))
        segments[k] = "".join(
            _NORM_SUBSCRIPT.sub(r"\1$_{\2}$", _SUBSCRIPT.sub(_subscript, piece)) if j % 2 == 0 else piece
            for j, piece in enumerate(_MATH_SEGMENT.split(plain))
        )
    return "".join(segments)


def math(text: str) -> str:
    """``text`` for matplotlib: a literal ``$`` escaped, its scripts typeset as mathtext (see the module's list),
    and the letters of :data:`MATH_GLYPHS` drawn as mathtext."""
    typeset = _SUBSCRIPTED.sub(r"$\1$", text.replace("$", r"\$"))
    if "^" not in typeset and "_" not in typeset and not any(glyph in typeset for glyph in MATH_GLYPHS):
        return typeset
    parts = _MATH_SEGMENT.split(typeset)  # odd parts are $…$ segments
    typeset = "".join(_superscripts(part) if k % 2 == 0 else part for k, part in enumerate(parts))
    parts = _MATH_SEGMENT.split(typeset)
    return "".join(_glyphs(part, k % 2 == 1) for k, part in enumerate(parts))
