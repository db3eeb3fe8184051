"""Plain-text helpers: markup stripping for analysis, the phrases and grammar of derived titles (which
phrase becomes the title is learned: ``generator.analysis.titles``), and page slugs."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence

from slugify import slugify

MAX_TITLE_LENGTH = 90
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


# --- titles ---------------------------------------------------------------------------------

# Titles are the abstract's own words: the phrases found here (what the paper says it does, a method's
# name and description, a sentence's opening) are candidates that a model learned from real titles
# chooses among (``generator.analysis.titles``). Grammar rules that hold in any field compress them:
# stop at the first clause break, at a coordinated verb ("… and show that …") or, past the length
# limit, before a preposition; never end on a function word, a verb or a modifier left without its noun.

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")
_NAMED_CONTRIBUTION = re.compile(
    r"(?:\b(?:we|this (?:paper|work)|the paper|our (?:work|paper))\s+(?:also\s+|further\s+|then\s+)?"
    r"(?:present|propose|introduce|develop|design|describe|release|build|create|contribute|devise|construct)s?"
    r"(?:\s+and\s+[a-z]+|\s+to\s+[a-z]+)?|"  # "we propose and analyze X", "we propose to design X"
    r"\bby (?:introducing|proposing|presenting|developing))\s+",
    re.I,
)
_NAMING_WORD = re.compile(
    r"^(?P<what>.*?),?\s+(?:called|named|namely|termed(?: as)?|dubbed|coined)\s+(?P<name>[^,;]+?)"
    r"(?:\s*(?:,|;|$)|\s+(?=which|that|to|for|with|where)\b)(?P<after>.*)$",
    re.I,
)
_NAME_THEN_DESCRIPTION = re.compile(
    r"^(?:the\s+)?(?P<name>[^\s,;]*[A-Z][^\s,;]*(?:\s+(?:(?:and|of|for|to|via|in|with)\s+)?[^\s,;]*[A-Z][^\s,;]*)"
    r"{0,5}(?:\s*\([^)]{1,30}\))?)\s*[,;]\s+(?P<what>(?:a|an|the)\s+.+)$",
)
# "a new metric, DreamSim, tuned to …"
_DESCRIPTION_THEN_NAME = re.compile(
    r"^(?P<what>(?:a|an|the)\s+[^,;]{3,60}?),\s+(?P<name>[^\s,;]*[A-Z][^\s,;]*(?:\s+[^\s,;]*[A-Z][^\s,;]*){0,3})"
    r"\s*,\s*(?P<after>.*)$",
)
# "we propose D-CIPHER, which …"
_BARE_NAME = re.compile(r"^(?P<name>[^\s,;]*[A-Z][^\s,;]*)(?:\s*[,;]|\s+(?:which|that|to)\s)")
_NAME_GIVEN = re.compile(
    r"\b(?:we (?:call|term|dub|name)|(?:called|dubbed|named|termed|coined)(?: as)?)\s+"
    r"(?P<name>[\"“]?[^\s,;()]*[A-Z][^\s,;()]*(?:\s+[^\s,;()]*[A-Z][^\s,;()]*){0,4}(?:\s*\([^)]{1,20}\))?)",
)
# "a new method for X (NAME)": the acronym at the end of the phrase names it.
_ACRONYM_AFTER = re.compile(
    r"^(?P<what>[^,;()]{10,100}?)\s*\((?P<name>[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)"
)
# "We investigate to what extent …": "to" and a wh-word are not "to <verb>".
_WH_WORDS = "what|which|whom|who|where|when|why|how|whether"
_WHAT_WE_DO = re.compile(
    r"\b(?:we|this (?:paper|work|study|article))\s+(?:first\s+|also\s+|further\s+|then\s+)?"
    r"(?:(?:aim|seek|set out|attempt|try) to\s+)?"
    r"(?:investigate|study|examine|explore|analy[sz]e|address|tackle|consider|revisit|characteri[sz]e|"
    r"initiate the study of|focus on|propose|present|introduce|develop|provide|establish|derive|"
    r"build|design|describe|report on|formali[sz]e)(?:e?s)?\s+"
    r"(?:and \w+\s+|to (?!(?:" + _WH_WORDS + r")\b)(?P<to_verb>[a-z]+)\s+)?"
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
    r",\s(?!(?:and\s|or\s)?[A-Z])|;\s|:\s|\s[-–—]+\s|\s(?:which|that|where|while|whereby|whose|who|"
    r"so that|such that|thereby|because|since|although|whereas|i\.e\.|e\.g\.)\s"
)
# Where a long title may be cut: before a preposition or conjunction, so what is left is a whole
# noun phrase ("… large language" is not).
_PHRASE_CUT = re.compile(
    r"\s(?=(?:for|in|with|via|on|under|using|by|through|from|when|to|across|without|based on|"
    r"beyond|over|into|against|of|and|or)\s)",
    re.I,
)
_CUT_AFTER_CHARACTERS = 12
_ENUMERATION = re.compile(r"[:,;]?\s+\(?(?:1|i|a)\)\s")
_DANGLING = frozenset(
    {"novel", "new", "based", "via", "using", "towards", "toward", "such", "versus", "vs", "due"}
)
# The last parts of hyphenated words that modify a noun still to come ("small-scale", "model-based").
_MODIFIER_COMPOUND_ENDS = frozenset(
    {"scale", "based", "level", "aware", "free", "like", "specific", "agnostic", "dependent", "order",
     "invariant", "efficient", "oriented", "grained", "wise", "independent", "step", "time"}
)  # fmt: skip
# Prepositions after which a gerund needs its object: "success at finding", "progress in solving".
_BEFORE_AN_OBJECT = frozenset({"at", "in", "by", "on", "with", "from"})
# Words in -ly are mostly adverbs ("… are widely", "… can efficiently") or adjectives ("costly"),
# which leave a title hanging; words with these endings are nouns (``LY_NOUNS`` holds the rest).
_LY_NOUN_ENDINGS = ("phily", "family", "assembly", "anomaly", "opoly", "butterfly")
# Adverbs made of adjectives ("differentially", "provably", "actively", "seriously"; not "early",
# "only", "scholarly"): the word after one is an adjective or a verb, never the noun a phrase ends with.
_ADVERB = re.compile(r"(?:al|ive|ab|ib|ent|ant|ous|ic)ly$")
# Words in un- are mostly negated adjectives ("unsafe", "unseen"); nouns in un- end so.
_UN_NOUN_ENDINGS = ("ing", "ty", "ion", "ness", "ment", "s", "ure", "verse", "it", "et")
# Verb forms that also name an activity, as the last word of "problem solving" or "pattern matching".
_NOUN_FORMS_OF_VERBS = frozenset(
    {
        "matching", "building", "computing", "handling", "finding", "solving", "making", "planning",
        "mapping", "processing", "learning", "training", "reasoning", "modeling", "modelling", "testing",
        "tracking", "ranking", "sampling", "pruning",
    }
)  # fmt: skip


def split_sentences(plain: str) -> list[str]:
    """The sentences of plain text, split where a full stop, question or exclamation mark is followed
    by a capital (or an opening bracket or quote)."""
    return [sentence.strip() for sentence in _SENTENCE_END.split(plain) if sentence.strip()]


_SIGN_ONLY = re.compile(
    r"(?:\s|[<>=+\-*/|:~!]|\\(?:lt|gt|le|leq|ge|geq|ne|neq|approx|sim|simeq|cong|equiv|propto|to|"
    r"rightarrow|leftarrow|mapsto|times|cdot|pm|mp|in|notin|subset|subseteq|supset|supseteq|cup|cap|"
    r"setminus|vee|wedge|ll|gg|prec|succ|preceq|succeq|mid|perp)(?![A-Za-z]))+"
)
"""A formula that is only a sign or relation ("$<$", "$\\leq$"): a title cannot end on it."""


def _opening_phrase(sentence: str) -> tuple[str, str | None]:
    """The first sentence without its lead-in: "In many settings, X …" -> "X …"; and the verb whose
    object that leaves, when the lead-in ends with one ("We propose to maximize AUC via …": "maximize",
    whose object "AUC via …" is no title without it)."""
    sentence = _OPENING_FILLER.sub("", sentence)
    lead_in = re.match(
        r"(?:in|for|with|while|although|though|despite|as|since|when|given|over|recently)\b[^,]{0,80},\s+",
        sentence,
        re.I,
    )
    if lead_in and len(sentence) - lead_in.end() >= 20:
        sentence = sentence[lead_in.end() :]
    # "Flexibly quantifying both … uncertainties plays …": the gerund's adverb can go, the rest fits
    adverb = re.match(r"([A-Za-z]+ly)\s+(?=[a-z]+ing\s)", sentence)
    if adverb and ly_adverb(adverb.group(1).lower()):
        sentence = _capitalise(sentence[adverb.end() :])
    # "We give the first tester-learner for …", "This work focuses on …": what the paper does
    self_subject = _SELF_SUBJECT.match(sentence)
    if self_subject and len(sentence) - self_subject.end() >= 20:
        return _past_adverb(sentence[self_subject.end() :], self_subject.group("to_verb"))
    return sentence, None


def finite_form(word: str) -> bool:
    """A verb's third-person form ("uses", "penalizes"; not "loss")."""
    return word.endswith("s") and not word.endswith("ss")


