"""A folder served over HTTP on this machine for the benchmarks that open a site in Chromium (a page
loaded from ``file://`` may not fetch the site's files).

Plain ``http.server``, as these benchmarks were measured with: not the browser tests' ``SiteServer``
(``tests/browser_support.py``), which sends ``Cache-Control: no-store`` and so would change what the
speed benchmarks time when a page fetches a file again."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request, which would bury the benchmark's own output."""

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """``folder`` served on a free port of 127.0.0.1 by a thread while the block runs; gives its
    address, ending in "/"."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
