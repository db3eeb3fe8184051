"""Plain-text helpers: markup stripping for analysis, derived titles, and page slugs."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence

from slugify import slugify

MAX_TITLE_LENGTH = 100
MAX_SLUG_WORDS_LENGTH = 60

# --- markup stripping -------------------------------------------------------------------------

# A formula never contains a bare "$": otherwise "$a$$b$" would read as one display formula "$$…$$"
# wrapping text that another reader (arithmatex) treats as prose.
_DISPLAY_MATH = re.compile(r"\$\$(?:\\.|[^$\\])+?\$\$|\\\[.+?\\\]", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)(?:\\.|[^$\\])+?(?<!\s)\$(?!\d)|\\\(.+?\\\)", re.S)
_MARKDOWN_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"]", re.I)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LATEX_WRAPPER = re.compile(
    r"\\(?:textbf|textit|emph|texttt|textsc|mathrm|mathbf|text|underline)\{([^{}]*)\}"
)
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|`+|~~")
_WHITESPACE = re.compile(r"\s+")


def find_math_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of TeX math (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``), in order."""
    spans: list[tuple[int, int]] = []
    for pattern in (_DISPLAY_MATH, _INLINE_MATH):
        for match in pattern.finditer(text):
            start, end = match.span()
            if not any(s < end and start < e for s, e in spans):
                spans.append((start, end))
    return sorted(spans)


def strip_markup(text: str, gap: str = " ") -> str:
    """Plain prose for analysis: math, URLs, HTML, Markdown and LaTeX markup removed.

    Emphasis markers vanish without leaving a gap, so ``**C**ontrolled`` reads ``Controlled``.
    What carried no words (math, URLs, LaTeX commands) is replaced by ``gap``; keyword extraction
    passes a phrase break there so no keyphrase spans a formula.
    """
    pieces = []
    last = 0
    for start, end in find_math_spans(text):
        pieces.append(text[last:start])
        pieces.append(gap)
        last = end
    pieces.append(text[last:])
    text = "".join(pieces)
    text = _MARKDOWN_IMAGE.sub(r"\1", text)
    text = _MARKDOWN_LINK.sub(r"\1", text)
    text = _URL.sub(gap, text)
    text = _HTML_COMMENT.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    text = html.unescape(text)
    for _ in range(3):  # nested wrappers such as \textbf{\emph{x}}
        text = _LATEX_WRAPPER.sub(r"\1", text)
    text = _LATEX_COMMAND.sub(gap, text)
    text = _EMPHASIS.sub("", text)
    text = text.replace("{", "").replace("}", "")
    return _WHITESPACE.sub(" ", text).strip()


# --- titles -----------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")
_NAMED_CONTRIBUTION = re.compile(
    r"(?:\b(?:we|this (?:paper|work)|the paper)\s+(?:also\s+)?(?:present|propose|introduce|develop|design|"
    r"describe|release|build|create|contribute)s?|\bby (?:introducing|proposing|presenting|developing))\s+",
    re.I,
)
_NAMING_WORD = re.compile(
    r"^(?P<what>.*?),?\s+(?:called|named|namely|termed(?: as)?|dubbed|coined)\s+(?P<name>[^,;]+?)"
    r"(?:\s*(?:,|;|$)|\s+(?=which|that|to|for|with|where)\b)(?P<after>.*)$",
    re.I,
)
_NAME_THEN_DESCRIPTION = re.compile(
    r"^(?:the\s+)?(?P<name>[^\s,]*[A-Z][^\s,]*(?:\s+[^\s,]*[A-Z][^\s,]*){0,5}(?:\s*\([^)]{1,30}\))?)"
    r"\s*,\s+(?P<what>(?:a|an|the)\s+.+)$",
)
_WHAT_WE_DO = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:first\s+|also\s+|further\s+)?"
    r"(?:investigate|study|examine|explore|analy[sz]e|address|tackle|consider|revisit|characteri[sz]e|"
    r"initiate the study of|focus on|propose|present|introduce|develop|provide|establish|derive)(?:e?s)?\s+"
    r"(?:and \w+\s+)?"
    r"(?P<rest>.+)",
    re.I,
)
_OPENING_FILLER = re.compile(
    r"^(?:in (?:this|our) (?:paper|work|study)|here|to (?:this|that) end|specifically|"
    r"in (?:the )?(?:previous|prior|recent|existing) (?:literature|work|years)|"
    r"in particular|to address (?:this|these)(?: \w+)?|therefore|thus),?\s+",
    re.I,
)
# A comma followed by a capitalised word usually continues a name ("Reweighing, Reselecting, and Retraining").
_CLAUSE_BREAK = re.compile(
    r",\s(?!(?:and\s|or\s)?[A-Z])|;\s|:\s|\s(?:which|that|where|while|whereby|so that|such that)\s"
)
_TRAILING_JUNK = re.compile(
    r"(?:\s+(?:a|an|the|of|and|or|for|with|in|on|to|by|from|via|as|at|its|their|our|we|is|are|can|whether|how|if|when|than))+$|"
    r"[\s,;:.\-–—(]+$",
    re.I,
)