def plural_noun(word: str) -> bool:
    """A plural noun's ending, lower case ("models", "graphs", "metrics"; not "analysis", "focus",
    "loss"). Plurals without one ("data", "people") are read by agreement only: in a title "Data
    Boost" and "data set" are nouns."""
    return finite_form(word) and not word.endswith(("is", "us"))


def is_verb(word: str) -> bool:
    """A verb's base or third-person form: the hand list's, or one learned from how 50,000 abstracts
    use words ("constitutes", "overfit"; ``title_usage().verbs``)."""
    from generator.analysis.keyphrases.wordlists import VERBS  # the keyphrase package imports this module
    from generator.analysis.title_usage import title_usage

    word = word.lower()
    if word in VERBS:
        return True
    learned = title_usage().verbs
    return word in learned or (finite_form(word) and base_form(word) in learned)


def base_form(verb: str) -> str:
    """A verb's base form from its third-person form ("uses" -> "use", "applies" -> "apply",
    "fixes" -> "fix"); a base form stays as it is ("set", "train", "focus")."""
    verb = verb.lower()
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("sses", "xes", "ches", "shes")):
        return verb[:-2]
    if finite_form(verb) and not verb.endswith(("us", "is")):
        return verb[:-1]
    return verb


def _past_adverb(rest: str, verb: str | None) -> tuple[str, str | None]:
    """The object and the verb after "to" ("we propose to maximize X": X, "maximize"), the verb read
    past an adverb ("to fully parametrize X"); ``(rest, None)`` when the word after "to" is no verb
    ("contributes to model interpretability", "responds to recent criticism")."""
    if verb is None:
        return rest, None
    verb = verb.lower()
    if ly_adverb(verb):  # "apply" and "supply" are verbs in -ly
        following, _, after = rest.partition(" ")
        if is_verb(following) and after:
            return after, following.lower()
        return rest, None
    return (rest, verb) if is_verb(verb) else (rest, None)


