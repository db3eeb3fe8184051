"""The one cache: a SQLite file in the cache folder holding everything a build keeps for the next.

Two tables. ``vectors`` holds embeddings by sha256(model name and precision, text). ``entries`` holds
the rest by kind (keyword candidates of an abstract, KeyBERT's similarities of a paper's candidates,
the digest-wide fit, the last joint vectors and neighbour lists, a map layout, the last analysis),
each row by a content key and the version of the code that wrote it: a row written by other code is
not read. Every write is a transaction, so a
crash mid-write leaves what was stored before it; a file that is not a database of this schema, or
fails SQLite's check, is deleted and started anew (a cache is never trusted over recomputing).
The build opens the file once (``open_cache``) and hands the connection to every store; the
analysis never sees it: it is given what the stores read (``StoredEntries``) and returns what it
found, which the build writes back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

CACHE_DATABASE = "cache.sqlite3"
SCHEMA_VERSION = "2"
LEGACY_FILES = ("embeddings.sqlite3", "candidates.json")
"""The caches of Paper Digest 0.1, one file each: their vectors are moved into the database once."""
LEGACY_FOLDERS = ("fits", "layouts")
CHUNK = 500
"""Keys per SQL statement (SQLite allows 999 parameters in older builds)."""


class CacheDatabase:
    """The cache folder's database, opened once per build and shared by its stores. ``check`` runs
    SQLite's integrity check on opening (the build does); a store treats any error as a miss."""

    def __init__(self, path: Path, check: bool = False) -> None:
        self.path = path
        self.was_reset = False
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists()
        try:
            self._connection = self._open(check)
        except sqlite3.OperationalError:
            raise  # locked, read-only, out of space: not a reason to delete what is stored
        except sqlite3.DatabaseError:  # not a database, damaged, or another schema
            self._reset(check)
        if fresh and path.name not in LEGACY_FILES:
            self._adopt_legacy_vectors()

    def _open(self, check: bool) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=60)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS vectors "
                "(key BLOB PRIMARY KEY, dim INTEGER NOT NULL, data BLOB NOT NULL)"
            )
            connection.execute(
                "CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL, "
                "code TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (kind, key))"
            )
            row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                has_rows = connection.execute(
                    "SELECT EXISTS (SELECT 1 FROM vectors) OR EXISTS (SELECT 1 FROM entries)"
                ).fetchone()[0]
                if has_rows:
                    raise sqlite3.DatabaseError("cache has rows but no schema version")
                connection.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                connection.commit()
            elif row[0] != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"cache schema {row[0]!r}, expected {SCHEMA_VERSION!r}")
            if check and connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("cache failed its integrity check")
        except sqlite3.DatabaseError:
            connection.close()
            raise
        return connection

    def _reset(self, check: bool) -> None:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self.was_reset = True
        self._connection = self._open(check)

    def _adopt_legacy_vectors(self) -> None:
        """Vectors of a 0.1 cache folder (``embeddings.sqlite3``, same keys) move in, so an upgrade
        embeds nothing again; the other old files are only a recomputation away and are removed."""
        folder = self.path.parent
        legacy = folder / LEGACY_FILES[0]
        if legacy.is_file():
            try:
                self._connection.execute("ATTACH DATABASE ? AS legacy", (str(legacy),))
                with self._connection:
                    self._connection.execute(
                        "INSERT OR IGNORE INTO vectors SELECT key, dim, data FROM legacy.vectors"
                    )
                self._connection.execute("DETACH DATABASE legacy")
            except sqlite3.DatabaseError:
                pass  # unreadable: its vectors are computed again
        for name in LEGACY_FILES:
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{folder / name}{suffix}").unlink(missing_ok=True)
        for name in LEGACY_FOLDERS:
            for file in (folder / name).glob("*"):
                file.unlink(missing_ok=True)
            if (folder / name).is_dir():
                (folder / name).rmdir()
        for file in folder.glob("analysis-*.json"):
            file.unlink(missing_ok=True)

    # --- embeddings ---------------------------------------------------------------------------

    def get_vectors(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), CHUNK):
            chunk = list(keys[start : start + CHUNK])
            placeholders = ",".join("?" * len(chunk))
            rows = self._connection.execute(
                f"SELECT key, dim, data FROM vectors WHERE key IN ({placeholders})", chunk
            )
            for key, dim, data in rows:
                vector = np.frombuffer(data, dtype=np.float32)
                if vector.shape[0] == dim:  # a truncated row is recomputed, not trusted
                    found[key] = vector
        return found

    def put_vectors(self, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(key, int(v.shape[0]), np.asarray(v, np.float32).tobytes()) for key, v in items],
            )

    # --- everything else ----------------------------------------------------------------------

    def get(self, kind: str, key: str, code: str) -> bytes | None:
        """The entry, or ``None`` when there is none, other code wrote it, or the file cannot be read."""
        return self.get_many(kind, [key], code).get(key)

    def get_many(self, kind: str, keys: Sequence[str], code: str) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(keys), CHUNK):
                chunk = list(keys[start : start + CHUNK])
                placeholders = ",".join("?" * len(chunk))
                rows = self._connection.execute(
                    f"SELECT key, data FROM entries WHERE kind = ? AND code = ? AND key IN ({placeholders})",
                    [kind, code, *chunk],
                )
                found.update((key, bytes(data)) for key, data in rows)
        except sqlite3.DatabaseError:
            return {}
        return found

    def get_kind(self, kind: str, code: str) -> dict[str, bytes]:
        """Every entry of ``kind`` that ``code`` wrote (none when the file cannot be read)."""
        try:
            rows = self._connection.execute(
                "SELECT key, data FROM entries WHERE kind = ? AND code = ?", (kind, code)
            )
            return {key: bytes(data) for key, data in rows}
        except sqlite3.DatabaseError:
            return {}

    def keys(self, kind: str) -> list[str]:
        """The keys stored of ``kind`` (none when the file cannot be read)."""
        try:
            return [
                key for (key,) in self._connection.execute("SELECT key FROM entries WHERE kind = ?", (kind,))
            ]
        except sqlite3.DatabaseError:
            return []

    def put(self, kind: str, key: str, code: str, data: bytes) -> None:
        self.put_many(kind, [(key, data)], code)

    def put_many(
        self, kind: str, items: Iterable[tuple[str, bytes]], code: str, keep_only: Iterable[str] | None = None
    ) -> None:
        """Store entries in one transaction; with ``keep_only``, the kind's other entries go in it too.
        Best effort: a cache that cannot be written costs a recomputation next time, not the build."""
        try:
            with self._connection:
                if keep_only is not None:
                    kept = list(keep_only)
                    self._connection.execute("CREATE TEMP TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY)")
                    self._connection.execute("DELETE FROM kept")
                    self._connection.executemany(
                        "INSERT OR IGNORE INTO kept VALUES (?)", [(k,) for k in kept]
                    )
                    self._connection.execute(
                        "DELETE FROM entries WHERE kind = ? AND key NOT IN (SELECT key FROM kept)", (kind,)
                    )
                self._connection.executemany(
                    "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)",
                    [(kind, key, code, data) for key, data in items],
                )
        except sqlite3.DatabaseError:
            pass

    def close(self) -> None:
        self._connection.close()


