"""Benchmark cache entries get the permissions the umask gives any new file: mkstemp made them
0600, so a cache shared by a group (or read by another user's report job) could not be read."""

from __future__ import annotations

import os
import stat

import pytest

from coherence_metric.research.cache import JsonCache


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_cache_entry_follows_the_umask(tmp_path, umask, expected):
    previous = os.umask(umask)
    try:
        path = JsonCache(tmp_path).write("scores", "summeval", "abc123", {"scores": [1.0, 2.0]})
    finally:
        os.umask(previous)
    assert path is not None and stat.S_IMODE(path.stat().st_mode) == expected
    assert JsonCache(tmp_path).read("scores", "summeval", "abc123") == {"scores": [1.0, 2.0]}
    assert [entry.name for entry in path.parent.iterdir()] == [path.name]  # no temporary file left