# "We are interested in …", "We do not assume …": no verb of doing, so the sentence is not cut.
_AUXILIARIES = (
    "am|is|are|was|were|be|been|do|does|did|have|has|had|can|could|may|might|must|shall|should|will|would"
)
_SELF_SUBJECT = re.compile(
    r"(?:we|this (?:paper|work|study|article)|our (?:paper|work|study))\s+"
    r"(?:\w+ly\s+|first\s+|also\s+|here\s+)?(?!(?:" + _AUXILIARIES + r")\b)[a-z]+\s+"
    r"(?:(?:on|that|to (?!(?:" + _WH_WORDS + r")\b)(?P<to_verb>[a-z]+))\s+)?",
    re.I,
)


def _content_words(text: str) -> list[str]:
    from generator.analysis.keyphrases.wordlists import (
        FUNCTION_WORDS,  # the keyphrase package imports this module
    )

    words = (w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in FUNCTION_WORDS)
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


_NOT_A_TOPIC = (
    "that ",
    "how ",
    "whether ",
    "the following",
    "this ",
    "these ",
    "it ",
    "them ",
    "such ",
    "if ",
)


def _is_name(name: str) -> bool:
    """A method's name carries a capital or a digit past its first letter ("GraphSAGE", "EE-LLM",
    "Multi Epoch Learning"), unlike a description that happens to follow "namely"."""
    return (
        bool(name)
        and len(name) <= 60
        and name.count("(") == name.count(")")
        and any(c.isupper() or c.isdigit() for c in name[1:])
    )


