"""The data-folder manifest, ``check`` and ``fetch`` (research/data_folder.py), and the missing-data errors.

Real files come from the shared data folder and are copied to tmp_path (skipped when the folder is absent);
``fetch`` runs against an http.server on 127.0.0.1 serving a tmp folder laid out like raw.githubusercontent.com.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import io
import json
import pickle
import shutil
import threading
from pathlib import Path
from typing import Iterator, List

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research import data_folder
from coherence_metric.research.data_dir import ASSEMBLE_COMMAND, ENV_VAR, shared_data_dir

MANIFEST = data_folder.load_manifest()
BY_PATH = {entry["path"]: entry for entry in MANIFEST["files"]}
#: Small real files of the manifest: plain, with spaces in the upstream path, gzip-transformed, and LDC (manual).
SMALL = ("coherence_paradigm/LMvLM_Annotations.pkl",
         "insted/linguistic_probe_data/original_to_negation.txt",
         "corpora/mctest/mc160.dev.ans")
SPACED = "story_cloze/cloze_test_val__winter2018.csv"
GZIPPED = "corpora/gutenberg_tales/pg4018_japanese_fairy_tales.txt.gz"
MANUAL = "discoeval/RST/RST_DEV.pkl"


def sub_manifest(paths, extra_entries=()) -> dict:
    return {**MANIFEST, "files": [BY_PATH[path] for path in paths] + list(extra_entries)}


def write_manifest(manifest: dict, folder: Path) -> Path:
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def copy_real(shared: Path, paths, target: Path) -> None:
    for relative in paths:
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / relative, target / relative)


# --- the manifest itself -------------------------------------------------------------------------------------------

def test_manifest_entries_are_complete_and_honest():
    assert MANIFEST["files"] and len(BY_PATH) == len(MANIFEST["files"])
    for entry in MANIFEST["files"]:
        assert set(entry) >= {"path", "size", "sha256", "group", "fetch"}, entry["path"]
        assert len(entry["sha256"]) == 64 and entry["size"] > 0
        assert entry["group"] in MANIFEST["groups"]
        assert entry["fetch"] in ("url", "manual", "derived")
        if entry["fetch"] == "url":
            for source in entry.get("sources") or [entry["source"]]:
                assert source["url"].startswith(f"{data_folder.GITHUB_RAW}/{source['repo']}/{source['commit']}/")
                assert len(source["commit"]) == 40
                if entry.get("transform") == "tar-gzip":
                    assert len(entry["content_sha256"]) == 64 and source["members"]
                elif "transform" in entry:
                    assert len(source["sha256"]) == 64
            if "sources" in entry:
                assert entry["transform"] in data_folder.BUILDERS
        else:
            assert "url" not in entry.get("source", {}), entry["path"]
            assert MANIFEST["groups"][entry["group"]][entry["fetch"]]  # the instruction
    # the LDC-derived files are never downloadable, and held-out judges are not listed at all
    for entry in MANIFEST["files"]:
        if entry["path"].startswith(("discoeval/PDTB/", "discoeval/RST/", "corpora/nltk_data/treebank.")):
            assert entry["fetch"] == "manual", entry["path"]
        assert "TestData" not in entry["path"] and "duc" not in entry["path"].lower().split("/")[0]
    assert "LDC" in MANIFEST["groups"]["discoeval"]["manual"] and "LDC" in MANIFEST["groups"]["nltk"]["manual"]
    manual = {entry["path"] for entry in MANIFEST["files"] if entry["fetch"] != "url"}
    assert len(manual) == 13 and all(path.startswith(("discoeval/", "corpora/nltk_data/treebank.")) for path in manual)


def test_check_passes_on_the_shared_folder(shared_data, capsys):
    result = data_folder.check_folder(shared_data)
    out = capsys.readouterr().out
    present = sum(1 for entry in MANIFEST["files"] if (shared_data / entry["path"]).is_file())
    assert result.ok == present and not result.bad and not result.extra, out
    assert out.strip().splitlines()[-1].startswith(f"check {shared_data}: {present}/{len(MANIFEST['files'])} ok")


# --- check ---------------------------------------------------------------------------------------------------------

def test_check_reports_missing_tampered_and_extra_files_one_line_each(shared_data, tmp_path, capsys):
    data = tmp_path / "data"
    copy_real(shared_data, SMALL, data)
    manifest_path = write_manifest(sub_manifest(SMALL), tmp_path)
    assert data_folder.main(["check", "--data", str(data), "--manifest", str(manifest_path)]) == 0
    assert capsys.readouterr().out.strip() == f"check {data}: 3/3 ok, 0 missing (0 of them manual or derived), " \
                                             "0 wrong, 0 extra"

    (data / SMALL[0]).unlink()
    tampered = data / SMALL[1]
    tampered.write_bytes(tampered.read_bytes().replace(b"a", b"b", 1))
    (data / "insted" / "notes.txt").write_text("mine", encoding="utf-8")
    (data / "README.md").write_text("curator's notes are ignored", encoding="utf-8")
    assert data_folder.main(["check", "--data", str(data), "--manifest", str(manifest_path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    expected_sha = BY_PATH[SMALL[1]]["sha256"][:12]
    assert lines[0] == f"MISSING {SMALL[0]} (run fetch)"
    assert lines[1].startswith(f"BAD {SMALL[1]}: sha256 ") and f"!= expected {expected_sha}..." in lines[1]
    assert lines[2] == "EXTRA insted/notes.txt: not in the manifest"
    assert lines[3] == f"check {data}: 1/3 ok, 1 missing (0 of them manual or derived), 1 wrong, 1 extra"
    assert len(lines) == 4


def test_check_missing_manual_files_can_be_tolerated(tmp_path, capsys):
    manifest = sub_manifest([MANUAL])
    (tmp_path / "data").mkdir()
    result = data_folder.check_folder(tmp_path / "data", manifest)
    assert capsys.readouterr().out.splitlines()[0] == f"MISSING {MANUAL} (manual: see the manifest's group 'discoeval')"
    assert result.failed() and not result.failed(allow_missing_manual=True)


def test_check_accepts_a_recompressed_file_with_the_same_content(shared_data, tmp_path, capsys):
    data = tmp_path / "data"
    copy_real(shared_data, [GZIPPED], data)
    target = data / GZIPPED
    target.write_bytes(gzip.compress(gzip.decompress(target.read_bytes()), compresslevel=1))
    assert hashlib.sha256(target.read_bytes()).hexdigest() != BY_PATH[GZIPPED]["sha256"]
    assert not data_folder.check_folder(data, sub_manifest([GZIPPED])).failed()
    target.write_bytes(gzip.compress(b"other text"))
    assert data_folder.check_folder(data, sub_manifest([GZIPPED])).failed()
    assert f"BAD {GZIPPED}: sha256" in capsys.readouterr().out


def test_check_of_a_folder_that_does_not_exist(tmp_path, capsys):
    assert data_folder.main(["check", "--data", str(tmp_path / "nowhere")]) == 1
    assert capsys.readouterr().out.splitlines()[0] == f"MISSING {tmp_path / 'nowhere'}: the data folder does not exist"


# --- fetch against a local server ----------------------------------------------------------------------------------

class _Handler(http.server.SimpleHTTPRequestHandler):
    requested: List[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        type(self).requested.append(self.path)
        super().do_GET()

    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture()
def mirror(tmp_path) -> Iterator[tuple]:
    """(folder served, base URL, requested paths): a raw.githubusercontent.com look-alike on 127.0.0.1."""
    root = tmp_path / "mirror"
    root.mkdir()
    handler = type("Handler", (_Handler,), {"requested": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}", handler.requested
    finally:
        server.shutdown()
        server.server_close()


def publish(root: Path, entry: dict, content: bytes) -> Path:
    """Put ``content`` where the mirror serves the entry's upstream file (REPO/COMMIT/PATH)."""
    source = entry["source"]
    path = root / source["repo"] / source["commit"] / source["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def upstream_bytes(shared: Path, entry: dict) -> bytes:
    stored = (shared / entry["path"]).read_bytes()
    return gzip.decompress(stored) if entry.get("transform") == "gzip" else stored


def test_fetch_downloads_verifies_resumes_and_refuses_a_tampered_file(shared_data, mirror, tmp_path, capsys):
    root, base_url, requested = mirror
    paths = [*SMALL, SPACED, GZIPPED]
    manifest = sub_manifest(paths + [MANUAL])
    for path in paths:
        publish(root, BY_PATH[path], upstream_bytes(shared_data, BY_PATH[path]))
    tampered = publish(root, BY_PATH[SMALL[2]], b"not the answers\n")
    data = tmp_path / "data"

    assert data_folder.fetch_folder(data, manifest, base_url=base_url) == 1
    lines = capsys.readouterr().out.splitlines()
    assert f"fetched {SPACED}" in lines and f"fetched {GZIPPED}" in lines
    refusal = [line for line in lines if line.startswith(f"FAILED {SMALL[2]}: ")]
    assert len(refusal) == 1 and "downloaded sha256" in refusal[0] and refusal[0].endswith("not written")
    assert not (data / SMALL[2]).exists() and not list(data.rglob(".*.part-*"))
    assert any(line.startswith("[manual] discoeval: ") for line in lines)
    assert f"  - {MANUAL}  <-  ZeweiChu/DiscoEval@262b253b4955:data/RST/py3/RST_DEV.pkl" in lines
    assert lines[-1] == (f"fetch {data}: 4 downloaded, 0 already verified, 1 failed, 0 not tried, of 5 downloadable; "
                         "1 manual or derived file(s) still to place")
    assert not any("RST" in path or "PDTB" in path or "treebank" in path for path in requested)

    # the mirror is fixed; a second run downloads only what did not verify
    tampered.write_bytes(upstream_bytes(shared_data, BY_PATH[SMALL[2]]))
    requested.clear()
    assert data_folder.fetch_folder(data, manifest, base_url=base_url) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.startswith("fetched")] == [f"fetched {SMALL[2]}"]
    assert len(requested) == 1
    assert lines[-1].startswith(f"fetch {data}: 1 downloaded, 4 already verified, 0 failed")
    check = data_folder.check_folder(data, manifest)
    assert check.ok == 5 and check.missing == [MANUAL] and not check.bad and not check.extra


