"""``paper-digest serve``: the digest's site, rebuilt as its sources change and served with MkDocs'
live-reload server.

What is served is the site ``paper-digest build`` makes (``site/`` in the digest), not a copy built for
the preview. So a rebuild is the build's own incremental one (the analysis and the pages that did not
change are kept, MkDocs' dirty build runs over the last site: ``generator.engine.mkdocs_update``), a ``build``
run beside the preview builds the very site it serves, and nothing the preview needs is ever written
into the site: the server adds it to each page as it sends it (MkDocs' live-reload script, allowed by
its hash in the page's policy, and a banner when the last rebuild failed).

The build replaces the site only when everything succeeded, so after a bad edit the last good site
stays served, with the error on it, until a save that builds.

MkDocs' server watches the sources (polling, as MkDocs does) and runs a rebuild once they stopped
changing; the pages open in browsers reload when it is done. While it runs, pages are still sent, from
the last site (MkDocs holds them back, so as not to send a half-built site; the build never leaves one:
it swaps its site in whole). Builds of one docs folder take turns on its
lock (``generator.site.output.build_lock``): a ``build`` started during a rebuild waits for it; a
rebuild due while a ``build`` runs is left to that build, and the preview reloads (and rebuilds, for
edits the build may have read too early) when it has finished.
"""

from __future__ import annotations

import html
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.livereload import LiveReloadServer

from generator.build import BuildRequest, build_digest, build_summary, open_backend, open_embedder
from generator.errors import DigestError
from generator.finish.csp import allow_inline_script
from generator.progress import Reporter
from generator.project.settings import Settings
from generator.site.output import SITE_STAMP, BuildLockBusy, build_running

POLL_SECONDS = 0.5
"""How often the sources are looked at (MkDocs' own interval)."""
SETTLE_SECONDS = 0.3
"""A rebuild starts once the sources stopped changing for this long: an editor's save can be a few
writes and a rename."""
DEFAULT_ADDRESS = "127.0.0.1:8000"
BANNER_CLASS = "paper-digest-preview-error"


@dataclass(frozen=True)
class PreviewTarget:
    """What a rebuild builds, read afresh before each one: pyproject.toml may have changed."""

    settings: Settings
    request: BuildRequest

    @property
    def site_dir(self) -> Path:
        if self.request.site_dir is None:
            raise ValueError("a preview needs a site folder")
        return self.request.site_dir

    def sources(self) -> tuple[Path, ...]:
        """The inputs, mkdocs.yml, the template overrides and pyproject.toml (the project settings),
        those that exist."""
        settings = self.settings
        candidates = [
            *self.request.inputs,
            settings.resolve(settings.mkdocs_config),
            settings.resolve(settings.templates),
            settings.project_root / "pyproject.toml",
        ]
        return tuple(dict.fromkeys(path.absolute() for path in candidates if path.exists()))


def file_states(paths: Iterable[Path]) -> dict[Path, tuple[int, int]]:
    """Each file under ``paths`` (a file, or a folder's files at any depth) with its modification
    time and size."""
    states: dict[Path, tuple[int, int]] = {}
    for path in paths:
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            try:
                status = file.stat()
            except OSError:
                continue
            if file.is_file():
                states[file] = (status.st_mtime_ns, status.st_size)
    return states


def changed_files(before: dict[Path, tuple[int, int]], after: dict[Path, tuple[int, int]]) -> list[Path]:
    """Files added, removed or changed between two ``file_states``."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def _shown(path: Path, root: Path) -> str:
    """A path as the terminal shows it: relative to the digest folder when it is in it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def describe_changes(changed: Sequence[Path], root: Path, shown: int = 3) -> str:
    """``abstracts/a.txt changed``, with at most ``shown`` names."""
    names = [_shown(path, root) for path in changed]
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
    return f"{listed} changed"


def parse_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8000`` for IPv6) as a host and a port number."""
    host, colon, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise DigestError(f"cannot serve on {address!r}: expected HOST:PORT, e.g. {DEFAULT_ADDRESS}")
    return host, int(port)


def error_banner(message: str) -> str:
    """The banner a page served after a failed rebuild shows, at the foot of the window. Styled
    in its own attribute: the pages' policy allows inline styles, and no script is needed."""
    style = (
        "position:fixed;left:0;right:0;bottom:0;z-index:1000;margin:0;padding:.8em 1.2em;"
        "background:#b71c1c;color:#fff;font:14px/1.45 system-ui,sans-serif;white-space:pre-wrap;"
        "max-height:40vh;overflow:auto;box-shadow:0 -2px 6px rgba(0,0,0,.3)"
    )
    return (
        f'<div class="{BANNER_CLASS}" role="alert" style="{style}"><strong>The preview was not '
        f"updated: the last rebuild failed.</strong> This is the last site that built; save a fixed "
        f"file to rebuild.\n{html.escape(message, quote=False)}</div>"
    )