def _named_contribution(sentence: str) -> tuple[str, str | None] | None:
    """The name a contribution sentence gives ("We propose X, a …") and what it says X is."""
    for trigger in _NAMED_CONTRIBUTION.finditer(sentence):
        rest = sentence[trigger.end() :].rstrip(".")
        named = _NAMING_WORD.match(rest)
        if named and _is_name(named.group("name").strip(" \"'“”")):
            name = named.group("name").strip(" \"'“”")
            what = named.group("what").strip()
            after = named.group("after").strip()
            if after.lower().startswith(("for ", "to ", "with ")) and not after.lower().startswith(
                "for which"
            ):
                what = f"{what} {after}"
            return name, what
        described = _NAME_THEN_DESCRIPTION.match(rest)
        if described:
            return described.group("name").strip(" \"'“”"), described.group("what")
        acronym = _ACRONYM_AFTER.match(rest)
        # "results on small-scale (GPT-2) and …": a model in brackets after a modifier is an example
        if acronym and not _modifier_word(acronym.group("what").split()[-1]):
            what = acronym.group("what")
            remainder = rest[acronym.end() :].lstrip(" ,;")
            if re.match(r"(?:a|an|the)\s", remainder, re.I):
                what = remainder  # "Full Name (FN), a framework for …": the description says more
            elif remainder.lower().startswith(("for ", "to ", "with ", "that ")):
                what = f"{what} {remainder}"
            return acronym.group("name"), what
        apposition = _DESCRIPTION_THEN_NAME.match(rest)
        if apposition and _is_name(apposition.group("name")):
            what, after = apposition.group("what"), apposition.group("after").strip()
            if re.match(r"(?:for|to|with|that|\w+ed)\s", after, re.I):  # "…, tuned to …"
                what = f"{what} {after}"
            return apposition.group("name"), what
        bare = _BARE_NAME.match(rest)
        if bare and _is_name(bare.group("name")):
            return bare.group("name"), None
    return None


def _name_given_anywhere(plain: str) -> tuple[str, None] | None:
    """ "Our method, dubbed Selective Amnesia, …": a name given outside a contribution sentence."""
    for match in _NAME_GIVEN.finditer(plain):
        name = match.group("name").strip(" \"'“”")
        if _is_name(name):
            return name, None
    return None


def _drop_article_adjectives(text: str) -> str:
    """ "a novel method" -> "a method": the words every abstract uses about itself."""
    dropped = re.sub(
        r"^(a|an|the)\s+(?:(?:new|novel|simple|general|unified|principled|first)\s+)+(?!(?:and|or|yet|but)\s)",
        "",
        text,
        flags=re.I,
    )
    if dropped == text:
        return text
    article = text.split(" ", 1)[0]
    if article.lower() != "the":
        article = (
            ("An" if _starts_with_vowel_sound(dropped) else "A")
            if article[0].isupper()
            else ("an" if _starts_with_vowel_sound(dropped) else "a")
        )
    return f"{article} {dropped}"


