"""Assemble and verify the benchmark data folder (``COHERENCE_METRIC_DATA``) from public sources.

``research/data_manifest.json`` lists every file of the data folder the benchmarks and training read from: its
path, size, sha256 and public source (repository, commit, path, raw URL, and the ``transform`` that turns the
download into the stored file: gzip, xz, pickle to JSON, a tar of a folder, a human_dev build), or why it cannot be
downloaded (LDC-derived: ``manual``; built by a step this script cannot run: ``derived``). Two commands::

    python -m coherence_metric.research.data_folder fetch --data DIR   # download what is public, print the rest
    python -m coherence_metric.research.data_folder check --data DIR   # one line per problem, then a summary

``fetch`` writes each file atomically after checking its sha256, skips files that already verify (so an interrupted
run resumes), and never downloads the LDC-derived files. ``check`` reports missing files, files whose bytes or
content do not match, and files the manifest does not know; it exits 1 when there is any. Only the standard library
is used (urllib). docs/benchmarks.md, "Getting the data", is the walk-through.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import socket
import sys
import tarfile
import urllib.error
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, TextIO
from urllib.parse import quote

from coherence_metric.research.data_dir import ENV_VAR, find_shared_data_dir
from coherence_metric.research.pickles import loads_restricted
from coherence_metric.toolkit import sha256_of_file

MANIFEST_PATH = Path(__file__).resolve().parent / "data_manifest.json"
#: The URL prefix of the manifest's raw files; ``--base-url`` swaps it for a mirror laid out as ``REPO/COMMIT/PATH``.
GITHUB_RAW = "https://raw.githubusercontent.com"
CHUNK = 1 << 20
#: Consecutive connection failures (not HTTP errors) after which ``fetch`` stops: the network is unreachable.
MAX_CONNECTION_FAILURES = 3


class FetchError(Exception):
    """A download that failed or did not verify: the message is one line."""


class ConnectionFetchError(FetchError):
    """A download that failed before any HTTP answer (no network, DNS, refused, timeout)."""


def load_manifest(path: Optional[Path] = None) -> dict:
    """Read the manifest (default: the one shipped beside this module)."""
    with open(path or MANIFEST_PATH, encoding="utf-8") as handle:
        return json.load(handle)


def tar_content_sha256(data: bytes) -> str:
    """sha256 over the sorted ``"<sha256 of member>  <member name>\\n"`` lines of a .tar.gz's regular files."""
    lines = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                lines.append((member.name, f"{hashlib.sha256(handle.read()).hexdigest()}  {member.name}\n"))
    return hashlib.sha256("".join(line for _, line in sorted(lines)).encode("utf-8")).hexdigest()


def _content_matches(entry: dict, path: Path) -> bool:
    """Whether a file whose bytes differ from the reference copy still holds the same content (re-compressed)."""
    transform = entry.get("transform")
    try:
        if transform in ("gzip", "xz"):
            opener = gzip.open if transform == "gzip" else lzma.open
            digest = hashlib.sha256()
            with opener(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(CHUNK), b""):
                    digest.update(chunk)
            return digest.hexdigest() == entry["source"]["sha256"]
        if transform == "tar-gzip":
            return tar_content_sha256(path.read_bytes()) == entry["content_sha256"]
    except (OSError, EOFError, lzma.LZMAError, tarfile.TarError, zlib.error):
        return False
    return False


def verify_file(entry: dict, path: Path) -> Optional[str]:
    """Return None when ``path`` holds the entry's file, else a short reason (``missing``, ``sha256 ...``)."""
    if not path.is_file():
        return "missing"
    if path.stat().st_size == entry["size"] and sha256_of_file(path) == entry["sha256"]:
        return None
    if _content_matches(entry, path):
        return None
    actual, size = sha256_of_file(path), path.stat().st_size
    return f"sha256 {actual[:12]}... != expected {entry['sha256'][:12]}... ({size} bytes, expected {entry['size']})"


def _selected(entries: Sequence[dict], only: Sequence[str], skip_unread: bool = False) -> List[dict]:
    if skip_unread:
        entries = [entry for entry in entries if not entry.get("unread")]
    if not only:
        return list(entries)
    prefixes = [prefix.strip("/") for prefix in only]
    return [entry for entry in entries
            if any(entry["path"] == prefix or entry["path"].startswith(prefix + "/") for prefix in prefixes)]


def _ignored(relative: str, patterns: Sequence[str]) -> bool:
    depth = relative.count("/")
    return any(fnmatch.fnmatchcase(relative, pattern) and depth == pattern.count("/") for pattern in patterns)


