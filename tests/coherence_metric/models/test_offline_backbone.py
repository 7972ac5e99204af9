"""Offline means no socket, and the backbone that loads is the one that was hashed.

``--offline`` and ``local_files_only=True`` are checked against a real HTTP server on 127.0.0.1 set as
``HF_ENDPOINT`` that counts every request, in a fresh process (huggingface_hub reads the endpoint when it is
imported), with an empty cache: no request may reach it, and the one-line error says why the store copy was not
used and how to fetch it. The store copy is then checked for a file swapped between its hash and its load, with the
tiny parts recipe of :mod:`.test_backbone_parts`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, List

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.models import checkpoint_config
from coherence_metric.models.backbone_parts import fetch_backbone

from ...conftest import REPO_DIR
from .test_backbone_parts import REPO_ID, TEXTS, delta_over_repo_id, model_folder, recipe, store  # noqa: F401

ACCURATE_BACKBONE = "sentence-transformers/all-mpnet-base-v2"
FETCH = f"coherence-metric backbone fetch {ACCURATE_BACKBONE}"


class _CountingServer:
    """An HTTP server in a thread that answers every request 404 and remembers its path."""

    def __init__(self) -> None:
        self.requests: List[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                seen.append(f"{self.command} {self.path}")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_HEAD = do_POST = _answer

            def log_message(self, *args: object) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hub(tmp_path) -> Iterator[_CountingServer]:
    server = _CountingServer()
    yield server
    server.close()


def _environment(tmp_path: Path, hub: _CountingServer) -> dict:
    """An empty package cache and HF home, the counting server as the Hub, and nothing else offline."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_CACHE", "HF_DATASETS_OFFLINE")}
    env.update({"COHERENCE_METRIC_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path / "hf"),
                "HF_ENDPOINT": hub.url, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    return env


def _tamper_store(tmp_path: Path) -> None:
    """A store copy of the accurate tier's backbone whose config.json is not the pinned one."""
    folder = tmp_path / "cache" / "backbones" / ACCURATE_BACKBONE.replace("/", "--")
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "mpnet", "hidden_act": "relu"}), encoding="utf-8")


def _run(args: List[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=REPO_DIR,
                          timeout=300)


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.slow  # a subprocess that imports torch per case: 3-4 s each on 2 cores
@pytest.mark.parametrize("tampered, reason", [(False, "(not fetched)"),
                                              (True, "(config.json differs from its pinned sha256")])
def test_offline_cli_opens_no_connection_and_says_why_the_store_copy_is_not_used(tmp_path, hub, tampered, reason):
    if tampered:
        _tamper_store(tmp_path)
    text = tmp_path / "text.txt"
    text.write_text(TEXTS[0] + "\n", encoding="utf-8")
    done = _run(["-m", "coherence_metric.cli", "score", "--model", "accurate", "--offline", str(text)],
                _environment(tmp_path, hub))
    assert hub.requests == []
    assert done.returncode == 2, done.stderr
    line = _one_line(done.stderr)
    assert "backbone store" in line and reason in line and FETCH in line, line
    assert "offline" in line and "could not reach" not in line, line


@pytest.mark.slow  # a subprocess that imports torch per case
@pytest.mark.parametrize("tampered", [False, True])
def test_local_files_only_in_python_opens_no_connection(tmp_path, hub, tampered):
    if tampered:
        _tamper_store(tmp_path)
    code = ("from coherence_metric import CoherenceMetricError, score\n"
            "try:\n"
            f"    score([{TEXTS[0]!r}], model='accurate', local_files_only=True)\n"
            "except CoherenceMetricError as error:\n"
            "    print(error)\n")
    done = _run(["-c", code], _environment(tmp_path, hub))
    assert hub.requests == []
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert "\n" not in message and "backbone store" in message and FETCH in message, message
    assert ("config.json differs" if tampered else "not fetched") in message, message


# --------------------------------------------------------------------------- a file swapped after its hash


@pytest.fixture
def delta_over_store(recipe, store, model_folder, tmp_path):  # noqa: F811 (fixtures)
    """A delta checkpoint over ``tiny-org/tiny-bert``, whose backbone is in the store, and its scores."""
    folder, expected = delta_over_repo_id(model_folder, tmp_path / "delta")
    stored = fetch_backbone(recipe[0], from_folder=recipe[1])
    return folder, stored, expected


def test_a_config_swapped_into_the_store_after_its_hash_is_never_loaded(delta_over_store, monkeypatch, tmp_path):
    """The swap happens right after config.json's bytes are hashed: the load must use the bytes hashed (same scores)
    or refuse, never score with the swapped config (``hidden_act: relu``)."""
    checkpoint, stored, expected = delta_over_store
    edited = json.loads((stored / "config.json").read_text(encoding="utf-8"))
    edited["hidden_act"] = "relu"
    swapped: List[bool] = []
    real = checkpoint_config.hash_and_copy

    def hash_then_swap(path: Path, target=None) -> str:
        digest = real(path, target)
        if Path(path) == stored / "config.json" and not swapped:
            replacement = tmp_path / "config.json"
            replacement.write_text(json.dumps(edited), encoding="utf-8")
            os.replace(replacement, stored / "config.json")  # moved into the store
            swapped.append(True)
        return digest

    monkeypatch.setattr(checkpoint_config, "hash_and_copy", hash_then_swap)
    monkeypatch.setattr("coherence_metric.models.backbones.hash_and_copy", hash_then_swap, raising=False)
    scores = CoherenceScorer(str(checkpoint)).score(TEXTS).scores
    assert swapped, "the store's config.json was never hashed"
    assert scores == pytest.approx(expected, abs=1e-6)
    with pytest.raises(Exception, match="config.json differs from its pinned sha256"):
        CoherenceScorer(str(checkpoint))  # the next load sees the swapped file and refuses it