def _spelled_out(name: str, abstract: str) -> str | None:
    """The words an acronym stands for, when the abstract spells it out: "Label-Retrieval-Augmented
    (LRA)" gives "Label-Retrieval-Augmented" for LRA. They are the words before "(NAME)", from the
    first one (at most a few more words back than the acronym has capitals) that starts with the
    acronym's first letter."""
    capitals = sum(c.isupper() for c in name)
    if capitals < 2 or not re.fullmatch(r"[A-Za-z0-9-]+", name) or f"({name})" not in abstract:
        return None  # the literal test first: the search below tries up to 12 words at every word
    match = re.search(r"((?:[^\s()]+\s+){1,12})\(" + re.escape(name) + r"\)", abstract)
    if not match:
        return None
    from generator.analysis.keyphrases.wordlists import (  # the keyphrase package imports this module
        FUNCTION_WORDS,
        VERBS,
    )

    words = match.group(1).split()
    # a long form is one phrase: it starts after the last sentence end ("… levels. We propose …"), and
    # after the last comma when what follows the comma still spells the acronym ("… shift, we introduce
    # data-regularised environment design (DRED)"; not "Additive, Multiplicative, and Adaptive Graph
    # Neural Network (AMAG)")
    after_break = 0
    for index in range(len(words) - 1, -1, -1):
        if words[index][-1] in ".;:!?" or (words[index][-1] == "," and _spells(words[index + 1 :], name)):
            after_break = index + 1
            break
    for start in range(max(after_break, len(words) - capitals - 3), len(words)):
        first = words[start].lower().strip(",;:")
        if first in FUNCTION_WORDS or first in VERBS:
            continue  # "we propose the PrOvable Training (POT)", "To address this, … the TRAjectory …"
        if words[start][:1].lower() == name[:1].lower():
            phrase = " ".join(words[start:]).strip(",;:")
            return phrase if len(phrase) > len(name) else None
    return None


def _spells(words: Sequence[str], name: str) -> bool:
    """Whether the capitals of ``name`` are, in order, initials of ``words`` or of their hyphenated
    parts ("data-regularised environment design" spells DRED)."""
    initials = [part[0].lower() for word in words for part in re.split(r"[-–]", word) if part[:1].isalpha()]
    capitals = iter(initials)
    return all(c.lower() in capitals for c in name if c.isupper())


def _starts_with_vowel_sound(word: str) -> bool:
    return word[:1].lower() in "aeiou"


def _shorten(text: str, limit: int = MAX_TITLE_LENGTH) -> str:
    """A noun phrase of at most ``limit`` characters from the start of ``text``: cut at the first
    clause break or coordinated verb past a readable length, then if still too long before the last
    preposition that fits, and never ending on a word that leaves it hanging."""
    text = text.strip().rstrip(".")
    # "three approaches: 1) EmotionPrompt …, 2) …": an enumeration lists parts, not the whole
    enumeration = _ENUMERATION.search(text)
    if enumeration:
        text = text[: enumeration.start()]
    for match in _CLAUSE_BREAK.finditer(text):
        # "tempering (for Sequential Monte Carlo; SMC) and entropic mirror descent": not a break
        inside_aside = text.count("(", 0, match.start()) > text.count(")", 0, match.start())
        if match.start() >= 20 and not inside_aside:
            text = text[: match.start()]
            break
    text = _cut_at_coordinated_verb(text)
    if len(text) > limit:
        cuts = [m.start() for m in _PHRASE_CUT.finditer(text) if _CUT_AFTER_CHARACTERS <= m.start() <= limit]
        text = text[: cuts[-1]] if cuts else text[: limit + 1].rsplit(" ", 1)[0][:limit]
    text = _trim_hanging_end(text)
    if text.count("(") > text.count(")"):
        text = _trim_hanging_end(text[: text.rfind("(")])
    return text


def _cut_at_coordinated_verb(text: str) -> str:
    """ "X and show that …" -> "X"; "X, and we prove …" -> "X"."""
    from generator.analysis.keyphrases.wordlists import VERBS  # the keyphrase package imports this module

    words = text.split(" ")
    for position in range(2, len(words) - 1):
        if words[position].lower().strip(",") not in ("and", "but", "or"):
            continue
        following = [w.lower().strip(",") for w in words[position + 1 : position + 4]]
        following = [w for w in following if w not in ("we", "then", "also", "further", "thus", "finally")]
        if following and following[0] in VERBS and not following[0].endswith("ing"):
            return " ".join(words[:position]).rstrip(",")
    return text