@dataclass
class CheckResult:
    """What ``check`` found: one line per problem, and the counts for the summary."""

    ok: int = 0
    missing: List[str] = field(default_factory=list)
    bad: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    #: missing files that ``fetch`` cannot download (manual / derived): they fail the check unless tolerated.
    missing_not_fetchable: List[str] = field(default_factory=list)

    def failed(self, allow_missing_manual: bool = False) -> bool:
        missing = len(self.missing) - (len(self.missing_not_fetchable) if allow_missing_manual else 0)
        return bool(missing or self.bad or self.extra)


def check_folder(data: Path, manifest: Optional[dict] = None, only: Sequence[str] = (),
                 out: Optional[TextIO] = None, allow_missing_manual: bool = False,
                 skip_unread: bool = False) -> CheckResult:
    """Verify ``data`` against the manifest, printing one line per missing, wrong or extra file and a summary.

    Args:
        data: the data folder.
        manifest: the parsed manifest (default: the shipped one).
        only: restrict to these path prefixes (``coherence_paradigm``, ``corpora/mctest``); extras are looked for
            under them only.
        out: where the lines go (default: standard output).
        allow_missing_manual: missing ``manual``/``derived`` files are listed but do not fail the check.
        skip_unread: leave out the files no code reads (``"unread": true``); present ones are not called extra.

    Returns:
        The counts and lines (``failed()`` says whether the exit status is 1).
    """
    manifest = manifest or load_manifest()
    entries = _selected(manifest["files"], only, skip_unread)
    out = out or sys.stdout
    result = CheckResult()
    if not data.is_dir():
        line = f"MISSING {data}: the data folder does not exist"
        print(line, file=out)
        result.missing.extend(entry["path"] for entry in entries)
        result.missing_not_fetchable.extend(entry["path"] for entry in entries if entry["fetch"] != "url")
        _summary(data, result, len(entries), out)
        return result
    for entry in entries:
        reason = verify_file(entry, data / entry["path"])
        if reason is None:
            result.ok += 1
        elif reason == "missing":
            result.missing.append(entry["path"])
            how = "run fetch"
            if entry["fetch"] != "url":
                how = f"{entry['fetch']}: see the manifest's group {entry['group']!r}"
                result.missing_not_fetchable.append(entry["path"])
            print(f"MISSING {entry['path']} ({how})", file=out)
        else:
            result.bad.append(entry["path"])
            print(f"BAD {entry['path']}: {reason}", file=out)
    known = {entry["path"] for entry in manifest["files"]}
    roots = [data / prefix for prefix in only] if only else [data]
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_dir():
                continue
            relative = path.relative_to(data).as_posix()
            if relative not in known and not _ignored(relative, manifest.get("ignore", ())):
                result.extra.append(relative)
                print(f"EXTRA {relative}: not in the manifest", file=out)
    _summary(data, result, len(entries), out)
    return result


def _summary(data: Path, result: CheckResult, total: int, out: TextIO) -> None:
    print(f"check {data}: {result.ok}/{total} ok, {len(result.missing)} missing "
          f"({len(result.missing_not_fetchable)} of them manual or derived), {len(result.bad)} wrong, "
          f"{len(result.extra)} extra", file=out)


def source_url(entry: dict, base_url: str = GITHUB_RAW) -> str:
    """The entry's (or a source's) raw URL, the GitHub raw prefix replaced by ``base_url`` (a mirror laid out alike)."""
    url = entry["source"]["url"] if "source" in entry else entry["url"]
    if base_url.rstrip("/") != GITHUB_RAW and url.startswith(GITHUB_RAW + "/"):
        return base_url.rstrip("/") + url[len(GITHUB_RAW):]
    return url


