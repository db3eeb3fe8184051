"""Related papers: nearest neighbours in a space that joins the embedding and the paper's words.

Papers are compared as *joint vectors*, built from what the analysis already has:

1. the sentence embedding of the title and abstract, centred (the corpus mean removed,
   re-normalised): every abstract shares the mean direction, which only lifts all cosines alike;
2. a 50-dimensional LSA of the tf-idf of the paper's words (title and abstract). It is coarse and
   topical and adds what the embedding misses; raw tf-idf next to the embedding adds far less;
3. two parts of the paper pooled from the same pass of the model over its text (the mean of its
   outputs at their tokens, so each is read in the context of the whole): the abstract's *opening*
   (its first two sentences), where an abstract says which problem and field it is about before the
   method and results take over the whole-text embedding; and the *title* when the paper came with
   one, the authors' own one-line summary (a title derived from the abstract adds nothing the
   abstract does not say, so a paper without a given title has no title view); each centred;
4. all concatenated, each scaled so its cosine has the same spread over random pairs and then
   weighted (the embedding, the LSA and the opening 1, the title ``TITLE_WEIGHT``), so the dot
   product of two joint vectors is a weighted sum of the cosines;
5. query expansion (alpha-QE): each vector plus its nearest neighbours weighted by similarity³,
   re-normalised, which pulls a paper towards its neighbourhood and steadies the ranking.

On the two development sets (track and session labels, ``benchmarks/related_quality.py``) the
embedding cosine alone scores P@5 0.291 (NLP) and 0.386 (CVPR 2019); the embedding, LSA and query
expansion 0.316 and 0.406; with the opening and title views 0.322 and 0.420
(benchmarks/notes/relevance.md).

Scale: both neighbour passes (expansion, then the related papers) only ask for each paper's k
nearest rows. Below ``APPROXIMATE_FROM`` papers they are exact, over row chunks, so time is O(N² d)
and memory O(CHUNK_ROWS × N): at 10k papers each pass is 10k × 10k dot products of 384 dimensions
(``JOINT_DIMENSIONS``), about 40 MB at a time. From there an HNSW graph (faiss) proposes the candidates and
their exact dot products rank them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer
from threadpoolctl import threadpool_limits

from generator.analysis.embed import normalise_rows
from generator.model import Keyword, RelatedPaper

CHUNK_ROWS = 1024
"""Rows of the similarity matrix held at once, so memory stays O(N * chunk), not O(N²)."""

LSA_DIMENSIONS = 50
"""Measured flat between 25 and 75 on the dev set; 50 is the middle of that plateau."""
EXPANSION_NEIGHBOURS = 20
"""Any number from 5 to 40 helped on the dev set, on random 150-paper samples of it as much as on
all of it; it is capped at the number of other papers."""
EXPANSION_POWER = 3.0
OPENING_WEIGHT = 1.0
TITLE_WEIGHT = 0.5
"""The opening's and the title's share beside the whole-text embedding and the LSA (1 each). On
random halves of both development sets (each half a digest of its own, 5 splits) the two views add
+0.006 (NLP) and +0.011 (CVPR 2019) P@5 to the space without them on average, and gain on every
half; an opening weight of 0.75-1.5 and a title weight of 0.5-0.75 all did within 0.002 of this."""
OPENING_SENTENCES = 2
"""The first sentence alone is often a generic lead-in ("Deep learning has achieved …"); two carry
the field and the problem. Alone, the opening pooled from the whole text's pass ranks related
papers better than the whole text (P@5 0.294 and 0.404 on the two development sets, against 0.291
and 0.386)."""
MIN_PAPERS_FOR_JOINT_SPACE = 20
"""Below this the corpus mean and an LSA are too noisy to lean on (two papers centred point in
opposite directions): tiny digests use the plain embedding cosine. On random samples of the dev set
the joint space ties with the plain cosine at 20 and 57 papers and wins from 150 papers up."""
LEXICAL_MAX_WORDS = 3
"""Phrases of up to three words: as good as two for the ranking (P@5 0.321 vs 0.322 on the dev set),
and a match can then be explained by "graph neural networks" rather than "graph neural"."""
ROWS_FOR_SPREAD = 600
JOINT_DIMENSIONS = 384
"""The joint vector (about 1,200 numbers: three views by one model, which overlap, and the LSA) is cut
to this many by a truncated SVD of the digest's joint vectors, the cut that keeps their dot products
best: 98% of their length at NLP and CVPR 2019, and the same P@5 within 0.002 (256 and 384 both did).
At 50,000 papers it keeps the neighbour passes, topics and map at the cost of the 434-number space
they had before the opening and title views."""
APPROXIMATE_FROM = 20_000
"""From this many papers the neighbour passes search an HNSW graph instead of every row. On the 50k
corpus (``benchmarks/ann_recall.py``, one thread): the expansion pass 41.9 s exact, 22.8 s by the
graph, recall@5 0.9990; the related papers 43.7 s exact, 11.0 s by the graph, recall@5 0.9995, and
99.8% of the papers get the very same list in the same order. The exact passes grow as N², the graph
as about N log N."""
HNSW_LINKS = 32
HNSW_BUILD_BREADTH = 80
HNSW_SEARCH_BREADTH = 96
CANDIDATE_MARGIN = 10
"""Extra candidates asked of the graph and re-ranked exactly, so a near tie at the boundary of the
top ``count`` is settled by the true similarity."""

# Words every research abstract uses: they say nothing about what two papers share.
_ABSTRACT_WORDS = frozenset(
    """paper papers propose proposed proposes proposing approach approaches method methods result
    results show shows shown showing demonstrate demonstrates demonstrated novel new based using
    use used uses task tasks performance state art existing work works framework study studies
    problem problems significantly significant experiments experimental extensive improve improves
    improved improvement improvements achieve achieves achieving effective effectiveness efficient
    different various outperforms outperform introduce introduces present presents previous prior
    recent recently furthermore moreover specifically additionally including include includes code
    available github provide provides provided well also however aim aims address addresses like
    make makes able way ways better best good key important simple general given
    respectively""".split()  # noqa: SIM905 -- a word list reads best as prose
)
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) | _ABSTRACT_WORDS

# Hyphenated words stay one token ("zeroth-order"), as in keyword extraction.
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Phrases never run across punctuation or a dash between words.
_PHRASE_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”‘’`'/|]+|\s[-–—]+\s|[–—]")


def phrases(text: str, max_words: int) -> list[str]:
    """Word n-grams (1..max_words) that never cross punctuation or a stop word, so
    "graph neural networks (GNNs) for molecules" gives "graph neural networks", "gnns" and
    "molecules", but never "networks gnns"."""
    found: list[str] = []
    for clause in _PHRASE_BREAK.split(text.lower()):
        run: list[str] = []
        for word in [*_WORD.findall(clause), ""]:
            if word and word not in STOP_WORDS and len(word) > 1:
                run.append(word)
                continue
            for size in range(1, max_words + 1):
                found.extend(" ".join(run[i : i + size]) for i in range(len(run) - size + 1))
            run = []
    return found


def same_word(a: str, b: str) -> bool:
    """Forms of one word, without a stemmer: "graph"/"graphs", "generate"/"generation",
    "summarization"/"summaries" share most of the shorter word as a prefix; "translation" and
    "transformer" do not."""
    if a == b:
        return True
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return shared >= max(4, math.ceil(0.75 * min(len(a), len(b))))


@dataclass(frozen=True)
class PaperEmbeddings:
    """What the model made of each paper, one L2-normalised float32 row per paper in each array."""

    text: np.ndarray
    """The title and abstract together: keywords are ranked against it, and it anchors the space."""
    opening: np.ndarray | None = None
    """The abstract's first ``OPENING_SENTENCES`` sentences; ``None``: no opening view."""
    title: np.ndarray | None = None
    """The given title alone, a zero row for a paper whose title was derived from its abstract;
    ``None``: no title view."""

    def __post_init__(self) -> None:
        for name, view in (("openings", self.opening), ("titles", self.title)):
            if view is not None and len(view) != len(self.text):
                raise ValueError(f"{len(self.text)} texts but {len(view)} {name} embedded")

    def __len__(self) -> int:
        return len(self.text)

    @property
    def has_title(self) -> np.ndarray:
        if self.title is None:
            return np.zeros(len(self.text), dtype=bool)
        return np.any(self.title != 0, axis=1)

    def rows(self, selected: np.ndarray | Sequence[int]) -> PaperEmbeddings:
        def pick(view: np.ndarray | None) -> np.ndarray | None:
            return None if view is None else view[selected]

        return PaperEmbeddings(self.text[selected], pick(self.opening), pick(self.title))