def _hangs(words: list[str]) -> bool:
    """Whether a title ending with ``words[-1]`` leaves it hanging."""
    from generator.analysis.keyphrases.wordlists import (  # the keyphrase package imports this module
        ADJECTIVE_ENDING,
        ADJECTIVE_ENDING_NOUNS,
        FUNCTION_WORDS,
        NO_END,
        VERBS,
    )

    last = words[-1]
    word = last.lower().strip(",;:'\"“”")
    if not word or not any(c.isalnum() for c in word) or "zqmathsign" in word:
        return True  # "… a linear order $<$" (formulas are placeholders here; see derive_title)
    # "… and/or", "… model (a)": what ends the words is still a function word
    bare = word.rsplit("/", 1)[-1].strip("()[]")
    if {word, bare} & FUNCTION_WORDS or word in _DANGLING or word in NO_END:
        return True
    before = words[-2].lower() if len(words) > 1 else ""
    gerund_without_object = word.endswith("ing") and before in _BEFORE_AN_OBJECT
    if gerund_without_object or (
        word in VERBS and word not in _NOUN_FORMS_OF_VERBS and not noun_by_agreement(words[:-1], word)
    ):
        return True  # "… and show", "… (ODEs) approximating", "… at finding" (not "for matching")
    if word.endswith("ed") and before in FUNCTION_WORDS:
        return True  # "… with Controlled"
    if ly_adverb(word):
        return True  # "… can efficiently", "… is increasingly"
    if _ADVERB.search(before) and not any(c.isupper() for c in last[1:]):
        return True  # "Differentially private", "… provably efficient": an adverb modifies no noun
    if (
        word.startswith("un")
        and not word.startswith("under")
        and len(word) > 5
        and not word.endswith(_UN_NOUN_ENDINGS)
        and last.islower()
    ):
        return True  # "… to avoid unsafe", "… are unknown": a negated adjective without its noun
    if _modifier_word(word):
        return True  # "… results on small-scale", "The simple, long-studied"
    # "… in computational", but not "… of LLaMA-Adversarial" or "… environment"
    return bool(
        ADJECTIVE_ENDING.search(word)
        and word not in ADJECTIVE_ENDING_NOUNS
        and not word.endswith("ment")
        and not last.isupper()
        and not any(c.isupper() for c in last[1:])
    )


# Past forms of irregular verbs (the hand list holds them beside the bare forms): "… policy given" is
# cut before the verb's complement, agreement says nothing about a past form.
_IRREGULAR_PAST = frozenset(
    {"arisen", "arose", "became", "brought", "built", "came", "found", "gave", "given", "gone", "got",
     "gotten", "held", "kept", "knew", "known", "learnt", "made", "overcame", "proven", "ran", "said",
     "saw", "seen", "shown", "sought", "taken", "thought", "took", "went"}
)  # fmt: skip
# Nouns that are plural without an "s": "data show" is a clause, as "models learn" is.
_PLURALS_WITHOUT_S = frozenset(
    {"data", "people", "children", "media", "criteria", "phenomena", "men", "women"}
)


def noun_by_agreement(words: Sequence[str], word: str) -> bool:
    """Whether ``word``, a bare verb form, is a noun after the phrase ``words`` by agreement: a singular
    noun or an adjective takes "designs", not "design", as its verb, so "environment design", "case
    study" and "experimental design" end in a noun (1 % of real titles end so), while "models learn",
    "data show", "we design", "to study" and "automatically design" end in a verb. A plural earlier
    in the phrase may be the subject the verb agrees with ("methods for grammar induction suffer")."""
    from generator.analysis.keyphrases.wordlists import FUNCTION_WORDS, VERBS
    from generator.analysis.title_usage import title_usage

    if word.endswith(("s", "ed", "ing")) or word in _IRREGULAR_PAST or not words:
        return False  # "model learns", "policy given": only the bare present form agrees

    def bare(token: str) -> str:
        return token.lower().strip(",;:()\"'“”")

    before = bare(words[-1])
    if not before or not before[-1].isalpha():
        return False
    if title_usage().is_compound(before, word):
        return True  # "protein design" in "Diffusion models for protein design": titles use the pair
    adverb = ly_adverb(before)

    def plural(token: str) -> bool:
        return plural_noun(token) or token in _PLURALS_WITHOUT_S

    earlier_plural = any(plural(t) and t not in FUNCTION_WORDS for t in map(bare, words[:-1]))
    verb_or_function_word = before in FUNCTION_WORDS or before in VERBS
    return not (plural(before) or adverb or verb_or_function_word or earlier_plural)


