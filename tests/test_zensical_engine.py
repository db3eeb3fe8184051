"""Zensical is run as a process of its own and watched: a build that stops working (Zensical 0.0.73
waits for ever on large digests) is stopped with a message that says what to do, and a build that
works is left alone however long it takes."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from generator.engine.zensical import _cpu_seconds, run_watched
from generator.errors import DigestError

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="no /proc on this system")


@needs_proc
def test_a_build_that_uses_no_cpu_is_stopped_as_hung(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(DigestError, match=r"used no CPU for 3 s.*--engine mkdocs"):
        run_watched(
            [sys.executable, "-c", "print('Build started', flush=True); import time; time.sleep(60)"],
            tmp_path,
            3,
        )
    assert time.monotonic() - started < 30


@needs_proc
def test_a_working_build_is_left_to_finish_and_its_output_kept(tmp_path: Path) -> None:
    # Busy for longer than the idle limit: never taken for hung.
    script = "import time\nend = time.time() + 8\nwhile time.time() < end: pass\nprint('done')\nexit(3)"
    assert run_watched([sys.executable, "-c", script], tmp_path, 4) == (3, "done\n")


@needs_proc
def test_cpu_time_is_read_for_a_running_process_and_not_for_a_gone_one() -> None:
    import os

    assert _cpu_seconds(os.getpid()) is not None
    assert _cpu_seconds(2**22 + 12345) is None