def test_fetch_gives_up_with_one_line_errors_when_offline(tmp_path, capsys):
    import socket

    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    manifest = sub_manifest(SMALL + (SPACED,))
    status = data_folder.main(["fetch", "--data", str(tmp_path / "data"), "--base-url", f"http://127.0.0.1:{port}",
                               "--timeout", "5", "--manifest", str(write_manifest(manifest, tmp_path))])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert [line.split(":")[0] for line in lines[:3]] == [f"FAILED {path}" for path in SMALL]
    assert all("cannot download http://127.0.0.1" in line for line in lines[:3])
    assert lines[3].startswith("giving up after 3 connection failures in a row (offline?)")
    assert lines[-1].endswith("1 not tried, of 4 downloadable; 0 manual or derived file(s) still to place")


def test_fetch_converts_a_pickle_to_the_manifest_json(mirror, tmp_path, capsys):
    root, base_url, _ = mirror
    content = {"doc": {"src": "Caf\u00e9 text", "sys_summs": {"M8": {"scores": {"coherence": 3.0}}}}}
    raw = pickle.dumps(content, protocol=4)
    stored = json.dumps(content, ensure_ascii=False).encode("utf-8")
    source = {"repo": "someone/data", "commit": "0" * 40, "path": "data.pkl", "sha256": hashlib.sha256(raw).hexdigest()}
    source["url"] = f"{data_folder.GITHUB_RAW}/someone/data/{'0' * 40}/data.pkl"
    entry = {"path": "summeval/x.json", "size": len(stored), "sha256": hashlib.sha256(stored).hexdigest(),
             "group": "summeval_bartscore", "fetch": "url", "transform": "json-from-pickle", "source": source}
    publish(root, entry, raw)
    assert data_folder.fetch_folder(tmp_path / "data", {**MANIFEST, "files": [entry]}, base_url=base_url) == 0
    assert (tmp_path / "data" / "summeval" / "x.json").read_bytes() == stored
    assert "fetched summeval/x.json" in capsys.readouterr().out


