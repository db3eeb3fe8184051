"""Writing a file of the cache folder whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def replace_file(path: Path, content: bytes) -> None:
    """Write beside ``path`` and rename, so a reader never sees half a file. Best effort: a cache
    folder that cannot be written costs a recomputation next time, not the build."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_bytes(content)
        temporary.replace(path)
    except OSError:
        pass
