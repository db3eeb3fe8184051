"""Errors the command line reports to the maintainer without a traceback."""

from __future__ import annotations

from pathlib import Path


class DigestError(Exception):
    """A problem the maintainer can fix; the message says what and where."""


class InputError(DigestError):
    """A malformed input file. The message names the file and, where there is one, the line."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")
