"""TeX as plain Unicode text, for the places a formula cannot be rendered: the map's tooltips, the
feed's titles, citation metadata.

``k \\ge 0`` reads "k ≥ 0", ``O(\\sqrt{T})`` "O(√T)", ``1.89\\times`` "1.89×" and ``L_2^2`` "L₂²".
A command with no symbol of its own keeps its name (``\\log`` "log"), so nothing is lost; wrappers
such as ``\\texttt{MoE}`` are unwrapped. Search keeps command names as words instead
(``generator.site.search_text.readable_tex``), so that "delta" finds ``\\delta``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from generator.analysis.text import find_math_spans
from generator.site.search_text import TEX_COMMAND, TEX_WRAPPERS

_GREEK = {
    name: chr(code)
    for name, code in [
        ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
        ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("vartheta", 0x3D1),
        ("iota", 0x3B9), ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE),
        ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3C6),
        ("varphi", 0x3C6), ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393),
        ("Delta", 0x394), ("Theta", 0x398), ("Lambda", 0x39B), ("Xi", 0x39E), ("Pi", 0x3A0),
        ("Sigma", 0x3A3), ("Upsilon", 0x3A5), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9),
    ]
}  # fmt: skip
_SYMBOLS = {
    **_GREEK,
    "ge": "≥", "geq": "≥", "le": "≤", "leq": "≤", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼",
    "simeq": "≃", "equiv": "≡", "propto": "∝", "times": "×", "cdot": "·", "pm": "±", "mp": "∓",
    "div": "÷", "infty": "∞", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪",
    "cap": "∩", "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦",
    "leftrightarrow": "↔", "ell": "ℓ", "partial": "∂", "nabla": "∇", "forall": "∀", "exists": "∃",
    "sum": "Σ", "prod": "∏", "int": "∫", "ldots": "…", "cdots": "⋯", "dots": "…", "star": "⋆",
    "ast": "∗", "circ": "∘", "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈",
    "rceil": "⌉", "emptyset": "∅", "varnothing": "∅", "top": "⊤", "perp": "⊥", "wedge": "∧",
    "vee": "∨", "neg": "¬", "oplus": "⊕", "otimes": "⊗", "ll": "≪", "gg": "≫", "prime": "′",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "lvert": "|", "rvert": "|", "vert": "|", "mid": "|",
}  # fmt: skip
_SPACING = {"quad", "qquad", "displaystyle", "limits"}
_SIZING = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"}
"""Commands that only size the bracket after them: "\\left(" is "("."""
_ESCAPED = {
    "|": "‖",
    ",": " ",
    ";": " ",
    ":": " ",
    "!": "",
    " ": " ",
    "\\": " ",
    "{": "\ue000",
    "}": "\ue001",
}
"""Escaped characters that are not themselves: a norm's bars, TeX's spaces, and braces kept apart
from TeX's grouping ones until those are dropped."""
_ACCENTS = {"tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302",
            "bar": "\u0304", "overline": "\u0304", "vec": "\u20d7", "dot": "\u0307"}  # fmt: skip
"""Combining marks, so that \\tilde{O} reads "Õ", not "O"."""
_SUPERSCRIPT = dict(zip("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", strict=True))
_SUBSCRIPT = dict(zip("0123456789+-=()aeioxnmkt", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢₒₓₙₘₖₜ", strict=True))

_WRAPPER = re.compile(rf"\\(?:{TEX_WRAPPERS}|bf|it|rm)\*?\{{([^{{}}]*)\}}")
_SQRT = re.compile(r"\\sqrt\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_ACCENT = re.compile(
    r"\\(" + "|".join(_ACCENTS) + r")(?![A-Za-z])\s*(?:\{([^{}]*)\}|(\\[A-Za-z]+|[A-Za-z0-9]))"
)
_SCRIPT = re.compile(r"([_^])(?:\{([^{}]*)\}|([A-Za-z0-9+\-]))")


def unicode_math(formula: str) -> str:
    """One formula's TeX (without its delimiters) as plain Unicode text."""
    text = formula.replace("\ue000", "").replace("\ue001", "")  # private-use: the braces' placeholders
    for _ in range(3):  # nested wrappers
        text = _WRAPPER.sub(r"\1", text)
        text = _SQRT.sub(lambda m: "√" + _grouped(m.group(1)), text)
        text = _FRAC.sub(lambda m: f"{_grouped(m.group(1))}/{_grouped(m.group(2))}", text)
        text = _ACCENT.sub(lambda m: (m.group(2) or m.group(3) or "") + _ACCENTS[m.group(1)], text)

    def command(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:  # an escaped character: "\%", "\{", "\|", "\,"
            return _ESCAPED.get(match.group(2), match.group(2))
        if name in _SIZING:
            return ""
        if name in _SPACING:
            return " "
        return _SYMBOLS.get(name, name)

    text = TEX_COMMAND.sub(command, text)
    text = _SCRIPT.sub(_script, text)
    text = text.replace("{", "").replace("}", "").replace("\ue000", "{").replace("\ue001", "}")
    return unicodedata.normalize("NFC", " ".join(text.split()))  # "Õ", not "O" and a combining tilde


def _grouped(text: str) -> str:
    """``text`` as an operand: in parentheses unless it is one symbol or already bracketed."""
    text = text.strip()
    return text if len(text) <= 1 or re.fullmatch(r"\\?[A-Za-z0-9]+|\([^()]*\)", text) else f"({text})"


def _script(match: re.Match[str]) -> str:
    """A sub- or superscript in Unicode's script digits and letters when it has them all, else as
    written (``x_{ij}`` → "x_ij")."""
    marker, body = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    table = _SUPERSCRIPT if marker == "^" else _SUBSCRIPT
    if body and all(character in table for character in body):
        return "".join(table[character] for character in body)
    return f"{marker}{body}"


def with_math_as(text: str, formula_text: Callable[[str], str], other_text: Callable[[str], str]) -> str:
    """``text`` on one line with each formula (its TeX without delimiters) given by ``formula_text``
    and what is between formulas by ``other_text``."""
    pieces, last = [], 0
    for start, end in find_math_spans(text):
        formula = text[start:end].strip("$").removeprefix("\\(").removesuffix("\\)")
        pieces += [other_text(text[last:start]), formula_text(formula)]
        last = end
    pieces.append(other_text(text[last:]))
    return " ".join("".join(pieces).split())


def readable_title(title: str) -> str:
    """A title as plain text where no MathJax renders it (the map's tooltips, the feed, citation
    metadata): its TeX as Unicode (``generator.site.plain_math``), "k ≥ 0" for ``$k \\ge 0$``. TeX
    written outside ``$…$`` ("\\texttt{MoE}") is unwrapped too, but "ego_exo" stays as it is."""
    return with_math_as(
        title, unicode_math, lambda words: _TEX_OUTSIDE_MATH.sub(lambda m: unicode_math(m.group(0)), words)
    )


_TEX_OUTSIDE_MATH = re.compile(r"\\[A-Za-z]+\*?(?:\{[^{}]*\})?|[{}]")
