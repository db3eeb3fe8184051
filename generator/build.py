"""The build pipeline: inputs -> Collection -> Digest -> Markdown files -> rendered site -> finished site.

It opens the cache database once per build and decides what is reused: the last analysis whole when
nothing changed, else what each analysis step found before (``generator.cache.stores``); the
analysis itself (``generator.analysis``) never sees the cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from generator.analysis.analyse import (
    EmbeddingCounts,
    Found,
    PendingDigest,
    analyse,
    embed_papers,
    text_parts,
)
from generator.analysis.embed import Embedder, SentenceTransformerEmbedder
from generator.analysis.onnx_export import OnnxModel
from generator.analysis.query_encoder import QueryEncoder
from generator.cache.analysis import AnalysisCache, analysis_key
from generator.cache.database import CACHE_DATABASE, CacheDatabase, open_cache
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.cache.models import onnx_model, query_encoder
from generator.cache.stores import AnalysisStores
from generator.engine.settings import configured_site_url, site_files_may_be_shared
from generator.model import Collection, Digest
from generator.progress import Reporter, plural
from generator.project.settings import Settings
from generator.site.meaning_index import MeaningPaper, meaning_files, snippet
from generator.site.output import (
    ASSETS_DIR,
    DocsWriteReport,
    LazyFile,
    StagedOutput,
    asset_files,
    build_lock,
    mathjax_files,
)
from generator.site.redirects import redirect_files
from generator.site.render import DATA_FILES, PAPERS_DIR, PageRenderer, RenderOptions
from generator.site.source_date import dated, source_date_epoch
from generator.site_build import build_site, engine_can_update, site_fingerprint
from generator.sources import ReadOptions, read_collection
from generator.sources.identity import (
    PageNote,
    SettledPapers,
    next_record,
    read_record,
    redirects,
    settle_identities,
    write_record,
)


@dataclass(frozen=True)
class BuildRequest:
    inputs: tuple[Path, ...]
    docs_dir: Path
    site_dir: Path | None
    """``None`` writes the Markdown only."""
    name: str | None = None
    refit: bool = False
    """Fit the digest-wide analysis afresh (``generator.analysis.fit``) even when the last one would do."""
    address_record: Path | None = None
    """The digest's record of its papers' page addresses (``generator.sources.identity``): read to keep
    each paper's address, written when the build succeeded. ``None``: addresses come from the ids."""
    keep_going: bool = False
    """Build from the records that can be read, passing over (and naming) those that cannot."""
    wait_for_lock: bool = False
    """When another build is writing the docs folder (``paper-digest serve`` rebuilding), wait for it
    instead of stopping with an error."""
    site_url: str | None = None
    """Where the site is served, over mkdocs.yml's ``site_url`` (a preview on another address)."""


@dataclass(frozen=True)
class BuildResult:
    digest: Digest
    docs: DocsWriteReport
    embedded: EmbeddingCounts
    analysis_reused: bool = False
    """The papers, settings and code were as in the last build, so its analysis was used as it was."""
    skipped: tuple[str, ...] = ()
    """With ``keep_going``: each record or file passed over, as "file:line: problem"."""


def build_summary(result: BuildResult, docs_dir: Path, site_dir: Path | None) -> str:
    """The one line that says what was built and where, printed even with --quiet."""
    counts = result.embedded
    if result.analysis_reused:
        work = "nothing embedded, the last analysis reused"
    else:
        made = [plural(counts.papers, "paper"), plural(counts.phrases, "keyword phrase")]
        embedded = f"embedded {' and '.join(made)}" if counts.papers or counts.phrases else "nothing embedded"
        work = f"{embedded}; {plural(counts.cached, 'text')} from the cache"
    papers = plural(len(result.digest.papers), "paper")
    where = f"site in {site_dir}" if site_dir is not None else f"Markdown in {docs_dir}"
    return f"built {papers}: {where} ({work})"


def open_backend(settings: Settings) -> SentenceTransformerEmbedder:
    """The model the settings name (loaded on first use)."""
    return SentenceTransformerEmbedder(settings.model, precision=settings.precision, device=settings.device)


def open_embedder(settings: Settings, backend: Embedder | None = None) -> CachedEmbedder:
    """The settings' model (or ``backend``, one kept loaded between builds) behind the digest's cache."""
    backend = backend or open_backend(settings)
    cache = EmbeddingCache.open(settings.resolve(settings.cache_dir) / CACHE_DATABASE)
    return CachedEmbedder(backend, cache)


