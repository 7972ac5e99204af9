"""An on-disk JSON cache for benchmark work that is slow to redo: built stand-in test sets and system scores.

Scoring the paper suite takes an hour on a 2-core CPU; a re-run with the same model, test set, limit and seed
reads the scores back instead. Entries are plain JSON (inspectable, no pickle), written atomically so an
interrupted run never leaves a half-written file that a later run would trust. A key is a digest of
everything that can change the entry, so a changed input simply misses the cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
from pathlib import Path
from typing import Any, Optional, Union

from coherence_metric.toolkit import InvalidJson, parse_json

LOGGER = logging.getLogger("coherence_metric.benchmarks")

ENV_VAR = "COHERENCE_METRIC_CACHE"
DEFAULT_CACHE_DIR = Path("~") / ".cache" / "coherence_metric" / "benchmarks"
#: Bumped when the layout of cached entries changes, so old entries are ignored rather than misread.
CACHE_FORMAT = 1


def benchmark_cache_dir(override: Union[str, Path, None] = None) -> Path:
    """Return the cache folder: ``override``, else ``$COHERENCE_METRIC_CACHE``, else ``~/.cache/...``.

    Args:
        override: a folder chosen by the caller (a function argument or a CLI option).

    Returns:
        The folder (not created here).
    """
    if override is not None:
        return Path(override).expanduser()
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    return DEFAULT_CACHE_DIR.expanduser()


def digest(value: Any, length: int = 16) -> str:
    """Return a short sha256 hex digest of a JSON-serialisable value (keys sorted, so dict order never matters).

    Args:
        value: lists, dicts, strings, numbers; tuples are hashed as lists.
        length: hex characters kept.

    Returns:
        The digest.
    """
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "entry"


class JsonCache:
    """JSON entries under ``<root>/<kind>/<name>-<key>.json``; disabled, it reads and writes nothing.

    Args:
        root: the cache folder; None resolves it with ``benchmark_cache_dir``.
        enabled: False turns every read into a miss and every write into a no-op (``--no-cache``).
    """

    def __init__(self, root: Union[str, Path, None] = None, enabled: bool = True) -> None:
        self.root = benchmark_cache_dir(root)
        self.enabled = enabled
        self.hits = 0
        self.misses = 0

    def path(self, kind: str, name: str, key: str) -> Path:
        """Return the file an entry lives in (whether or not it exists)."""
        return self.root / _slug(kind) / f"{_slug(name)}-{key}.json"

    def read(self, kind: str, name: str, key: str) -> Optional[Any]:
        """Return the cached value, or None on a miss; an unreadable entry is a miss and is logged.

        Args:
            kind: the entry family (``test_sets``, ``scores``).
            name: a readable part of the file name (the test set name).
            key: the digest of everything the entry depends on.
        """
        if not self.enabled:
            return None
        path = self.path(kind, name, key)
        try:
            data = parse_json(path.read_bytes(), str(path))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, InvalidJson) as error:
            LOGGER.warning("ignoring unreadable cache entry %s: %s", path, error)
            self.misses += 1
            return None
        if not isinstance(data, dict) or data.get("cache_format") != CACHE_FORMAT:
            self.misses += 1
            return None
        self.hits += 1
        return data.get("value")

    def write(self, kind: str, name: str, key: str, value: Any) -> Optional[Path]:
        """Store a value atomically (temporary file, then rename); a failure to write is logged, not raised.

        Returns:
            The entry's path, or None when disabled or the write failed.
        """
        if not self.enabled:
            return None
        path = self.path(kind, name, key)
        temporary: Optional[str] = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A unique name opened with mode 0666, so the umask decides the permissions as for any new file
            # (mkstemp's 0600 kept a shared cache from the group and from other users' report jobs).
            temporary = str(path.parent / f".tmp-{os.getpid()}-{secrets.token_hex(8)}.json")
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({"cache_format": CACHE_FORMAT, "value": value}, stream, ensure_ascii=False)
            os.replace(temporary, path)
        except OSError as error:
            LOGGER.warning("could not write cache entry %s: %s", path, error)
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            return None
        return path
