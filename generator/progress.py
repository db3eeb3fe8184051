"""Progress for long stages: a rich progress bar on a terminal, one line per stage otherwise."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

Advance = Callable[[int], None]


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """``1 paper``, ``2 papers``, ``1,204 keyword phrases``."""
    return f"{count:,} {noun if count == 1 else plural_noun or noun + 's'}"


class Reporter:
    """Reports stages and their timings. ``quiet`` keeps only the one-line-per-stage summary."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.timings: dict[str, float] = {}
        self._interactive = not quiet and self.stream.isatty()

    def info(self, message: str) -> None:
        if not self.quiet:
            print(message, file=self.stream, flush=True)

    def result(self, message: str) -> None:
        """A line that is printed even when quiet: where the outcome is."""
        print(message, file=self.stream, flush=True)

    def finished(self, name: str, seconds: float, detail: str = "") -> None:
        """A stage that was timed elsewhere (it ran beside others): one line, as ``stage`` prints."""
        self.timings[name] = self.timings.get(name, 0.0) + seconds
        print(f"{name}: {seconds:.1f}s" + (f" ({detail})" if detail else ""), file=self.stream, flush=True)

    def warn(self, message: str) -> None:
        print(f"warning: {message}", file=self.stream, flush=True)

    @contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "items") -> Iterator[Advance]:
        """Time a stage; the yielded function advances its bar by a count of ``unit``."""
        start = time.perf_counter()
        done = 0
        if self._interactive and total:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
            )
            with Progress(*columns, console=Console(file=self.stream), transient=True) as bar:
                task = bar.add_task(name, total=total, rate="")

                def advance(count: int) -> None:
                    nonlocal done
                    done += count
                    elapsed = time.perf_counter() - start
                    rate = f"{done / elapsed:.0f}/s" if elapsed > 0 else ""
                    bar.update(task, advance=count, rate=rate)

                yield advance
        else:

            def advance(count: int) -> None:
                nonlocal done
                done += count

            yield advance
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        rate = f", {done / elapsed:.1f} {unit}/s" if done and elapsed > 0 else ""
        count = f" ({plural(done, unit.removesuffix('s'), unit)}{rate})" if done else ""
        print(f"{name}: {elapsed:.1f}s{count}", file=self.stream, flush=True)


def show_warnings(logger_name: str, prefix: str) -> None:
    """Print the warnings of ``logger_name`` (a library's or a stage's) on stderr, each line led by
    ``prefix``; once, however many builds a process runs. Its INFO lines stay for handlers that ask."""
    logger = logging.getLogger(logger_name)
    if any(getattr(handler, "_paper_digest", False) for handler in logger.handlers):
        return
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter(f"{prefix} %(levelname)s: %(message)s"))
    handler._paper_digest = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