def build_digest(
    settings: Settings, request: BuildRequest, reporter: Reporter, embedder: Embedder | None = None
) -> BuildResult:
    """Read, analyse, render and build; one build at a time per docs folder."""

    def waiting(holder: str) -> None:
        reporter.result(
            f"waiting for another paper-digest build (pid {holder}) to finish with {request.docs_dir}"
        )

    with build_lock(request.docs_dir, waiting if request.wait_for_lock else None):
        return _build(settings, request, reporter, embedder)


def _owner_site_name(settings: Settings) -> str | None:
    """The ``site_name`` the digest's mkdocs.yml sets, if any: the owner's choice, so it names the
    digest over what the inputs declare (a text file's first line, a shared venue)."""
    from generator.engine.settings import read_owner_config

    config_file = settings.resolve(settings.mkdocs_config)
    if not config_file.is_file():
        return None
    name = read_owner_config(config_file).get("site_name")
    return name.strip() if isinstance(name, str) and name.strip() else None


def _build(
    settings: Settings, request: BuildRequest, reporter: Reporter, embedder: Embedder | None
) -> BuildResult:
    with reporter.stage("read inputs"):
        collection = read_collection(
            list(request.inputs),
            name=request.name or _owner_site_name(settings),
            options=ReadOptions(columns=settings.columns, keep_going=request.keep_going),
        )
    for warning in collection.warnings:
        reporter.warn(warning)
    if collection.skipped:
        reporter.warn(f"{plural(len(collection.skipped), 'record')} could not be read: listed at the end")
    reporter.info(f"{collection.name}: {plural(len(collection.papers), 'paper')}")
    settled = None
    if request.address_record is not None:
        settled = settle_identities(
            collection.papers, read_record(request.address_record), settings.project_root
        )
        collection = replace(collection, papers=settled.papers)
        _report_matches(settled, reporter)

    own_embedder = embedder is None
    embedder = embedder or open_embedder(settings)
    database, close_cache = _open_cache(settings, embedder, own_embedder)
    if database is not None and database.was_reset:
        reporter.warn(f"cache {database.path} was unreadable or from another version; rebuilt it")
    try:
        analysis = _analyse_or_reuse(settings, request, collection, embedder, reporter, database)
        meaning = _meaning_inputs(settings, analysis.pending.digest, embedder, reporter)
    except BaseException:
        close_cache()
        raise
    finally:
        if own_embedder and isinstance(embedder, CachedEmbedder):
            close_backend = getattr(embedder.backend, "close", None)
            if close_backend is not None:
                close_backend()

    output = StagedOutput(request.docs_dir, request.site_dir)
    try:
        # The site is dated by its inputs, not by the clock: the same inputs build the same site any day.
        site_date = source_date_epoch(request.inputs)
        with dated(site_date):
            report, digest = _write_and_build(
                settings, analysis, output, reporter, settled, meaning, request.site_url, site_date
            )
        if settled is not None and request.address_record is not None:
            record = next_record(settled, *_addresses_and_notes(digest))
            write_record(request.address_record, record)
    finally:
        analysis.pending.cancel()
        output.discard()
        close_cache()  # open until here: the fit, the map and the analysis are stored as the map is done
    return BuildResult(
        digest=digest,
        docs=report,
        embedded=analysis.pending.embedded,
        analysis_reused=analysis.reused,
        skipped=collection.skipped,
    )


def _open_cache(
    settings: Settings, embedder: Embedder, own_embedder: bool
) -> tuple[CacheDatabase | None, Callable[[], None]]:
    """The build's one connection to the cache database (the embedding cache's, else one of its own;
    ``None`` when it cannot be opened: the build then keeps nothing), and what closes it after."""
    if isinstance(embedder, CachedEmbedder):
        database = embedder.cache.database
        return database, database.close if own_embedder else lambda: None
    opened = open_cache(settings.resolve(settings.cache_dir), check=True)
    return opened, opened.close if opened is not None else lambda: None


@dataclass
class _Analysis:
    pending: PendingDigest
    reused: bool
    """The papers, settings and code were as in the last build, so its analysis was used as it was."""
    remember: Callable[[Digest, Found], None]
    """Stores the completed digest, and what its map brought, for the next build."""
    key: str | None = None
    """The stored analysis' key when it was reused: it names this digest exactly."""

    def complete(self) -> Digest:
        digest = self.pending.complete()
        if not self.reused:
            self.remember(digest, self.pending.found)
        return digest