def with_banner(page: str, message: str) -> str:
    """``page`` with ``error_banner`` first in its body."""
    at = page.find("<body")
    at = page.find(">", at) + 1 if at >= 0 else 0
    return page[:at] + error_banner(message) + page[at:]


class PreviewServer(LiveReloadServer):
    """MkDocs' live-reload server, adding to each page it sends what the preview needs.

    It builds on MkDocs' internals (``_inject_js_into_html``, the hook for what is added to a page;
    the rebuild flag ``request_rebuild`` raises; the site versions ``answering`` moves); the
    preview's tests exercise each, so a MkDocs release that changes them fails there."""

    def __init__(
        self,
        builder: Callable[[], None],
        address: tuple[str, int],
        root: Path,
        mount_path: str,
        failure: Callable[[], str | None],
    ) -> None:
        super().__init__(
            builder=builder,
            host=address[0],
            port=address[1],
            root=str(root),
            mount_path=mount_path,
            polling_interval=POLL_SECONDS,
        )
        self.build_delay = SETTLE_SECONDS
        self._failure = failure
        self.error_handler = self._error_page

    def _inject_js_into_html(self, content: bytes, epoch: int) -> bytes:
        served = super()._inject_js_into_html(content, epoch)
        # MkDocs puts its script last before </body>; the page's policy allows it by its hash.
        start = served.rindex(b"<script>") + len(b"<script>")
        script = served[start : served.index(b"</script>", start)].decode("utf-8")
        page = allow_inline_script(served.decode("utf-8"), script)
        failure = self._failure()
        return (with_banner(page, failure) if failure else page).encode("utf-8")

    def _error_page(self, code: int) -> bytes | None:
        """The site's own 404 page, as MkDocs' server and GitHub Pages serve it."""
        page = Path(self.root) / f"{code}.html"
        try:
            return page.read_bytes() if code in (404, 500) else None
        except OSError:
            return None

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Pages are sent while a rebuild runs (MkDocs holds them back until it is done, so as not to
        send a half-built site; the build swaps its site in whole). Pages sent meanwhile are told to
        reload when it is done, as MkDocs' rule would have them."""
        with self._epoch_cond:
            wanted, self._wanted_epoch = self._wanted_epoch, self._visible_epoch
        try:
            yield
        finally:
            with self._epoch_cond:
                self._wanted_epoch = wanted

    def request_rebuild(self) -> None:
        """Rebuild as if a watched file had changed (what MkDocs' watch callback does)."""
        with self._rebuild_cond:
            self._want_rebuild = True
            self._rebuild_cond.notify_all()


