"""Keyphrase candidates and canonical spellings (see ``candidates`` and ``canonical``)."""

from generator.keyphrases.candidates import Candidate, abstract_candidates, corpus_spellings
from generator.keyphrases.canonical import canonical, canonical_key

__all__ = ["Candidate", "abstract_candidates", "canonical", "canonical_key", "corpus_spellings"]