def _analyse_or_reuse(
    settings: Settings,
    request: BuildRequest,
    collection: Collection,
    embedder: Embedder,
    reporter: Reporter,
    database: CacheDatabase | None,
) -> _Analysis:
    """The stored analysis when the papers, settings, fit and code are exactly as last time; else a
    fresh one, stored for next time once its map is laid out."""
    shaping = {
        "keywords_per_paper": settings.keywords_per_paper,
        "related_per_paper": settings.related_per_paper,
    }
    stored = AnalysisCache(database, embedder.name)
    stores = AnalysisStores.on(database, embedder.name, len(collection.papers))

    def remember(digest: Digest, found: Found) -> None:
        stores.keep_map(found)
        # Keyed once the map is done: the key covers the fit, which is stored with the map.
        stored.save(analysis_key(collection, embedder.name, shaping, stores.fit.fingerprint()), digest)

    if not request.refit:
        key = analysis_key(collection, embedder.name, shaping, stores.fit.fingerprint())
        digest = stored.load(key, collection, embedder.name)
        if digest is not None:
            reporter.info("analysis: reused, the papers and settings are as in the last build")
            # The whole-digest files (explore data, feed, papers.bib …) also hold the pages' addresses.
            slugs = "\0".join(paper.entry.slug for paper in digest.papers)
            page_key = hashlib.sha256(f"{key}\0{slugs}".encode()).hexdigest()
            return _Analysis(PendingDigest(digest), True, remember, page_key)
    pending = analyse(
        collection,
        embedder,
        reporter,
        keywords_per_paper=settings.keywords_per_paper,
        related_per_paper=settings.related_per_paper,
        known=stores.known(refit=request.refit),
    )
    stores.keep_steps(pending.found)
    return _Analysis(pending, False, remember)


def _report_matches(settled: SettledPapers, reporter: Reporter) -> None:
    counts = settled.counts
    if not settled.previous.papers:
        return
    kept = [
        f"kept for {plural(counts.edited, 'edited paper')}" if counts.edited else "",
        f"given back to {plural(counts.revived, 'returning paper')}" if counts.revived else "",
        f"new for {plural(counts.new, 'paper')}" if counts.new else "",
    ]
    removed = sum(1 for successor in settled.successors.values() if successor is None)
    kept.append(f"left as a note for {plural(removed, 'removed paper')}" if removed else "")
    if any(kept):
        reporter.info("addresses: " + "; ".join(part for part in kept if part))


def _shown_on_every_page(digest: Digest) -> tuple[str, bool]:
    """What every page of the site shows beyond its own Markdown: the digest's name, and whether the
    navigation lists Topics (``generator.engine.settings.complete_settings``)."""
    return digest.name, bool(digest.topics)


@dataclass(frozen=True)
class _MeaningInputs:
    """What search by meaning ships: the papers' vectors and the model exported for the browser."""

    vectors: np.ndarray
    model: OnnxModel
    encoder: QueryEncoder | None
    """The quick query encoder the search box uses by default (None: the full model only)."""


def _meaning_inputs(
    settings: Settings, digest: Digest, embedder: Embedder, reporter: Reporter
) -> _MeaningInputs | None:
    """Only for the digest's own sentence-transformers model, which the browser can run: the vectors of
    another embedder (a test's fake one) would not match the reader's query. The papers' vectors come
    from the embedding cache, where the analysis left them (a reused analysis holds none)."""
    backend = getattr(embedder, "backend", embedder)
    if (
        not settings.meaning_search
        or not isinstance(backend, SentenceTransformerEmbedder)
        or not digest.papers
    ):
        return None
    with reporter.stage("search by meaning: model for the browser"):
        model = onnx_model(settings.resolve(settings.cache_dir), settings.model)
        # Distilled once per model (a minute or two), then read from the cache folder.
        encoder = query_encoder(settings.resolve(settings.cache_dir), settings.model)
    embeddings = embed_papers([text_parts(paper.entry) for paper in digest.papers], embedder)
    if embeddings.text.shape[1] != model.dimensions:
        reporter.warn(
            f"search by meaning left out: the model's vectors are not {model.dimensions}-dimensional"
        )
        return None
    return _MeaningInputs(embeddings.text, model, encoder)


def _meaning_files(renderer: PageRenderer, digest: Digest, meaning: _MeaningInputs) -> dict[str, bytes]:
    from generator.analysis.text import strip_markup

    papers = [
        MeaningPaper(
            id=paper.entry.paper.id,
            url=renderer.site_path(f"{PAPERS_DIR}/{paper.entry.slug}.md"),
            title=strip_markup(paper.entry.title),
            authors=", ".join(paper.entry.paper.authors),
            snippet=snippet(strip_markup(paper.entry.paper.abstract)),
        )
        for paper in digest.papers
    ]
    # The full model's download, as the search box states it: the model and the runtime it needs.
    runtime = ASSETS_DIR / MEANING_RUNTIME
    runtime_bytes = sum(path.stat().st_size for path in runtime.iterdir() if path.suffix in (".wasm", ".mjs"))
    return meaning_files(papers, meaning.vectors, meaning.model, meaning.encoder, runtime_bytes)


