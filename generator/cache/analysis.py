"""The last analysis, kept on disk, so a rebuild of unchanged inputs skips it.

The key covers everything an analysis reads: every field of every paper, the digest's name, the
model, the settings that shape the results, the stored digest-wide fit (``generator.analysis.fit``) and the
generator's own code. Any difference means a fresh analysis; so does an unreadable row. The
results are stored as JSON in the cache database, one row per model, and joined back to the
papers just read (titles and addresses are settled again, which is cheap).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from generator import source_fingerprint
from generator.analysis.analyse import settle_titles
from generator.cache.database import open_cache
from generator.model import AnalysedPaper, Collection, Digest, Keyword, RelatedPaper, Topic


def analysis_key(
    collection: Collection, model_name: str, settings: dict[str, int], fit_fingerprint: str
) -> str:
    digest = hashlib.sha256()

    def add(value: object) -> None:
        digest.update(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\0")

    add([collection.name, model_name, settings])
    for paper in collection.papers:
        add([
            paper.id, paper.title, paper.abstract, list(paper.authors), paper.url,
            paper.venue, paper.year, list(paper.author_keywords), paper.track,
        ])  # fmt: skip
    # Not ``paper.address``: a page address shapes no analysis result, and a stored analysis is
    # decoded with the papers' addresses of now (``_decode`` settles the titles and slugs afresh).
    digest.update(fit_fingerprint.encode())
    digest.update(source_fingerprint().encode())
    return digest.hexdigest()


KIND = "last analysis"


class AnalysisCache:
    def __init__(self, cache_dir: Path, model_name: str) -> None:
        self.cache_dir = cache_dir
        self.name = hashlib.sha256(model_name.encode("utf-8")).hexdigest()[:16]

    def load(self, key: str, collection: Collection, model_name: str) -> Digest | None:
        """The stored analysis of exactly these papers, or ``None``."""
        database = open_cache(self.cache_dir)
        if database is None:
            return None
        try:
            data = database.get(KIND, self.name, key)
        finally:
            database.close()
        if data is None:
            return None
        try:
            return _decode(json.loads(data), collection, model_name)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None

    def save(self, key: str, digest: Digest) -> None:
        """Best effort: without it the next build analyses again."""
        stored = {
            "map_method": digest.map_method,
            "topics": [asdict(topic) for topic in digest.topics],
            "keyword_variants": digest.keyword_variants,
            "papers": [
                {
                    "keywords": [[k.text, k.score] for k in paper.keywords],
                    # Field by field: ``asdict`` deep-copies each link and cost a second at ICML 2024.
                    "related": [
                        {
                            "index": r.index,
                            "score": r.score,
                            "shared_keywords": r.shared_keywords,
                            "closeness": r.closeness,
                        }
                        for r in paper.related
                    ],
                    "author_keywords": paper.author_keywords,
                    "author_keywords_as_given": paper.author_keywords_as_given,
                    "topic": paper.topic,
                    "map_position": paper.map_position,
                }
                for paper in digest.papers
            ],
        }
        database = open_cache(self.cache_dir)
        if database is not None:
            # The key (content, settings, fit, code) is the row's version: another one is not read.
            database.put(KIND, self.name, key, json.dumps(stored, ensure_ascii=False).encode("utf-8"))
            database.close()


def _decode(stored: dict, collection: Collection, model_name: str) -> Digest | None:
    entries = settle_titles(collection.papers)
    if len(stored["papers"]) != len(entries):
        return None
    papers = [
        AnalysedPaper(
            entry=entry,
            keywords=[Keyword(str(text), float(score)) for text, score in record["keywords"]],
            related=[
                RelatedPaper(
                    index=int(r["index"]),
                    score=float(r["score"]),
                    shared_keywords=tuple(r["shared_keywords"]),
                    closeness=None if r.get("closeness") is None else float(r["closeness"]),
                )
                for r in record["related"]
            ],
            author_keywords=[str(k) for k in record["author_keywords"]],
            author_keywords_as_given=[str(k) for k in record["author_keywords_as_given"]],
            topic=None if record["topic"] is None else int(record["topic"]),
            map_position=None
            if record["map_position"] is None
            else tuple(map(float, record["map_position"])),
        )
        for entry, record in zip(entries, stored["papers"], strict=True)
    ]
    topics = [
        Topic(label=str(t["label"]), phrases=tuple(t["phrases"]), members=tuple(t["members"]))
        for t in stored["topics"]
    ]
    count = len(papers)
    if any(not 0 <= r.index < count for p in papers for r in p.related) or any(
        p.topic is not None and not 0 <= p.topic < len(topics) for p in papers
    ):
        return None
    return Digest(
        name=collection.name,
        papers=papers,
        model_name=model_name,
        topics=topics,
        map_method=stored["map_method"],
        keyword_variants={
            str(shown): tuple(map(str, others)) for shown, others in stored["keyword_variants"].items()
        },
    )


def _position(stored: list | None) -> tuple[float, float] | None:
    if stored is None:
        return None
    x, y = stored
    return float(x), float(y)