@dataclass(frozen=True)
class PaperSpace:
    """Where papers are compared, one row per paper."""

    vectors: np.ndarray
    """The joint vectors, of length at most 1 (see ``joint_vectors``); the topics cluster them."""
    expanded: np.ndarray
    """The joint vectors after query expansion, of length 1: related papers are nearest neighbours
    here, and the paper map lays these out."""


def one_thread() -> threadpool_limits:
    """BLAS and OpenMP limited to one thread, for the analysis after the embedding: it is many
    mid-sized calls, and pools of idle threads that spin while they wait for a busy core made it up
    to four times slower (related papers, topics and t-SNE for the 2,529-paper dev set on two
    shared cores: 61 s with the default threads, 14 s with one)."""
    return threadpool_limits(limits=1)


@dataclass(frozen=True)
class PhraseCounts:
    """How often each text uses each of its ``phrases``: counted once per build, for the
    related-papers space and the topic labels alike (counting them was a tenth of the analysis)."""

    matrix: sp.csr_matrix
    """One row per text, one float32 column per term."""
    terms: np.ndarray
    """The digest's phrases, sorted."""

    def common(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """Only the phrases that can relate two papers: in a large digest (500+ texts) used by two
        or more, and in any of 20+ texts used by at most half. Empty when none is left."""
        texts = self.matrix.shape[0]
        document_frequency = np.bincount(self.matrix.indices, minlength=len(self.terms))
        least = 2 if texts >= 500 else 1  # in a small digest the cut would leave nothing
        most = 0.5 * texts if texts >= 20 else texts
        kept = np.flatnonzero((document_frequency >= least) & (document_frequency <= most))
        return self.matrix[:, kept], self.terms[kept]

    def over(self, vocabulary: np.ndarray) -> sp.csr_matrix:
        """The counts of exactly these phrases, in this order (zero for phrases these texts lack)."""
        if not len(self.terms):
            return sp.csr_matrix((self.matrix.shape[0], len(vocabulary)), dtype=np.float32)
        position = np.minimum(np.searchsorted(self.terms, vocabulary), len(self.terms) - 1)
        found = np.flatnonzero(self.terms[position] == vocabulary)
        select = sp.csr_matrix(
            (np.ones(len(found), dtype=np.float32), (position[found], found)),
            shape=(len(self.terms), len(vocabulary)),
        )
        counted = (self.matrix @ select).tocsr()
        # Columns in order, so a text's row is summed alike whichever texts were counted with it.
        counted.sort_indices()
        return counted


def count_phrases(texts: Sequence[str]) -> PhraseCounts:
    """Every 1-to-``LEXICAL_MAX_WORDS``-word phrase of each text, counted."""
    vectorizer = CountVectorizer(analyzer=lambda text: phrases(text, LEXICAL_MAX_WORDS), dtype=np.float32)
    try:
        matrix = vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # not one phrase in any text
        return PhraseCounts(sp.csr_matrix((len(texts), 0), dtype=np.float32), np.array([], dtype=str))
    return PhraseCounts(matrix, vectorizer.get_feature_names_out())


def _tfidf(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear tf times idf, rows L2-normalised (scikit-learn's TfidfTransformer, written out so
    a fitted idf applies to new texts without refitting)."""
    weighted = counts.astype(np.float32, copy=True)
    weighted.data = np.log(weighted.data) + 1.0
    weighted = (weighted @ sp.diags(idf.astype(np.float32))).tocsr()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1))).ravel()
    norms[norms == 0] = 1.0
    return sp.csr_matrix(sp.diags(1.0 / norms).astype(np.float32) @ weighted)


def _fit_idf(counts: PhraseCounts) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix | None]:
    """The digest's common phrases, their idf and the texts' counts of them (``None`` when no phrase
    is left, e.g. a digest of one very short abstract)."""
    matrix, terms = counts.common()
    if not terms.size:
        return np.array([], dtype=str), np.zeros(0, dtype=np.float32), None
    document_frequency = np.bincount(matrix.indices, minlength=len(terms))
    idf = np.log((1 + matrix.shape[0]) / (1 + document_frequency)) + 1.0  # smoothed, as scikit-learn
    return terms, idf.astype(np.float32), matrix


def _lexical_matrix(counts: PhraseCounts, terms: np.ndarray, idf: np.ndarray) -> sp.csr_matrix | None:
    """The texts' tf-idf over the fitted phrases; ``None`` when there are none."""
    if not terms.size or not counts.matrix.shape[0]:
        return None
    return _tfidf(counts.over(terms), idf)


def _cosine_spread(vectors: np.ndarray, seed: int = 0) -> float:
    """Standard deviation of the cosine over pairs of distinct rows: exact for up to
    ``ROWS_FOR_SPREAD`` rows, else over all pairs of that many rows drawn at random (~180k pairs)."""
    if len(vectors) > ROWS_FOR_SPREAD:
        rows = np.random.default_rng(seed).choice(len(vectors), ROWS_FOR_SPREAD, replace=False)
        vectors = vectors[np.sort(rows)]
    cosines = vectors @ vectors.T
    return float(np.std(cosines[~np.eye(len(vectors), dtype=bool)])) or 1.0


@dataclass(frozen=True)
class SpaceFit:
    """What the joint space learns from the whole digest: the phrases and their idf, the corpus
    mean of the embeddings, the LSA axes and the two spreads.

    Fitted once and then applied paper by paper, so while a fit is reused a paper's vector depends
    on its own text only: editing one abstract moves one paper, not every score on the site.
    """

    terms: np.ndarray
    """The lexical view's phrases, in column order; empty when the texts share none."""
    idf: np.ndarray
    mean: np.ndarray | None
    """The embeddings' corpus mean; ``None`` means the plain embedding cosine (tiny digests)."""
    semantic_spread: float = 1.0
    components: np.ndarray | None = None
    """The LSA axes, one row per dimension over ``terms``; ``None`` when there are too few."""
    topical_spread: float = 1.0
    opening_mean: np.ndarray | None = None
    """The openings' corpus mean; ``None``: no opening view (a digest without a joint space)."""
    opening_spread: float = 1.0
    title_mean: np.ndarray | None = None
    """The given titles' corpus mean; ``None``: no title view (fewer than
    ``MIN_PAPERS_FOR_JOINT_SPACE`` papers came with a title)."""
    title_spread: float = 1.0
    projection: np.ndarray | None = None
    """The joint vector's axes kept, one column per kept dimension (``JOINT_DIMENSIONS``); ``None``:
    kept whole (a digest of no more papers than that, or a joint vector no longer)."""

    @property
    def dimensions(self) -> int | None:
        """The embedding size this fit applies to (``None``: any)."""
        return None if self.mean is None else int(self.mean.shape[0])


def _centred_view(vectors: np.ndarray) -> tuple[np.ndarray, float]:
    """A view's corpus mean and the cosine spread of its rows once centred."""
    mean = vectors.mean(axis=0)
    return mean, _cosine_spread(normalise_rows(vectors - mean))


def fit_space(counts: PhraseCounts, embeddings: PaperEmbeddings) -> SpaceFit:
    """Learn the joint space from the texts' phrase counts and their embeddings."""
    texts = counts.matrix.shape[0]
    if texts != len(embeddings):
        raise ValueError(f"{texts} texts but {len(embeddings)} embeddings")
    with one_thread():
        terms, idf, common = _fit_idf(counts)
        if common is None or texts < MIN_PAPERS_FOR_JOINT_SPACE:
            return SpaceFit(terms=terms, idf=idf, mean=None)
        mean, semantic_spread = _centred_view(np.asarray(embeddings.text, dtype=np.float32))
        opening_mean, opening_spread = (
            _centred_view(np.asarray(embeddings.opening, dtype=np.float32))
            if embeddings.opening is not None
            else (None, 1.0)
        )
        title_mean, title_spread = (
            _centred_view(np.asarray(embeddings.title[embeddings.has_title], dtype=np.float32))
            if embeddings.title is not None and embeddings.has_title.sum() >= MIN_PAPERS_FOR_JOINT_SPACE
            else (None, 1.0)
        )
        views = {
            "opening_mean": opening_mean,
            "opening_spread": opening_spread,
            "title_mean": title_mean,
            "title_spread": title_spread,
        }
        dimensions = min(LSA_DIMENSIONS, len(terms) - 1, texts - 1)
        if dimensions < 1:
            return SpaceFit(terms=terms, idf=idf, mean=mean, semantic_spread=semantic_spread, **views)
        tfidf = _tfidf(common, idf)
        components = TruncatedSVD(dimensions, random_state=0).fit(tfidf).components_.astype(np.float32)
        topical_spread = _cosine_spread(normalise_rows(tfidf @ components.T))
        fit = SpaceFit(terms, idf, mean, semantic_spread, components, topical_spread, **views)
        whole = joint_vectors(fit, counts, embeddings)
        if texts <= JOINT_DIMENSIONS or whole.shape[1] <= JOINT_DIMENSIONS:
            return fit
        # Not centred: the axes that keep the vectors' dot products, which is what is compared.
        axes = TruncatedSVD(JOINT_DIMENSIONS, random_state=0).fit(whole).components_
        return replace(fit, projection=np.ascontiguousarray(axes.T, dtype=np.float32))


def joint_vectors(fit: SpaceFit, counts: PhraseCounts, embeddings: PaperEmbeddings) -> np.ndarray:
    """The papers' joint vectors in a fitted space: the centred embedding, the LSA vector and the
    centred opening and title, each scaled to the same cosine spread, weighted and concatenated, so
    the dot product of two joint vectors is a weighted mean of the cosines, each in its own units. A
    paper's vector depends on its own text and embeddings only. A paper without a given title has
    zeros for its title: its dot product with any paper is that paper's with it minus their title
    term, and its vector is shorter than 1. With a projection (``JOINT_DIMENSIONS``) the vectors are
    its coordinates, a little shorter than the whole."""
    if counts.matrix.shape[0] != len(embeddings):
        raise ValueError(f"{counts.matrix.shape[0]} texts but {len(embeddings)} embeddings")
    with one_thread():
        lexical = _lexical_matrix(counts, fit.terms, fit.idf)
        text = np.asarray(embeddings.text, dtype=np.float32)
        if fit.mean is None:
            return normalise_rows(text)
        parts = [normalise_rows(text - fit.mean) / fit.semantic_spread]
        if fit.components is not None and lexical is not None:
            parts.append(normalise_rows(lexical @ fit.components.T) / fit.topical_spread)
        if fit.opening_mean is not None:
            if embeddings.opening is None:
                raise ValueError("the fitted space has an opening view, but no openings were embedded")
            opening = normalise_rows(np.asarray(embeddings.opening, dtype=np.float32) - fit.opening_mean)
            parts.append(opening * (math.sqrt(OPENING_WEIGHT) / fit.opening_spread))
        squared_norms = sum(np.einsum("ij,ij->i", part, part) for part in parts)
        if fit.title_mean is not None:
            if embeddings.title is None:
                raise ValueError("the fitted space has a title view, but no titles were embedded")
            # Only given titles are centred: a missing title stays a zero row, not minus the mean.
            has_title = embeddings.has_title[:, None]
            title = np.where(has_title, np.asarray(embeddings.title, dtype=np.float32) - fit.title_mean, 0)
            title_scale = math.sqrt(TITLE_WEIGHT) / fit.title_spread
            parts.append(normalise_rows(title) * title_scale)
            # Every row is scaled as if it had a title, so a missing one adds nothing to its dot
            # products instead of inflating the other views' share (and so its untitled neighbours).
            squared_norms = squared_norms + title_scale**2
        joint = np.hstack(parts)
        joint /= np.sqrt(np.maximum(squared_norms, np.finfo(np.float32).tiny))[:, None]
        if fit.projection is None:
            return joint
        # In double precision, a chunk of rows at a time: a row's coordinates then round to the same
        # float32 numbers however many rows are projected at once (an edit projects a few, a full
        # build all), and the double copy stays small.
        axes = fit.projection.astype(np.float64)
        projected = np.empty((len(joint), axes.shape[1]), dtype=np.float32)
        for start in range(0, len(joint), CHUNK_ROWS):
            rows = slice(start, start + CHUNK_ROWS)
            projected[rows] = joint[rows].astype(np.float64) @ axes
        return projected


def apply_space(fit: SpaceFit, counts: PhraseCounts, embeddings: PaperEmbeddings) -> PaperSpace:
    """The papers in a fitted joint space, their query expansion included."""
    vectors = joint_vectors(fit, counts, embeddings)
    with one_thread():
        return PaperSpace(vectors=vectors, expanded=expand_queries(vectors))


def paper_space(texts: Sequence[str], embeddings: PaperEmbeddings) -> PaperSpace:
    """The joint space fitted to these texts and their embeddings; never re-embeds."""
    counts = count_phrases(texts)
    return apply_space(fit_space(counts, embeddings), counts, embeddings)


def nearest_neighbours(
    vectors: np.ndarray, count: int, approximate: bool | None = None
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """For each row, the ``count`` other rows with the largest dot product, best first.

    Yields ``(first row, neighbour indices, similarities)`` per chunk of rows; within a list, ties
    go to the lower index, so the order never depends on the chunking (which of several rows tied
    at the last place gets in is argpartition's choice). The candidates come from an HNSW graph
    instead of all rows when ``approximate`` is true, by default from ``APPROXIMATE_FROM`` rows.
    """
    total = vectors.shape[0]
    count = min(count, total - 1)
    if approximate is None:
        approximate = total >= APPROXIMATE_FROM
    if count > 0 and approximate:
        yield from _ranked_candidates(vectors, approximate_candidates(vectors, count), count)
        return
    for start in range(0, total, CHUNK_ROWS):
        yield start, *exact_neighbours(vectors, np.arange(start, min(start + CHUNK_ROWS, total)), count)


def exact_neighbours(vectors: np.ndarray, rows: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest other rows of each of ``rows`` over every row, best first:
    ``(indices, similarities)``, one row each."""
    similarity = vectors[rows] @ vectors.T
    similarity[np.arange(len(rows)), rows] = -np.inf  # never the paper itself
    if count <= 0:
        empty = np.zeros((len(rows), 0))
        return empty.astype(np.intp), empty
    candidates = np.argpartition(-similarity, count - 1, axis=1)[:, :count]
    return best_first(np.take_along_axis(similarity, candidates, 1), candidates)


def best_first(scores: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's candidates by descending score, ties to the lower index."""
    order = np.lexsort((candidates, -scores), axis=1)
    return np.take_along_axis(candidates, order, 1), np.take_along_axis(scores, order, 1)


def approximate_candidates(vectors: np.ndarray, count: int) -> Iterator[tuple[int, np.ndarray]]:
    """Per chunk of rows, about ``count`` + ``CANDIDATE_MARGIN`` near rows from a faiss HNSW graph
    (inner product): ``(first row, candidate indices)``, -1 where the graph found fewer.

    The graph is built on one thread: faiss inserts in parallel in an order that depends on the
    threads, and the same digest must get the same related papers on every build.
    """
    import faiss

    data = np.ascontiguousarray(vectors, dtype=np.float32)
    faiss.omp_set_num_threads(1)
    index = faiss.IndexHNSWFlat(data.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_BUILD_BREADTH
    index.add(data)
    wanted = count + 1 + CANDIDATE_MARGIN  # +1: the row itself comes back among its own neighbours
    index.hnsw.efSearch = max(HNSW_SEARCH_BREADTH, wanted)
    for start in range(0, len(data), CHUNK_ROWS):
        _, candidates = index.search(data[start : start + CHUNK_ROWS], wanted)
        yield start, candidates


def _ranked_candidates(
    vectors: np.ndarray, chunks: Iterator[tuple[int, np.ndarray]], count: int
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """The ``count`` best candidates of each row by their exact dot product, ties to the lower index
    as in the exact search; the row itself and the graph's -1 fillers never count."""
    for start, candidates in chunks:
        rows = np.arange(start, start + len(candidates))
        useless = (candidates < 0) | (candidates == rows[:, None])
        safe = np.where(useless, 0, candidates)
        scores = np.einsum("nd,nkd->nk", vectors[rows], vectors[safe])
        scores[useless] = -np.inf
        indices, ranked = best_first(scores, safe)
        yield start, indices[:, :count], ranked[:, :count]


@dataclass(frozen=True)
class NeighbourLists:
    """Each row's nearest other rows, best first: one row of ``indices`` and ``scores`` per row."""

    indices: np.ndarray
    """(rows, count) row numbers, ties in score to the lower row."""
    scores: np.ndarray
    """(rows, count) float32 dot products."""

    @property
    def count(self) -> int:
        return int(self.indices.shape[1])


def neighbour_lists(vectors: np.ndarray, count: int, approximate: bool | None = None) -> NeighbourLists:
    """``nearest_neighbours`` gathered: each row's ``count`` (at most rows - 1) nearest other rows."""
    count = max(0, min(count, len(vectors) - 1))
    indices = np.zeros((len(vectors), count), dtype=np.intp)
    scores = np.zeros((len(vectors), count), dtype=np.float32)
    for start, found, similarities in nearest_neighbours(vectors, count, approximate):
        indices[start : start + len(found)] = found
        scores[start : start + len(found)] = similarities
    return NeighbourLists(indices, scores)


def expand_from(vectors: np.ndarray, lists: NeighbourLists, power: float = EXPANSION_POWER) -> np.ndarray:
    """alpha-QE from each row's nearest rows: the row plus its neighbours weighted by
    max(similarity, 0)**power, re-normalised. Row by row, so a row's result depends on its own list
    only, however the rows are chunked."""
    if lists.count == 0:
        return vectors
    expanded = np.empty_like(vectors)
    for start in range(0, len(vectors), CHUNK_ROWS):
        rows = slice(start, start + CHUNK_ROWS)
        weights = np.clip(lists.scores[rows], 0.0, None) ** power
        expanded[rows] = vectors[rows] + np.einsum("nk,nkd->nd", weights, vectors[lists.indices[rows]])
    return normalise_rows(expanded)


def expand_queries(
    vectors: np.ndarray, neighbours: int = EXPANSION_NEIGHBOURS, power: float = EXPANSION_POWER
) -> np.ndarray:
    """alpha-QE: each row plus its nearest rows weighted by max(similarity, 0)**power, re-normalised."""
    if neighbours <= 0 or len(vectors) < 2:
        return vectors
    return expand_from(vectors, neighbour_lists(vectors, neighbours), power)


def find_related(
    vectors: np.ndarray,
    keywords: Sequence[Sequence[Keyword]],
    count: int,
) -> list[list[RelatedPaper]]:
    """The ``count`` nearest other papers for each paper, best first, with what they share.

    ``vectors`` must be L2-normalised, so the dot product is the cosine similarity. Neighbours with
    a similarity of zero or less are not related and are left out.
    """
    return related_from(neighbour_lists(vectors, count), keywords)


def related_from(lists: NeighbourLists, keywords: Sequence[Sequence[Keyword]]) -> list[list[RelatedPaper]]:
    """The links of each paper's nearest papers (``lists`` over the expanded joint vectors)."""
    keyword_sets = [{k.text for k in found} for found in keywords]
    related: list[list[RelatedPaper]] = []
    for index, (neighbours, similarities) in enumerate(zip(lists.indices, lists.scores, strict=True)):
        related.append(
            [
                RelatedPaper(
                    index=int(j),
                    score=min(1.0, round(float(similarity), 4)),
                    shared_keywords=tuple(k.text for k in keywords[index] if k.text in keyword_sets[j]),
                )
                for j, similarity in zip(neighbours, similarities, strict=True)
                if round(float(similarity), 4) > 0
            ]
        )
    return related


def related_papers(
    space: PaperSpace, keywords: Sequence[Sequence[Keyword]], count: int
) -> list[list[RelatedPaper]]:
    """Each paper's ``count`` most related papers: nearest neighbours of the expanded joint vectors."""
    with one_thread():
        return find_related(space.expanded, keywords, count)