MEANING_SCRIPT = "javascripts/meaning.js"
MEANING_RUNTIME = "javascripts/vendor/onnxruntime-web/"


def _without_meaning_search(files: dict) -> dict[str, str]:
    """A site without search by meaning: no runtime, and a script that defines nothing, so the search
    box shows no switch and Explore no order by closeness."""
    for path in [path for path in files if path.startswith(MEANING_RUNTIME)]:
        del files[path]
    return {MEANING_SCRIPT: "// Search by meaning is not part of this digest.\n"}


def _write_and_build(
    settings: Settings,
    analysis: _Analysis,
    output: StagedOutput,
    reporter: Reporter,
    settled: SettledPapers | None = None,
    meaning: _MeaningInputs | None = None,
    site_url: str | None = None,
    site_date: int | None = None,
) -> tuple[DocsWriteReport, Digest]:
    """Render, stage and build. When the paper map is still being laid out and there is a site to
    build, MkDocs builds it meanwhile, with the files that hold map positions as empty placeholders
    that get their content before anything is published."""
    pending = analysis.pending
    map_is_late = output.staged_site is not None and not pending.map_ready
    with reporter.stage("render pages"):
        override = settings.resolve(settings.templates)
        renderer = PageRenderer(
            RenderOptions(
                papers_per_list_page=settings.papers_per_list_page,
                site_url=site_url or configured_site_url(settings.resolve(settings.mkdocs_config)),
                site_date=site_date,
            ),
            templates_override=override if override.is_dir() else None,
        )
        if map_is_late:
            files: dict[str, str | bytes | LazyFile] = dict(renderer.page_files(pending.digest))
            files.update(dict.fromkeys(DATA_FILES, ""))
        else:
            digest = analysis.complete()
            files = renderer.page_files(digest, analysis.key) | renderer.data_files(digest, analysis.key)
        files.update(asset_files())
        files.update(mathjax_files())
        # The papers' addresses are settled before the map: the pending digest has them. Without a
        # record there is nothing to redirect, and My list still finds its (empty) list of moves.
        record = next_record(settled, *_addresses_and_notes(pending.digest)) if settled is not None else None
        moves = redirects(record) if record is not None else []
        files.update(redirect_files(moves, PAPERS_DIR))
        files.update(renderer.removed_paper_pages(moves))
        if meaning is not None:
            files.update(_meaning_files(renderer, pending.digest, meaning))
        else:
            files.update(_without_meaning_search(files))
        project_docs = settings.project_root / "docs"
        report = output.write_docs(
            files, pending.digest.name, project_docs if project_docs.is_dir() else None
        )
    reporter.info(
        f"docs: {plural(report.written, 'file')} written, "
        f"{report.unchanged:,} unchanged, {report.removed:,} removed"
    )
    if output.staged_site is None:
        output.publish()
        return report, digest

    config_file = settings.resolve(settings.mkdocs_config)
    engine = settings.engine
    fingerprint = site_fingerprint(
        report.fingerprint,
        config_file,
        *_shown_on_every_page(pending.digest),
        site_url=site_url,
        engine=engine,
    )
    if map_is_late:
        with reporter.stage(f"{engine} build"):
            build_site(config_file, output.staged_docs, output.staged_site, site_url=site_url, engine=engine)
        digest = analysis.complete()  # reports the map's one line when it is laid out
        report = output.replace_docs(renderer.render_data(digest))
        fingerprint = site_fingerprint(
            report.fingerprint,
            config_file,
            *_shown_on_every_page(pending.digest),
            site_url=site_url,
            engine=engine,
        )
    elif output.site_is_current(fingerprint):
        reporter.info(f"{engine} build: skipped, the site is already built from these pages")
        output.keep_current_site()
    else:
        # An update starts from the old site (linked or copied); when most pages changed, a full
        # build is cheaper.
        update = (
            engine_can_update(engine)
            and report.written < report.unchanged
            and output.stage_site_update(fingerprint, share_files=site_files_may_be_shared(config_file))
        )
        with reporter.stage(
            f"{engine} build" + (f" (pages of {report.written} changed files)" if update else "")
        ):
            build_site(
                config_file,
                output.staged_docs,
                output.staged_site,
                update=update,
                removed_docs=report.removed_files,
                site_url=site_url,
                engine=engine,
            )
    output.publish(fingerprint)
    return report, digest


def _addresses_and_notes(digest: Digest) -> tuple[list[str], list[PageNote]]:
    """Each paper's page address and what its page names it by, for the address record."""
    entries = [paper.entry for paper in digest.papers]
    notes = [PageNote(e.title, e.title_was_derived, e.paper.url) for e in entries]
    return [e.slug for e in entries], notes