class Preview:
    """The first build, then the server; each change of the sources rebuilds, each build of the
    site (the preview's own or another's) reloads the browsers.

    ``load`` reads the settings and what to build (it is called before every rebuild); ``embedder``
    stands in for the settings' model (tests), which is otherwise loaded once and kept between
    rebuilds, so an edit does not pay for loading it again."""

    def __init__(
        self,
        load: Callable[[], PreviewTarget],
        reporter: Reporter,
        address: str | None = None,
        embedder=None,
    ) -> None:
        self._load = load
        self._reporter = reporter
        self._address = address
        self._given_embedder = embedder
        self._backend = None
        self._backend_key: tuple[str, str, str] | None = None
        self._target = load()
        self.failure: str | None = None
        """The last rebuild's error, shown on every served page until a rebuild succeeds."""
        self._sources: dict[Path, tuple[int, int]] = {}
        self._watched: set[Path] = set()
        self._seen_stamp: str | None = None
        self._deferred = False
        self._building = threading.Lock()
        self._stop = threading.Event()
        self.server: PreviewServer | None = None
        self._warming: threading.Thread | None = None
        self._site_url: str | None = None
        """Where the pages say they are served, when not where mkdocs.yml says (``served_site_url``)."""

    @property
    def site_dir(self) -> Path:
        return self._target.site_dir

    def start(self) -> PreviewServer:
        """Build, then make the server (bound when ``serve`` runs). A failed first build is reported
        on the pages when there is a site from before to serve; with none, its error is raised."""
        from generator.engine.settings import configured_site_url, read_owner_config

        target = self._target
        config_file = target.settings.resolve(target.settings.mkdocs_config)
        owner_address = read_owner_config(config_file).get("dev_addr")
        address = parse_address(
            self._address or (owner_address if isinstance(owner_address, str) else None) or DEFAULT_ADDRESS
        )
        _check_free(address)  # before the build, which takes minutes at a conference's size
        self._site_url = served_site_url(configured_site_url(config_file), address)
        if self._site_url is not None:
            self._reporter.info(f"site_url: {self._site_url} (the address served on)")
        self._sources = file_states(target.sources())
        try:
            self._build(target, "start")
        except DigestError as error:
            if not (target.site_dir / "index.html").is_file():
                raise
            self._failed(error)
            self._seen_stamp = _site_stamp(target.site_dir)
        mount_path = urlsplit(self._site_url or configured_site_url(config_file) or "/").path or "/"
        self.server = PreviewServer(self.rebuild, address, target.site_dir, mount_path, lambda: self.failure)
        self._watch(target)
        return self.server

    def serve(self) -> None:
        """Serve until ``shutdown`` (or Ctrl-C); rebuilds run in this thread."""
        server = self.server or self.start()
        _show_served_address()
        names = sorted(_shown(path, self._target.settings.project_root) for path in self._watched)
        self._reporter.result(
            f"watching {', '.join(names)}: a saved change rebuilds the site and reloads the page"
        )
        follower = threading.Thread(target=self._follow_other_builds, name="preview-follower", daemon=True)
        follower.start()
        self._warming = threading.Thread(target=self._warm_up, name="preview-warm-up", daemon=True)
        self._warming.start()
        try:
            server.serve()
        except OSError as error:  # the address is taken or cannot be bound
            host, port = server.server_address[:2]
            raise DigestError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None
        finally:
            self.shutdown()
            follower.join(timeout=5)

    def shutdown(self) -> None:
        self._stop.set()
        if self.server is not None:
            self.server.shutdown()
        close = getattr(self._backend, "close", None)
        if close is not None:
            close()
            self._backend = None

    def rebuild(self) -> None:
        """One rebuild after a change; every error is reported, never raised: the server must keep
        answering (MkDocs' server stalls page requests after a builder raised)."""
        with self.server.answering() if self.server is not None else nullcontext():
            self._rebuild()

    def _rebuild(self) -> None:
        try:
            target = self._load()
        except DigestError as error:
            self._failed(error)
            return
        self._watch(target)
        now = file_states(target.sources())
        changed = changed_files(self._sources, now)
        self._sources = now
        reason = describe_changes(changed, target.settings.project_root) if changed else "another build"
        try:
            self._build(target, reason)
        except BuildLockBusy as busy:
            self._reporter.result(f"{busy}; the preview rebuilds when it has finished")
            self._deferred = True
        except DigestError as error:
            self._failed(error)
        except Exception as error:  # a bug: reported in full, and the preview stays up
            traceback.print_exc()
            self._failed(error)

    def _build(self, target: PreviewTarget, reason: str) -> None:
        request = target.request if reason == "start" else replace(target.request, refit=False)
        if self._site_url is not None:
            request = replace(request, site_url=self._site_url)
        with self._building:
            started = time.perf_counter()
            if self._warming is not None:  # one model load at a time
                self._warming.join()
                self._warming = None
            embedder, close = self._embedder(target.settings)
            try:
                result = build_digest(target.settings, request, self._reporter, embedder)
            finally:
                close()
            self._target = target
            self._seen_stamp = _site_stamp(target.site_dir)
            self.failure = None
        seconds = time.perf_counter() - started
        summary = build_summary(result, request.docs_dir, request.site_dir)
        what = "built" if reason == "start" else f"rebuilt after {reason}"
        self._reporter.result(f"{what} in {seconds:.1f}s: {summary.removeprefix('built ')}")

    def _failed(self, error: BaseException) -> None:
        self.failure = str(error) if isinstance(error, DigestError) else f"{type(error).__name__}: {error}"
        self._reporter.result(f"error: {self.failure}")
        self._reporter.result("the preview keeps serving the last site that built; the next save rebuilds it")

    def _embedder(self, settings: Settings):
        """The embedder for one build and what closes it after."""
        if self._given_embedder is not None:
            return self._given_embedder, lambda: None
        embedder = open_embedder(settings, self._backend_for(settings))
        return embedder, embedder.cache.close

    def _backend_for(self, settings: Settings):
        """The settings' model, the one already loaded while they name the same."""
        key = (settings.model, settings.precision, settings.device)
        if self._backend is None or self._backend_key != key:
            close = getattr(self._backend, "close", None)
            if close is not None:
                close()
            self._backend, self._backend_key = open_backend(settings), key
        return self._backend

    def _warm_up(self) -> None:
        """Load the model while the preview waits for the first edit, which would otherwise wait for
        it (5-10 s when the first build embedded nothing)."""
        if self._given_embedder is not None:
            return
        try:
            self._backend_for(self._target.settings).embed(["a text to load the model with"])
        except Exception:  # the next build loads it again, and reports what failed
            return

    def _watch(self, target: PreviewTarget) -> None:
        """Watch the target's sources (they change with the settings), and no others."""
        if self.server is None:
            return
        wanted = set(target.sources())
        for path in wanted - self._watched:
            self.server.watch(str(path))
        for path in self._watched - wanted:
            self.server.unwatch(str(path))
        self._watched = wanted

    def _follow_other_builds(self) -> None:
        """A site built by another build (its stamp changed) gets the preview to rebuild, which
        reloads the browsers; so does the end of a build that held the lock when a rebuild was due,
        and a source that did not exist when last looked at (a site_templates/ or pyproject.toml
        made while serving: the watcher watches only what exists)."""
        docs_dir = self._target.request.docs_dir
        while not self._stop.wait(POLL_SECONDS):
            if self._building.locked() or self.server is None:
                continue
            stamp = _site_stamp(self.site_dir)
            other_site = stamp is not None and stamp != self._seen_stamp
            appeared = set(self._target.sources()) - self._watched
            for path in appeared:
                self.server.watch(str(path))
            self._watched = self._watched | appeared
            if other_site or appeared or (self._deferred and not build_running(docs_dir)):
                self._deferred = False
                self._seen_stamp = stamp if other_site else self._seen_stamp
                self.server.request_rebuild()


