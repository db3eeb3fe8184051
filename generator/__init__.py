"""Paper Digest: research-paper abstracts in, a searchable static website out."""

import hashlib
from functools import cache
from pathlib import Path

__version__ = "0.2.0"
DISTRIBUTION = "paper-digest-site"
"""The name on PyPI (``pip install paper-digest-site``); the command stays ``paper-digest``: the
name ``paper-digest`` on PyPI belongs to an unrelated project."""


@cache
def source_fingerprint() -> str:
    """A hash of this package's code: stored results made by other code are not reused."""
    package = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    # The learned models and statistics (keyword ranker, stray model, word statistics; title scorer,
    # readers' verdicts, title usage) decide results as the code does.
    learned = [*package.glob("analysis/keyphrases/*.json"), *package.glob("analysis/*.npz")]
    learned += package.glob("analysis/*.json")
    for source in sorted([*package.rglob("*.py"), *learned]):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()