def derive_title(abstract: str) -> str:
    """A readable title for a paper that has none, built from its abstract.

    When the abstract names its contribution ("We present X, a framework for …") the title is
    "X: A framework for …"; otherwise it is what the paper says it does, or its opening phrase.
    """
    # Math survives into the title (it is rendered there too): hide it from the markup stripper as
    # placeholder words and put it back at the end.
    formulas: list[str] = []

    def hide(match_text: str) -> str:
        formulas.append(match_text)
        return f"zqmath{len(formulas) - 1}zq"

    pieces, last = [], 0
    for start, end in find_math_spans(abstract):
        pieces.append(abstract[last:start])
        pieces.append(hide(abstract[start:end]) if "\n" not in abstract[start:end] else " ")
        last = end
    pieces.append(abstract[last:])
    title = _derive_plain_title(strip_markup("".join(pieces)))
    title = re.sub(r"zqmath(\d+)zq", lambda m: formulas[int(m.group(1))], title, flags=re.I)
    return _WHITESPACE.sub(" ", title).strip()


def _derive_plain_title(plain: str) -> str:
    sentences = [s.strip() for s in _SENTENCE_END.split(plain) if s.strip()]
    for sentence in sentences:
        title = _named_contribution_title(sentence)
        if title:
            return title
    for sentence in sentences:
        match = _WHAT_WE_DO.search(sentence)
        if match and not match.group("rest").lower().startswith(("that ", "how ", "whether ")):
            title = _shorten(match.group("rest"))
            if len(title) >= 20:
                return _capitalise(title)
    opening = _OPENING_FILLER.sub("", sentences[0] if sentences else plain)
    return _capitalise(_shorten(opening)) or "Untitled paper"


def _named_contribution_title(sentence: str) -> str | None:
    for trigger in _NAMED_CONTRIBUTION.finditer(sentence):
        rest = sentence[trigger.end() :].rstrip(".")
        named = _NAMING_WORD.match(rest)
        if named and len(named.group("name")) <= 60:
            name = named.group("name").strip(" \"'“”")
            what = named.group("what").strip()
            after = named.group("after").strip()
            if after.lower().startswith(("for ", "to ", "with ")) and not after.lower().startswith(
                "for which"
            ):
                what = f"{what} {after}"
            return _join_name(name, what)
        described = _NAME_THEN_DESCRIPTION.match(rest)
        if described:
            return _join_name(described.group("name").strip(" \"'“”"), described.group("what"))
    return None


def _join_name(name: str, description: str) -> str:
    description = re.sub(r"^(a|an)\s+(?:new|novel)\s+", r"\1 ", description.strip(), flags=re.I)
    description = re.sub(
        r"^an?\s+(?=\w)",
        lambda m: "an " if _starts_with_vowel_sound(description[m.end() :]) else "a ",
        description,
    )
    budget = MAX_TITLE_LENGTH - len(name) - 2
    if budget < 15:
        return _shorten(name)
    return f"{name}: {_capitalise(_shorten(description, budget))}"


def _starts_with_vowel_sound(word: str) -> bool:
    return word[:1].lower() in "aeiou"


def _shorten(text: str, limit: int = MAX_TITLE_LENGTH) -> str:
    """Cut at the first clause break past a readable length, then to ``limit`` at a word boundary."""
    text = text.strip().rstrip(".")
    for match in _CLAUSE_BREAK.finditer(text):
        if match.start() >= 20:
            text = text[: match.start()]
            break
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0]
    previous = None
    while previous != text:
        previous = text
        text = _TRAILING_JUNK.sub("", text)
    if text.count("(") > text.count(")"):
        text = text[: text.rfind("(")].rstrip()
    return text


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def unique_titles(titles: Sequence[str]) -> list[str]:
    """The same titles, with " (2)", " (3)", … added to repeats (case-insensitive), in order."""
    seen: dict[str, int] = {}
    result = []
    for title in titles:
        key = title.casefold()
        count = seen.get(key, 0) + 1
        seen[key] = count
        result.append(title if count == 1 else f"{title} ({count})")
    return result


# --- slugs ------------------------------------------------------------------------------------


def paper_slug(title: str, paper_id: str) -> str:
    """A stable, file-system-safe page name: readable words from the title plus a hash of the id.

    The hash makes the slug depend only on the paper itself, so adding papers never moves one.
    """
    words = slugify(title, max_length=MAX_SLUG_WORDS_LENGTH, word_boundary=True) or "paper"
    digest = hashlib.sha256(paper_id.encode("utf-8")).hexdigest()[:6]
    return f"{words}-{digest}"


def keyword_slug(keyword: str) -> str:
    return slugify(keyword, max_length=80, word_boundary=True) or (
        "keyword-" + hashlib.sha256(keyword.encode("utf-8")).hexdigest()[:8]
    )
