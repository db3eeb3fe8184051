"""TeX as plain Unicode text where no MathJax renders it (map tooltips, feed, citation metadata)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.site.plain_math import readable_title, unicode_math


@pytest.mark.parametrize(
    ("title", "plain"),
    [
        ("k-RPW: parameterized by $k \\ge 0$", "k-RPW: parameterized by k ≥ 0"),
        ("$O(\\sqrt{K+K/B})$ regret", "O(√(K+K/B)) regret"),
        ("A $1.89\\times$ speedup", "A 1.89× speedup"),
        ("Learning under the $L_2^2$ loss", "Learning under the L₂² loss"),
        ("$\\|G_t\\|$ bounds", "‖Gₜ‖ bounds"),
        ("$\\sqrt{\\frac{1}{n}}$ rates in $\\mathcal{O}(\\log T)$", "√(1/n) rates in O(log T)"),
        ("$\\alpha$-divergences and $\\ell_1$ costs $5", "α-divergences and ℓ₁ costs $5"),
        ("$x_{ij}^{(t)}$ as written", "x_ij^(t) as written"),
        ("The ego_exo and my_token datasets", "The ego_exo and my_token datasets"),
        ("$O\\left(\\sqrt{T}\\right)$ against $\\tilde{O}(\\sqrt{T})$", "O(√T) against Õ(√T)"),
        ("over $\\{1,\\dots,n\\}$ with $\\hat\\theta$", "over {1,…,n} with θ̂"),
        ("$\\sqrt{(a)+(b)}$", "√((a)+(b))"),
    ],
)
def test_a_title_reads_as_unicode_where_math_is_not_rendered(title: str, plain: str) -> None:
    assert readable_title(title) == plain


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_any_formula_becomes_text_without_tex_commands_or_braces(formula: str) -> None:
    text = unicode_math(formula)
    if "\\{" not in formula and "\\}" not in formula:  # only escaped braces are shown
        assert "{" not in text and "}" not in text
    assert not any(text[i] == "\\" and text[i + 1 : i + 2].isalpha() for i in range(len(text)))