def ly_adverb(word: str) -> bool:
    """A word in -ly that is an adverb ("efficiently"; not "family", "anomaly", "apply"), lower case."""
    from generator.analysis.keyphrases.wordlists import LY_NOUNS  # the keyphrase package imports this module

    return word.endswith("ly") and word not in LY_NOUNS and not word.endswith(_LY_NOUN_ENDINGS)


def _modifier_word(word: str) -> bool:
    """ "small-scale", "model-based": a hyphenated word that modifies a noun still to come."""
    word = word.lower()
    return "-" in word and (word.endswith("ed") or word.rsplit("-", 1)[-1] in _MODIFIER_COMPOUND_ENDS)


# Function phrases of two words that need what follows them ("in order to", "as well as"): a title
# cannot end on one, though its last word alone ("order", "well") could end a noun phrase.
_FUNCTION_PHRASES = frozenset(
    {"in order", "as well", "such as", "so as", "rather than", "in terms", "with respect", "by means",
     "in spite", "on top", "as opposed", "in view", "in light", "by way", "in favor", "in favour",
     "in place", "on behalf", "in front", "due to", "according to", "as to"}
)  # fmt: skip
# A sentence adverb and its comma ("First,", "Moreover,", "However,", "Empirically,") open a sentence,
# not a title.
_LEADING_ADVERB = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|finally|lastly|next|then|moreover|however|"
    r"furthermore|additionally|also|further|besides|hence|thus|therefore|consequently|instead|"
    r"meanwhile|nevertheless|nonetheless|similarly|likewise|overall|importantly|notably|"
    r"in addition|in contrast|in particular|as a result|on the other hand|to this end|"
    r"(?!(?:family|anomaly|assembly|supply|monopoly|reply|ally|fly),)[a-z]+ly),\s+(?=\S)",
    re.I,
)


def _drop_leading_adverb(text: str) -> str:
    """ "Second, QuIP# uses …" -> "QuIP# uses …": a sentence adverb with its comma is no part of a title."""
    return _LEADING_ADVERB.sub("", text.strip(), count=1)


def _trim_hanging_end(text: str) -> str:
    text = re.sub(r"[\s,;:.\-–—(]+$", "", text.strip())
    words = text.split()
    while len(words) > 1:
        group = _closing_aside(words)
        # "… ordering a (possibly large)": an aside after a word that hangs hangs with it.
        if group is not None and group > 1 and _hangs(words[:group]):
            words = words[:group]
        elif len(words) > 2 and " ".join(words[-2:]).lower().strip(",;:") in _FUNCTION_PHRASES:
            words = words[:-2]  # "AI governance in order": "in order" wants its "to"
        elif _hangs(words):
            words.pop()
        else:
            break
        words[-1] = words[-1].rstrip(",;:-–—")
    return " ".join(words)


def _closing_aside(words: list[str]) -> int | None:
    """Where the parenthesis that closes ``words`` opens (its first word's index), if it does."""
    if not words[-1].endswith(")"):
        return None
    depth = 0
    for index in range(len(words) - 1, -1, -1):
        depth += words[index].count(")") - words[index].count("(")
        if depth <= 0:
            return index if words[index].startswith("(") else None
    return None


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
    """The keyword's page name; a sharp is spelled out, so "QuIP#" is not the page of "QuIP"."""
    return slugify(keyword.replace("#", " sharp "), max_length=80, word_boundary=True) or (
        "keyword-" + hashlib.sha256(keyword.encode("utf-8")).hexdigest()[:8]
    )