def test_fetch_packs_a_folder_as_tar_and_verifies_its_content(mirror, tmp_path, capsys):
    root, base_url, requested = mirror
    files = {"README.TXT": b"readme", "tech/001.txt": b"one", "tech/002.txt": b"two", "tech/003.txt": b"three"}
    lines = sorted((f"top/{name}", f"{hashlib.sha256(content).hexdigest()}  top/{name}\n")
                   for name, content in files.items())
    source = {"repo": "someone/news", "commit": "1" * 40, "path": "top/",
              "members": ["README.TXT", "tech/001..003.txt"]}
    source["url"] = f"{data_folder.GITHUB_RAW}/someone/news/{'1' * 40}/top/"
    entry = {"path": "corpora/news/top.tar.gz", "size": 1, "sha256": "0" * 64, "group": "bbc", "fetch": "url",
             "transform": "tar-gzip", "source": source,
             "content_sha256": hashlib.sha256("".join(line for _, line in lines).encode()).hexdigest()}
    for name, content in files.items():
        publish(root, {"source": {**source, "path": f"top/{name}"}}, content)
    manifest = {**MANIFEST, "files": [entry]}
    assert data_folder.fetch_folder(tmp_path / "data", manifest, base_url=base_url) == 0
    assert len(requested) == 4 and "fetched corpora/news/top.tar.gz" in capsys.readouterr().out
    assert not data_folder.check_folder(tmp_path / "data", manifest).failed()  # bytes differ, content matches
    publish(root, {"source": {**source, "path": "top/tech/002.txt"}}, b"TWO")
    (tmp_path / "data" / entry["path"]).unlink()
    assert data_folder.fetch_folder(tmp_path / "data", manifest, base_url=base_url) == 1
    assert "do not match the manifest's content_sha256; not written" in capsys.readouterr().out
    assert not (tmp_path / "data" / entry["path"]).exists()