def _download(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "coherence-metric-data-folder"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - https or a mirror the user named
        return response.read()


def _transform(entry: dict, raw: bytes) -> bytes:
    """Turn the verified upstream bytes into the bytes stored in the data folder."""
    transform = entry.get("transform")
    if transform is None:
        return raw
    if transform == "gzip":
        return gzip.compress(raw, compresslevel=9, mtime=0)
    if transform == "xz":
        return lzma.compress(raw, preset=6)
    if transform == "json-from-pickle":

        return json.dumps(loads_restricted(raw), ensure_ascii=False).encode("utf-8")
    raise FetchError(f"unknown transform {transform!r}")


def _target(data: Path, entry: dict) -> Path:
    """Where the entry goes inside ``data``; a manifest path that would leave the folder is refused."""
    relative = Path(entry["path"])
    if relative.is_absolute() or ".." in relative.parts:
        raise FetchError(f"refusing manifest path {entry['path']!r}: it must stay inside the data folder")
    return data / relative


def _write_atomically(data: bytes, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.part-{os.getpid()}"
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def _get(url: str, timeout: float, download: Callable[[str, float], bytes]) -> bytes:
    try:
        return download(url, timeout)
    except urllib.error.HTTPError as error:
        raise FetchError(f"HTTP {error.code} {error.reason} for {url}") from error
    except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ConnectionFetchError(f"cannot download {url}: {reason}") from error


def expand_members(members: Sequence[str]) -> List[str]:
    """``["README.TXT", "tech/001..401.txt"]`` -> the member paths, numbered ranges zero-padded as written."""
    names: List[str] = []
    for member in members:
        match = _RANGE.fullmatch(member)
        if match is None:
            names.append(member)
            continue
        prefix, first, last, suffix = match.groups()
        names.extend(f"{prefix}{number:0{len(first)}d}{suffix}" for number in range(int(first), int(last) + 1))
    return names


_RANGE = re.compile(r"(.*?)(\d+)\.\.(\d+)(\.[^/]*)")


#: HANNA's generator of story ``story_id`` is ``HANNA_SYSTEMS[story_id // 96]`` (96 prompts, in HANNA's order).
HANNA_SYSTEMS = ("Human", "BertGeneration", "CTRL", "GPT", "GPT-2 (tag)", "GPT-2", "RoBERTa", "XLNet", "Fusion", "HINT",
                 "TD-VAE")
DELTASCORE_ASPECTS = ("coherence", "fluency", "relatedness", "logicality", "interestingness")


def _json_lines(rows: Sequence[dict]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def build_hanna(sources: Sequence[dict], raws: Sequence[bytes]) -> bytes:
    """human_dev/hanna.jsonl from HPSS's HANNA valid + test files: one line per story, in story_id order."""
    stories = sorted((story for raw in raws for story in json.loads(raw.decode("utf-8"))), key=lambda s: s["story_id"])
    return _json_lines([{"id": story["story_id"], "prompt_id": story["story_id"] % 96, "prompt": story["prompt"],
                         "system": HANNA_SYSTEMS[story["story_id"] // 96], "text": story["story"],
                         "ratings": story["scores"]} for story in stories])


def build_deltascore(sources: Sequence[dict], raws: Sequence[bytes]) -> bytes:
    """human_dev/deltascore.jsonl from DeltaScore's ``data/<rater pool>/<corpus>.jsonl`` files, in sources order."""
    rows = []
    for source, raw in zip(sources, raws):
        pool, corpus = source["path"].split("/")[-2], source["path"].split("/")[-1].rsplit(".", 1)[0]
        lines = [line for line in raw.decode("utf-8").split("\n") if line.strip()]
        for number, line in enumerate(lines):
            record = json.loads(line)
            rows.append({"id": f"{pool}/{corpus}/{number}", "rater_pool": pool, "corpus": corpus,
                         "prompt": record["title"], "system": record["model"], "text": record["story"],
                         "ratings": {aspect: record[aspect] for aspect in DELTASCORE_ASPECTS}})
    return _json_lines(rows)


def build_ffci(sources: Sequence[dict], raws: Sequence[bytes]) -> bytes:
    """human_dev/ffci_coherence.jsonl from FFCI's inter-sentential coherence CSV: one summary sentence per text line."""
    reader = csv.DictReader(io.StringIO(raws[0].decode("utf-8"), newline=""))
    return _json_lines([{"id": number, "article_id": row["id"], "corpus": row["data"], "system": row["model"],
                         "sentences": row["text"].split("\n"),
                         "ratings": {"intersentential_coherence": float(row["score"])}}
                        for number, row in enumerate(reader)])


#: Transforms that build one file from several downloaded sources (entry["sources"]).
BUILDERS: Dict[str, Callable[[Sequence[dict], Sequence[bytes]], bytes]] = {
    "build-hanna": build_hanna, "build-deltascore": build_deltascore, "build-ffci": build_ffci}


def _fetch_tar(entry: dict, base_url: str, timeout: float, download: Callable[[str, float], bytes]) -> bytes:
    """Download every member of an upstream folder and pack them as ``<folder>/<member>`` in a .tar.gz."""
    folder_url = source_url(entry, base_url)
    top = entry["source"]["path"].strip("/").split("/")[-1]
    names = expand_members(entry["source"]["members"])
    with ThreadPoolExecutor(max_workers=8) as pool:
        contents = list(pool.map(lambda name: _get(folder_url + quote(name), timeout, download), names))
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for name, content in sorted(zip(names, contents)):
                info = tarfile.TarInfo(f"{top}/{name}")
                info.size, info.mode = len(content), 0o644
                archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def fetch_file(entry: dict, data: Path, base_url: str = GITHUB_RAW, timeout: float = 60.0,
               download: Callable[[str, float], bytes] = _download) -> None:
    """Download one ``fetch: url`` entry into ``data``, verify it and write it atomically.

    Raises:
        FetchError: the download failed, or its sha256 (or the transformed file's) is not the manifest's.
    """
    if "sources" in entry:
        raws = []
        for source in entry["sources"]:
            url = source_url(source, base_url)
            raw = _get(url, timeout, download)
            actual = hashlib.sha256(raw).hexdigest()
            if actual != source["sha256"]:
                expected = source["sha256"]
                raise FetchError(f"downloaded sha256 {actual[:12]}... != expected {expected[:12]}... from {url}; "
                                 "not written")
            raws.append(raw)
        try:
            stored = BUILDERS[entry["transform"]](entry["sources"], raws)
        except Exception as error:  # malformed upstream rows: the sha256 checks above make this unlikely
            raise FetchError(f"cannot build {entry['path']} ({entry.get('transform')}): {type(error).__name__}: "
                             f"{error}") from error
        if hashlib.sha256(stored).hexdigest() != entry["sha256"]:
            raise FetchError(f"the built file's sha256 is not the manifest's ({entry.get('transform')}); not written")
        _write_atomically(stored, _target(data, entry))
        return
    url = source_url(entry, base_url)
    if entry.get("transform") == "tar-gzip":
        stored = _fetch_tar(entry, base_url, timeout, download)
        if tar_content_sha256(stored) != entry["content_sha256"]:
            raise FetchError(f"the files under {url} do not match the manifest's content_sha256; not written")
        _write_atomically(stored, _target(data, entry))
        return
    raw = _get(url, timeout, download)
    expected = entry["source"].get("sha256", entry["sha256"])
    actual = hashlib.sha256(raw).hexdigest()
    if actual != expected:
        raise FetchError(f"downloaded sha256 {actual[:12]}... != expected {expected[:12]}... from {url}; not written")
    try:
        stored = _transform(entry, raw)
    except FetchError:
        raise
    except Exception as error:  # a garbled pickle can fail in many ways; the sha256 above makes this unlikely
        raise FetchError(f"cannot convert {url} ({entry.get('transform')}): {type(error).__name__}: {error}") from error
    if entry.get("transform") == "json-from-pickle" and hashlib.sha256(stored).hexdigest() != entry["sha256"]:
        raise FetchError(f"converted file's sha256 is not the manifest's ({url}); not written")
    _write_atomically(stored, _target(data, entry))


def manual_steps(manifest: dict, entries: Sequence[dict]) -> List[str]:
    """One paragraph per group of ``manual``/``derived`` entries in ``entries``: what they are and how to get them."""
    lines: List[str] = []
    groups: Dict[str, List[dict]] = {}
    for entry in entries:
        groups.setdefault(entry["group"], []).append(entry)
    for name, members in groups.items():
        group = manifest["groups"][name]
        kind = members[0]["fetch"]
        lines.append(f"[{kind}] {name}: {group['what']}")
        lines.append("  " + group.get(kind, "see the manifest"))
        for entry in members:
            source = entry.get("source") or {}
            where = (f"{source['repo']}@{source['commit'][:12]}:{source['path']}" if source.get("repo")
                     else "; ".join(f"{item['repo']}@{item['commit'][:12]}:{item['path']}"
                                    for item in entry.get("derived_from", ())))
            lines.append(f"  - {entry['path']}  <-  {where}")
    return lines


def fetch_folder(data: Path, manifest: Optional[dict] = None, only: Sequence[str] = (), base_url: str = GITHUB_RAW,
                 timeout: float = 60.0, out: Optional[TextIO] = None,
                 download: Callable[[str, float], bytes] = _download, skip_unread: bool = False) -> int:
    """Download every ``fetch: url`` file that does not verify yet, then print the manual steps for the rest.

    Args:
        data: the data folder to fill (created when missing).
        manifest: the parsed manifest (default: the shipped one).
        only: restrict to these path prefixes.
        base_url: replaces ``https://raw.githubusercontent.com`` in every URL (a mirror laid out as REPO/COMMIT/PATH).
        timeout: seconds per download.
        out: where the lines go (default: standard output).
        download: ``(url, timeout) -> bytes`` (tests inject failures).
        skip_unread: do not download the files no code reads (``"unread": true``: licences, indexes, sibling sets).

    Returns:
        The exit status: 0 when every downloadable file verifies, 1 otherwise.
    """
    manifest = manifest or load_manifest()
    entries = _selected(manifest["files"], only, skip_unread)
    out = out or sys.stdout
    data.mkdir(parents=True, exist_ok=True)
    fetched = skipped = failed = 0
    connection_failures = 0
    for entry in (entry for entry in entries if entry["fetch"] == "url"):
        target = data / entry["path"]
        if verify_file(entry, target) is None:
            skipped += 1
            continue
        try:
            fetch_file(entry, data, base_url, timeout, download)
        except ConnectionFetchError as error:
            failed += 1
            connection_failures += 1
            print(f"FAILED {entry['path']}: {error}", file=out)
            if connection_failures >= MAX_CONNECTION_FAILURES:
                print(f"giving up after {connection_failures} connection failures in a row (offline?); files already "
                      "verified are kept, rerun the same command to resume", file=out)
                break
            continue
        except FetchError as error:
            failed += 1
            connection_failures = 0
            print(f"FAILED {entry['path']}: {error}", file=out)
            continue
        connection_failures = 0
        fetched += 1
        print(f"fetched {entry['path']}", file=out)
    not_fetchable = [entry for entry in entries
                     if entry["fetch"] != "url" and verify_file(entry, data / entry["path"]) is not None]
    if not_fetchable:
        print(f"{len(not_fetchable)} file(s) cannot be downloaded by this script; place them by hand:", file=out)
        for line in manual_steps(manifest, not_fetchable):
            print(line, file=out)
    downloadable = sum(1 for entry in entries if entry["fetch"] == "url")
    print(f"fetch {data}: {fetched} downloaded, {skipped} already verified, {failed} failed, "
          f"{downloadable - fetched - skipped - failed} not tried, of {downloadable} downloadable; "
          f"{len(not_fetchable)} manual or derived file(s) still to place", file=out)
    return 1 if fetched + skipped < downloadable else 0


def _default_data() -> Optional[Path]:
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    return find_shared_data_dir()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``fetch`` or ``check`` the data folder; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m coherence_metric.research.data_folder",
                                     description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("fetch", "download the public files into DIR and print the manual steps for the rest"),
                            ("check", "verify DIR against the manifest: missing, wrong, extra files, one line each")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--data", type=Path, default=None,
                             help=f"the data folder (default: ${ENV_VAR}, else ../shared/data beside the checkout)")
        command.add_argument("--only", action="append", default=[], metavar="PREFIX",
                             help="only paths under this prefix, e.g. coherence_paradigm, corpora/mctest (repeatable)")
        command.add_argument("--manifest", type=Path, default=None, help="another manifest (default: the shipped one)")
        command.add_argument("--skip-unread", action="store_true",
                             help="leave out the files no code reads today (marked unread in the manifest)")
        if name == "fetch":
            command.add_argument("--base-url", default=GITHUB_RAW,
                                 help="mirror for https://raw.githubusercontent.com, laid out as REPO/COMMIT/PATH")
            command.add_argument("--timeout", type=float, default=60.0, help="seconds per download (default 60)")
        else:
            command.add_argument("--allow-missing-manual", action="store_true",
                                 help="missing manual or derived files (LDC-derived, ...) do not fail the check")
    args = parser.parse_args(argv)
    data = args.data.expanduser() if args.data is not None else _default_data()
    if data is None:
        parser.error(f"no data folder: pass --data DIR or set {ENV_VAR}")
    try:
        manifest = load_manifest(args.manifest)
    except (OSError, ValueError) as error:
        print(f"error: cannot read the manifest {args.manifest or MANIFEST_PATH}: {error}", file=sys.stderr)
        return 2
    if args.command == "fetch":
        return fetch_folder(data, manifest, args.only, args.base_url, args.timeout, skip_unread=args.skip_unread)
    result = check_folder(data, manifest, args.only, allow_missing_manual=args.allow_missing_manual,
                          skip_unread=args.skip_unread)
    return 1 if result.failed(args.allow_missing_manual) else 0


if __name__ == "__main__":
    sys.exit(main())
