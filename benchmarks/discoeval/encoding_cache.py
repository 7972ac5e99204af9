"""On-disk cache of encodings per (encoder signature, task, split), so classifier changes never re-encode.

Layout: ``<cache dir>/<encoder slug>-<signature hash>/<task>/<split>-<n>-<texts hash>.npy`` with a
``signature.txt`` beside the task folders. The texts hash makes a ``limit`` subset and the full split distinct
entries; writes go through a temporary file and ``os.replace`` so an interrupted run leaves no torn file.
Encodings of LDC-derived tasks (PDTB, RST-DT) are derived data: the cache lives outside the repository by default
and must never be shipped.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Union

import numpy as np

from coherence_metric.research.encoders import SentenceEncoder

logger = logging.getLogger("coherence_metric.benchmarks")

CACHE_ENV_VAR = "COHERENCE_METRIC_DISCOEVAL_CACHE"


def default_cache_dir() -> Path:
    """Return ``$COHERENCE_METRIC_DISCOEVAL_CACHE`` if set, else ``~/.cache/coherence_metric/discoeval``."""
    configured = os.environ.get(CACHE_ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "coherence_metric" / "discoeval"


@dataclass
class CacheStats:
    """Counts of (task, split) encodings served from disk and computed, reported with every run."""

    hits: int = 0
    misses: int = 0


class EncodingCache:
    """Encodings of unique texts per (encoder, task, split), stored as float32 ``.npy`` files.

    Args:
        root: cache folder (created on first write); None means :func:`default_cache_dir`.
        enabled: False turns the cache off (everything is encoded, nothing written).
    """

    def __init__(self, root: Union[str, Path, None] = None, enabled: bool = True) -> None:
        self.root = Path(root).expanduser() if root is not None else default_cache_dir()
        self.enabled = enabled
        self.stats = CacheStats()

    def encodings(self, encoder: SentenceEncoder, task_name: str, split: str, texts: List[str]) -> np.ndarray:
        """Return the encodings of ``texts`` (row i for text i), from disk when this exact list was seen before.

        Args:
            encoder: the encoder; its ``signature`` is the cache key.
            task_name: e.g. ``SP/wiki`` (used as a folder).
            split: ``train``, ``valid`` or ``test``.
            texts: the unique texts of the split, in a deterministic order.

        Returns:
            Float32 array of shape ``(len(texts), dim)``.
        """
        path = self.path_for(encoder.signature, task_name, split, texts)
        if self.enabled and path.is_file():
            array = np.load(path, allow_pickle=False)
            if array.shape[0] == len(texts):
                self.stats.hits += 1
                logger.info("%s %s: %d encodings from cache", task_name, split, len(texts))
                return array
            logger.warning("ignoring cache file %s with %d rows for %d texts", path, array.shape[0], len(texts))
        self.stats.misses += 1
        logger.info("%s %s: encoding %d texts with %s", task_name, split, len(texts), encoder.name)
        array = np.ascontiguousarray(encoder.encode(list(texts)), dtype=np.float32)
        if array.ndim != 2 or array.shape[0] != len(texts):
            raise ValueError(f"encoder {encoder.name} returned shape {array.shape} for {len(texts)} texts")
        if self.enabled:
            self._write(path, array, encoder.signature)
        return array

    def encoder_dir(self, signature: str) -> Path:
        """Folder holding every encoding made with ``signature``."""
        digest = hashlib.sha256(signature.encode("utf-8")).hexdigest()[:16]
        head = signature.split("|", 1)[0]
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", head.rsplit("/", 1)[-1])[:60].strip("_") or "encoder"
        return self.root / f"{slug}-{digest}"

    def path_for(self, signature: str, task_name: str, split: str, texts: List[str]) -> Path:
        """Cache file of ``texts`` of ``task_name``/``split`` under ``signature``."""
        digest = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]
        task_folder = re.sub(r"[^A-Za-z0-9._-]+", "_", task_name)
        return self.encoder_dir(signature) / task_folder / f"{split}-{len(texts)}-{digest}.npy"

    def _write(self, path: Path, array: np.ndarray, signature: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        signature_file = self.encoder_dir(signature) / "signature.txt"
        if not signature_file.exists():
            signature_file.write_text(signature + "\n", encoding="utf-8")
        # A per-process temporary name (created with the usual umask, unlike mkstemp's 0600) and an atomic rename.
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with temporary.open("wb") as stream:
                np.save(stream, array, allow_pickle=False)
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


def unique_texts(units: List[str]) -> List[str]:
    """Return the distinct texts of ``units`` in first-seen order (deterministic, so cache keys are stable)."""
    return list(dict.fromkeys(units))