def _site_stamp(site_dir: Path) -> str | None:
    try:
        return (site_dir / SITE_STAMP).read_text(encoding="utf-8")
    except OSError:
        return None


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")  # as urlsplit gives them: no brackets


def served_site_url(configured: str | None, address: tuple[str, int]) -> str | None:
    """The ``site_url`` a preview on ``address`` should build with, when mkdocs.yml names a local
    address that is not it (the default names 127.0.0.1:8000, and ``--dev-addr`` may differ): pages
    carry it in their canonical links and sitemap, and Material's instant navigation follows only
    links the sitemap names, so a stale port makes every click a full page load. ``None`` keeps the
    configured one: a public address (``SITE_URL``, set by the publishing workflow) is not ours to
    change, and ``SITE_URL`` given to ``serve`` wins."""
    if os.environ.get("SITE_URL") or configured is None:
        return None
    parts = urlsplit(configured)
    if parts.hostname not in LOOPBACK_HOSTS:
        return None
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    served = f"http://{shown}:{port}{parts.path or '/'}"
    return None if served == configured else served


def _check_free(address: tuple[str, int]) -> None:
    """Refuse an address another program serves on now, rather than after the first build."""
    host, port = address
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise DigestError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None
    family, kind, _, _, where = infos[0]
    with socket.socket(family, kind) as probe:
        # As the server binds (SO_REUSEADDR): a port left in TIME_WAIT by a stopped preview is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as error:
            raise DigestError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None


def _show_served_address() -> None:
    """MkDocs' livereload server logs its address at INFO, below the warnings the build shows:
    print that line (once the socket is bound, so the address is the real one)."""

    class ServedAddress(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            # "[12:00:00] Serving on http://127.0.0.1:8000/" (MkDocs stamps the time in front)
            _, found, address = record.getMessage().partition("Serving on ")
            if found:
                print(f"serving the digest on {address.split()[0]} (Ctrl-C to stop)", flush=True)

    logger = logging.getLogger("mkdocs.livereload")
    if not any(isinstance(h, ServedAddress) for h in logger.handlers):
        logger.addHandler(ServedAddress(logging.INFO))
        logger.setLevel(logging.INFO)