def test_skip_unread_leaves_out_files_no_code_reads(tmp_path, capsys):
    unread = next(entry["path"] for entry in MANIFEST["files"] if entry.get("unread"))
    read = SMALL[0]
    result = data_folder.check_folder(tmp_path, sub_manifest([unread, read]), skip_unread=True)
    assert result.missing == [read]
    assert f"MISSING {read} (run fetch)" in capsys.readouterr().out


def test_fetch_builds_a_human_dev_file_from_its_sources(mirror, tmp_path, capsys):
    root, base_url, _ = mirror
    csv_bytes = b'id,data,model,score,text\n7,CNNDM,PG,50.5,"a b .\nc d ."\n9,CNNDM,BERT,12.0,"e f ."\n'
    expected = ('{"id": 0, "article_id": "7", "corpus": "CNNDM", "system": "PG", "sentences": ["a b .", "c d ."], '
                '"ratings": {"intersentential_coherence": 50.5}}\n'
                '{"id": 1, "article_id": "9", "corpus": "CNNDM", "system": "BERT", "sentences": ["e f ."], '
                '"ratings": {"intersentential_coherence": 12.0}}\n').encode()
    source = {"repo": "someone/ffci", "commit": "2" * 40, "path": "Data/IC raw.csv",
              "sha256": hashlib.sha256(csv_bytes).hexdigest()}
    source["url"] = f"{data_folder.GITHUB_RAW}/someone/ffci/{'2' * 40}/Data/IC%20raw.csv"
    entry = {"path": "human_dev/ffci_coherence.jsonl", "size": len(expected), "group": "human_dev", "fetch": "url",
             "sha256": hashlib.sha256(expected).hexdigest(), "transform": "build-ffci", "sources": [source]}
    publish(root, {"source": source}, csv_bytes)
    assert data_folder.fetch_folder(tmp_path / "data", {**MANIFEST, "files": [entry]}, base_url=base_url) == 0
    assert (tmp_path / "data" / entry["path"]).read_bytes() == expected
    publish(root, {"source": source}, csv_bytes.replace(b"50.5", b"55.5"))  # upstream changed: refused
    (tmp_path / "data" / entry["path"]).unlink()
    assert data_folder.fetch_folder(tmp_path / "data", {**MANIFEST, "files": [entry]}, base_url=base_url) == 1
    assert "downloaded sha256" in capsys.readouterr().out and not (tmp_path / "data" / entry["path"]).exists()


def test_tar_content_digest_ignores_archive_bytes():
    def archive(mtime: int) -> bytes:
        import tarfile

        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for name in ("bbc/b.txt", "bbc/a.txt"):
                info = tarfile.TarInfo(name)
                info.size, info.mtime = 3, mtime
                tar.addfile(info, io.BytesIO(b"abc"))
        return buffer.getvalue()

    assert archive(1) != archive(2)
    assert data_folder.tar_content_sha256(archive(1)) == data_folder.tar_content_sha256(archive(2))


# --- the benchmarks' error when data is missing --------------------------------------------------------------------

def test_missing_data_folder_error_names_the_variable_and_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(InputError) as caught:
        shared_data_dir()
    message = str(caught.value)
    assert str(tmp_path / "nowhere") in message and ENV_VAR in message and ASSEMBLE_COMMAND in message
    assert ASSEMBLE_COMMAND == "python -m coherence_metric.research.data_folder fetch --data DIR"


def test_missing_files_in_a_partial_folder_name_the_command(tmp_path):
    from coherence_metric.benchmarks.discoeval.loaders import discoeval_data_dir
    from coherence_metric.research.corpora import CORPORA
    from coherence_metric.research.datasets import load_test_set

    for load in (lambda: load_test_set("SUMMEVAL", data_dir=tmp_path),
                 lambda: load_test_set("LMVLM", data_dir=tmp_path),
                 lambda: next(iter(CORPORA["reuters"].documents(tmp_path))),
                 lambda: discoeval_data_dir(tmp_path / "discoeval")):
        with pytest.raises(InputError) as caught:
            load()
        assert ASSEMBLE_COMMAND in str(caught.value) and ENV_VAR in str(caught.value)