def open_cache(cache_dir: Path, check: bool = False) -> CacheDatabase | None:
    """The cache folder's database, or ``None`` when it cannot be opened: the caller then works
    without it (``check``: run SQLite's integrity check on opening)."""
    try:
        return CacheDatabase(cache_dir / CACHE_DATABASE, check)
    except (sqlite3.Error, OSError):
        return None


Value = TypeVar("Value")


class StoredEntries(Mapping[str, Value]):
    """The entries of one kind written by ``code``, as a read-only mapping from key to decoded value: what
    the analysis is given of what earlier builds found. An entry that does not ``decode`` (damaged,
    foreign) is absent, never trusted (iterating lists the stored keys all the same). With ``prefetch``
    every row of the kind is read in one query on first use (the kinds whose build keeps only its own
    rows, read nearly whole), else each key is read when asked for (one large row per model)."""

    def __init__(
        self,
        database: CacheDatabase | None,
        kind: str,
        code: str,
        decode: Callable[[bytes], Value | None],
        prefetch: bool = False,
    ) -> None:
        self._database = database
        self._kind = kind
        self._code = code
        self._decode = decode
        self._prefetch = prefetch
        self._rows: dict[str, bytes] | None = None

    def _all_rows(self) -> dict[str, bytes]:
        if self._rows is None:
            self._rows = self._database.get_kind(self._kind, self._code) if self._database is not None else {}
        return self._rows

    def _row(self, key: str) -> bytes | None:
        if self._prefetch or self._database is None:
            return self._all_rows().get(key)
        return self._database.get(self._kind, key, self._code)

    def __getitem__(self, key: str) -> Value:
        data = self._row(key)
        value = self._decode(data) if data is not None else None
        if value is None:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._all_rows())

    def __len__(self) -> int:
        return len(self._all_rows())
