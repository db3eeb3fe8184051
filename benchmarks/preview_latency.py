"""How long an edited abstract takes to show in the browser under ``paper-digest serve``.

For each size, a digest folder is made (``paper-digest new``; the bundled example's 3 files and 57
papers, or a JSONL corpus such as ``../shared/corpora/icml2024.jsonl`` copied into its abstracts/),
``paper-digest serve`` is started on it as a user starts it (its first build is not timed), and
headless Chromium opens a page. Then, per trial, one abstract is edited and saved, and the time is
taken from the save to the moment the edited text is in the page the browser shows, with no reload
but the preview's own. A trial's rebuild time, as serve reports it, is listed beside it.

Which page is watched: a ``.txt`` abstract has no title, and the paper's address follows its text, so
for the bundled digest a few words are put before the first abstract's text, which become the start
of its title on the home page's list; a JSONL record keeps its id, so for a corpus a sentence is
added at the end of the first paper's abstract and its own page is watched.

    python benchmarks/preview_latency.py                       # the bundled example
    python benchmarks/preview_latency.py --corpus ../shared/corpora/icml2024.jsonl --trials 3

The digest folder (and its cache) stays in --workdir, so a second run skips the cold build.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))

from tests.browser_support import CHROMIUM_ARGS, chromium_executable, wait_until  # noqa: E402

SERVING = re.compile(r"serving the digest on (\S+)")
REBUILT = re.compile(r"rebuilt after .* in ([\d.]+)s")


@dataclass(frozen=True)
class Trial:
    visible: float
    """Seconds from the save to the text in the page."""
    rebuilt: float | None
    """The rebuild's own seconds, as serve printed them."""
    build: float | None
    """Seconds of ``paper-digest build`` after the same kind of edit, in the same round: what the edit
    cost before serve rebuilt (then a reload by hand)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_digest(folder: Path, corpus: Path | None) -> None:
    """A digest folder as a user makes one; kept when it exists (its cache makes the next run warm)."""
    if (folder / "mkdocs.yml").is_file():
        return
    command = [sys.executable, "-m", "generator.cli", "new", str(folder)]
    subprocess.run(command + ([] if corpus else ["--example"]), check=True, env=environment())
    if corpus is not None:
        shutil.copyfile(corpus, folder / "abstracts" / corpus.name)


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPOSITORY), "HF_HUB_OFFLINE": "1"}


class Serve:
    """``paper-digest serve`` in a process of its own, its output in a log file."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.log = log
        self.port = free_port()
        self._output = open(log, "w")  # noqa: SIM115 (open for the process's life)
        command = [sys.executable, "-m", "generator.cli", "serve", "--dev-addr", f"127.0.0.1:{self.port}"]
        self.process = subprocess.Popen(
            command,
            cwd=folder,
            env=environment(),
            stdout=self._output,
            stderr=subprocess.STDOUT,
            # Ctrl-C stops it as it stops a user's serve, even when this script runs with it ignored.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_serving(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = SERVING.search(self.text())
            if found:
                return found[1].rstrip("/")
            if self.process.poll() is not None:
                raise SystemExit(f"serve stopped:\n{self.text()[-3000:]}")
            time.sleep(1)
        raise SystemExit(f"serve did not start in {timeout:.0f} s:\n{self.text()[-3000:]}")

    def rebuilds(self) -> list[float]:
        return [float(seconds) for seconds in REBUILT.findall(self.text())]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # Ctrl-C, as a user stops it
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._output.close()


def fresh_marker() -> str:
    """A word no abstract holds, of letters only (the title heuristic passes over words with digits),
    different at each trial, so each edit is new text to embed."""
    number, letters = time.time_ns() // 1_000_000, ""
    for _ in range(6):
        number, digit = divmod(number, 26)
        letters += chr(ord("a") + digit)
    return f"Quokka{letters}"


def bundled_edit(folder: Path) -> tuple[Path, str, str, str]:
    """(file, its new text, the marker to wait for, the page to watch): words before the first
    abstract of the first file, which begin its title on the home page."""
    file = sorted((folder / "abstracts").glob("*.txt"))[0]
    name, _, rest = file.read_text(encoding="utf-8").partition("\n\n")
    rest = re.sub(r"^Quokka[a-z]+ survey: ", "", rest)
    marker = fresh_marker()
    return file, f"{name}\n\n{marker} survey: {rest}", marker, ""


def corpus_edit(folder: Path, corpus_name: str) -> tuple[Path, str, str, str]:
    """A sentence added at the end of the first record's abstract; its own page is watched."""
    file = folder / "abstracts" / corpus_name
    lines = file.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    abstract = re.sub(r" We call it Quokka[a-z]+\.$", "", record["abstract"])
    marker = fresh_marker()
    record["abstract"] = f"{abstract} We call it {marker}."
    lines[0] = json.dumps(record, ensure_ascii=False)
    return file, "\n".join(lines) + "\n", marker, paper_page(folder, abstract)


def paper_page(folder: Path, abstract: str) -> str:
    """The address of the page whose Markdown holds the abstract's first words."""
    opening = " ".join(abstract.split()[:8])
    for page in sorted((folder / "docs" / "papers").glob("*.md")):
        if opening in page.read_text(encoding="utf-8"):
            return f"papers/{page.stem}/"
    raise SystemExit(f"no paper page holds {opening!r}")


def save(file: Path, text: str) -> None:
    """As editors save: a new file renamed over the old one."""
    staged = file.with_name(f".{file.name}.saving")
    staged.write_text(text, encoding="utf-8")
    staged.replace(file)


def timed_build(folder: Path, corpus: Path | None) -> float:
    """One more edit in ``folder``, built by ``paper-digest build`` as a user would without the preview."""
    file, text, _, _ = bundled_edit(folder) if corpus is None else corpus_edit(folder, corpus.name)
    save(file, text)
    start = time.monotonic()
    command = [sys.executable, "-m", "generator.cli", "build", "--quiet"]
    subprocess.run(command, cwd=folder, env=environment(), check=True, capture_output=True)
    return time.monotonic() - start


def run(folder: Path, corpus: Path | None, trials: int, start_timeout: float, compare: bool) -> list[Trial]:
    from playwright.sync_api import sync_playwright

    make_digest(folder, corpus)
    serve = Serve(folder, folder.parent / f"{folder.name}-serve.log")
    results: list[Trial] = []
    try:
        started = time.monotonic()
        origin = serve.wait_serving(start_timeout)
        print(f"{folder.name}: serving after {time.monotonic() - started:.1f}s (first build)", flush=True)
        # The builds compared with the preview run in a copy (its cache too), where serve sees nothing.
        twin = folder.with_name(f"{folder.name}-build") if compare else None
        if twin is not None:
            shutil.rmtree(twin, ignore_errors=True)
            shutil.copytree(folder, twin, symlinks=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
            page = browser.new_page()
            for trial in range(trials):
                if corpus is None:
                    file, text, marker, address = bundled_edit(folder)
                else:
                    file, text, marker, address = corpus_edit(folder, corpus.name)
                page.goto(f"{origin}/{address}")
                page.wait_for_load_state("load")
                time.sleep(1)  # the live-reload poll is open
                rebuilds_before = len(serve.rebuilds())
                saved = time.monotonic()
                save(file, text)
                wait_until(page, "marker => document.body?.innerText.includes(marker)", marker, 120_000)
                visible = time.monotonic() - saved
                deadline = time.monotonic() + 60
                while len(serve.rebuilds()) <= rebuilds_before and time.monotonic() < deadline:
                    time.sleep(0.2)
                rebuilt = (
                    serve.rebuilds()[rebuilds_before] if len(serve.rebuilds()) > rebuilds_before else None
                )
                build = timed_build(twin, corpus) if twin is not None else None
                results.append(Trial(visible, rebuilt, build))
                beside = f", paper-digest build {build:.2f}s" if build is not None else ""
                print(
                    f"  trial {trial + 1}: visible after {visible:.2f}s (rebuild {rebuilt}s{beside})",
                    flush=True,
                )
                time.sleep(2)
            browser.close()
    finally:
        serve.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="a JSONL corpus (default: the bundled example)")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/preview-latency"))
    parser.add_argument("--start-timeout", type=float, default=1800, help="seconds for the first build")
    parser.add_argument(
        "--compare-build",
        action="store_true",
        help="in each round, also time paper-digest build after one more edit (the cost without serve)",
    )
    arguments = parser.parse_args()
    if chromium_executable() is None:
        raise SystemExit("Chromium not found (apt-get install chromium)")
    name = arguments.corpus.stem if arguments.corpus else "bundled"
    arguments.workdir.mkdir(parents=True, exist_ok=True)
    corpus = arguments.corpus.resolve() if arguments.corpus else None
    results = run(
        arguments.workdir / name, corpus, arguments.trials, arguments.start_timeout, arguments.compare_build
    )
    visible = [trial.visible for trial in results]
    rebuilt = [trial.rebuilt for trial in results if trial.rebuilt is not None]
    rebuild = f"; rebuild median {statistics.median(rebuilt):.2f}s" if rebuilt else ""
    print(
        f"{name}: save to visible median {statistics.median(visible):.2f}s "
        f"(min {min(visible):.2f}, max {max(visible):.2f}, {len(visible)} trials){rebuild}"
    )
    builds = [trial.build for trial in results if trial.build is not None]
    if builds:
        print(
            f"{name}: paper-digest build after an edit, median {statistics.median(builds):.2f}s; "
            f"save to visible / build = {statistics.median(visible) / statistics.median(builds):.2f}"
        )


if __name__ == "__main__":
    main()
