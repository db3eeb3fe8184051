"""Keyphrase candidates and canonical spellings (see ``candidates`` and ``canonical``)."""

from generator.analysis.keyphrases.candidates import Candidate, abstract_candidates, corpus_spellings
from generator.analysis.keyphrases.canonical import canonical, canonical_key

__all__ = ["Candidate", "abstract_candidates", "canonical", "canonical_key", "corpus_spellings"]
