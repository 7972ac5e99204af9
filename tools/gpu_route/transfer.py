"""What travels to a lent GPU machine and back, in bytes: the limits, the folder sizes, the parts a large file is
split into and joined from (every sha256 checked), and the archive of what comes back.

The device tool sends the working tree (tracked files and untracked files git does not ignore) plus at most 8
carried ignored paths, 64 MiB in all, and brings back from ``$OUT`` at most 8 files of at most 16 MiB each, 64 MiB in
all (docs/training.md, "Training on a lent GPU").
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import tarfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError
from coherence_metric.toolkit import plain_name, plain_names, read_json

MIB = 1024 * 1024
#: The working tree and the carried paths of one call, together.
TRANSFER_LIMIT = 64 * MIB
#: What comes back from ``$OUT``: files, bytes per file, bytes in all.
RETURN_FILES = 8
RETURN_FILE_LIMIT = 16 * MIB
RETURN_LIMIT = 64 * MIB
#: The parts an archive that comes back is cut into (under the per-file limit).
PART_BYTES = 15 * MIB
#: A tracked file this large is named in the size report: deleting it from the checkout for the calls makes room
#: (the shipped checkpoints' weights and tokenizers, the archive, the multi-view encoders: 179 of the tree's 186 MiB).
LARGE_TRACKED = 256 * 1024
#: The file beside an exported backbone that lists its weights' parts.
PARTS_FILE = "parts.json"


def folder_bytes(path: Path) -> int:
    """Bytes of every file under ``path`` (a file's own size when it is one)."""
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def mib(count: int) -> str:
    """``count`` bytes in MiB, one decimal."""
    return f"{count / MIB:.1f} MiB"


def sha256_bytes(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def split_into_folders(path: Path, base: Path, part_bytes: int, label: str = "") -> List[Path]:
    """Move the file ``path`` into parts ``<label><name>.partN`` of at most ``part_bytes``, each alone in a folder
    ``<base>-partN`` (one carried per call; ``label`` keeps apart the parts of two files of one name, which the device
    copies to one folder); ``parts.json`` beside ``path`` records the parts' names and sha256 and the whole file's.

    Raises:
        InputError: a folder ``<base>-partN`` is there already (this writes new folders only, and deletes none).
    """
    data = path.read_bytes()
    parts, records = [], []
    for index, start in enumerate(range(0, len(data), part_bytes), start=1):
        folder = base.parent / f"{base.name}-part{index}"
        if folder.exists() or folder.is_symlink():
            raise InputError(f"{folder} is there already: the parts go into new folders (move it away)")
        folder.mkdir(parents=True)
        part = folder / f"{label}{path.name}.part{index}"
        part.write_bytes(data[start:start + part_bytes])
        parts.append(part)
        records.append({"name": part.name, "sha256": sha256_bytes(data[start:start + part_bytes])})
    manifest = {"file": path.name, "whole_sha256": sha256_bytes(data), "parts": records}
    (path.parent / PARTS_FILE).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    path.unlink()
    return parts


def join_parts(folder: Path, search: Sequence[Path]) -> Path:
    """Write the file that ``folder/parts.json`` lists from its parts, found in any folder of ``search`` (those the
    earlier calls copied to the device's disk, and those carried by this call).

    The file is joined under a temporary name and renamed once every sha256 is checked, so a missing or altered part
    leaves nothing behind and never touches a file of that name already there.

    Raises:
        InputError: parts.json is not one :func:`split_into_folders` wrote (a name that is not a plain file name
            among them), a part is missing or its sha256 differs, or the joined file's does (one line each).
    """
    record = folder / PARTS_FILE
    manifest = read_json(record)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        raise InputError(f"{record} is not a parts list (an object with file, whole_sha256 and parts)")
    target = folder / plain_name(manifest.get("file"), record, "file")
    if target.name == PARTS_FILE:
        raise InputError(f"{record}: file is {PARTS_FILE!r}, the parts list itself")
    parts = [_part_record(item, record, index) for index, item in enumerate(manifest["parts"])]
    joining = folder / f".{target.name}.joining"
    whole = hashlib.sha256()
    try:
        with open(joining, "wb") as out:
            for name, sha256 in parts:
                data = _part_bytes(name, sha256, search, record)
                whole.update(data)
                out.write(data)
        if whole.hexdigest() != manifest.get("whole_sha256"):
            raise InputError(f"the joined {target} has another sha256 than {record} records")
        os.replace(joining, target)
    finally:
        joining.unlink(missing_ok=True)
    return target


def _part_record(item: Any, record: Path, index: int) -> Tuple[str, str]:
    """One entry of a parts list: its plain file name and its sha256."""
    if not isinstance(item, dict) or not isinstance(item.get("sha256"), str):
        raise InputError(f"{record}: parts[{index}] is not a part (an object with name and sha256)")
    return plain_name(item.get("name"), record, f"parts[{index}].name"), item["sha256"]


def _part_bytes(name: str, sha256: str, search: Sequence[Path], record: Path) -> bytes:
    """The bytes of the part ``name``, from the first folder of ``search`` that holds it, checked."""
    found = [place / name for place in search if (place / name).is_file()]
    if not found:
        where = ", ".join(str(place) for place in search) or "no folder (pass --parts)"
        raise InputError(f"{name} is in none of {where}: a call that carried it ran on another machine, or its "
                         "folder was not named")
    data = found[0].read_bytes()
    if sha256_bytes(data) != sha256:
        raise InputError(f"{found[0]} has another sha256 than {record} records")
    return data


def pack(folders: Dict[str, Path], work: Path, out: Path, name: str) -> Dict[str, Any]:
    """``folders`` (archive name -> folder) as ``<name>.tar.gz`` cut into ``<name>.partN`` files of at most
    :data:`PART_BYTES` in ``out``; returns the record that :func:`unpack` checks (the archive's sha256, the parts)."""
    archive = work / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        for arcname, folder in folders.items():
            tar.add(folder, arcname=arcname)
    data = archive.read_bytes()
    parts = []
    for index, start in enumerate(range(0, len(data), PART_BYTES)):
        part = out / f"{name}.part{index}"
        part.write_bytes(data[start:start + PART_BYTES])
        parts.append(part.name)
    archive.unlink()
    return {"name": f"{name}.tar.gz", "sha256": sha256_bytes(data), "bytes": len(data), "parts": parts,
            "folders": list(folders)}


def unpack(outputs: Path, record: Any, target: Path, where: str = "the archive record") -> List[Path]:
    """Join the parts of a :func:`pack` record found in ``outputs``, check the archive's sha256 and extract its
    folders under ``target``; returns them. ``where`` names the record in errors (the result.json that holds it).

    The archive is read from memory: no file is written under any name the record gives.

    Raises:
        InputError: the record is not one :func:`pack` wrote (a name in it is not a plain file name), a part is
            missing, or the joined archive is not the one packed.
    """
    archive = archive_record(record, where)
    missing = [name for name in archive["parts"] if not (outputs / name).is_file()]
    if missing:
        raise InputError(f"{outputs}: {', '.join(missing)} did not come back (the call's files were cut short?)")
    data = b"".join((outputs / name).read_bytes() for name in archive["parts"])
    if sha256_bytes(data) != archive["sha256"]:
        raise InputError(f"{outputs}: the joined {archive['name']} has another sha256 than the device packed")
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        _extract_checked(tar, archive["name"], target)
    return [target / name for name in archive["folders"]]


def archive_record(record: Any, where: str) -> Dict[str, Any]:
    """``record`` when it is what :func:`pack` returns: a plain archive name, its sha256, and lists of plain part
    and folder names.

    Raises:
        InputError: one line naming ``where`` and the field at fault.
    """
    if not isinstance(record, dict):
        raise InputError(f"{where}: archive must be an object (name, sha256, parts, folders), not "
                         f"{type(record).__name__}")
    if not isinstance(record.get("sha256"), str):
        raise InputError(f"{where}: archive.sha256 must be a string")
    return {**record, "name": plain_name(record.get("name"), where, "archive.name"),
            "parts": plain_names(record.get("parts"), where, "archive.parts"),
            "folders": plain_names(record.get("folders"), where, "archive.folders")}


def extract(archive: Path, target: Path) -> None:
    """Extract the tar.gz ``archive`` under ``target``, refusing any member that is not a plain file or folder under
    it (an absolute path, ``..``, a link or a device file).

    Raises:
        InputError: such a member (nothing is extracted), or a file that is not a tar.gz.
    """
    try:
        with tarfile.open(archive, "r:gz") as tar:
            _extract_checked(tar, archive.name, target)
    except (tarfile.TarError, EOFError) as error:
        raise InputError(f"{archive}: not a readable tar.gz ({error})") from None


def _extract_checked(tar: tarfile.TarFile, label: str, target: Path) -> None:
    for member in tar.getmembers():
        if member.name.startswith("/") or ".." in Path(member.name).parts or not (member.isfile()
                                                                                  or member.isdir()):
            raise InputError(f"{label} holds {member.name!r}, which is not a file under the target folder")
    if hasattr(tarfile, "data_filter"):
        tar.extractall(target, filter="data")
    else:  # Python before 3.10.12 / 3.11.4: the members were checked above
        tar.extractall(target)


def fitting(candidates: Sequence[Tuple[str, Path]], budget: int, reserved: int = 0
            ) -> Tuple[List[Tuple[str, Path]], List[str]]:
    """The candidates, in their order of preference, that fit ``budget`` bytes of return beside ``reserved`` ones
    (their bytes on disk: weights barely compress, and gzip never grows them by more than a fraction of a percent,
    which the margin holds), within :data:`RETURN_FILES` files; and the names of those left out."""
    kept: List[Tuple[str, Path]] = []
    left: List[str] = []
    used = reserved
    for name, folder in candidates:
        size = int(folder_bytes(folder) * 1.01) + 64 * 1024
        parts = -(-(used - reserved + size) // PART_BYTES)
        if used + size <= budget and parts <= RETURN_FILES - 2:
            kept.append((name, folder))
            used += size
        else:
            left.append(name)
    return kept, left


def travelling_tree(root: Path) -> Optional[Tuple[int, List[Tuple[str, int]]]]:
    """What the device tool sends of the checkout at ``root`` besides carried paths: the bytes of its tracked and
    untracked-not-ignored files, and the tracked files of :data:`LARGE_TRACKED` or more (largest first); None when
    ``root`` is not a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                                capture_output=True, check=True).stdout.decode("utf-8", "replace")
        tracked = set(subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                                     check=True).stdout.decode("utf-8", "replace").split("\0"))
    except (OSError, subprocess.CalledProcessError):
        return None
    total, large = 0, []
    for name in dict.fromkeys(item for item in listed.split("\0") if item):
        path = root / name
        if not path.is_file():  # deleted from the checkout for a call: it does not travel
            continue
        size = path.stat().st_size
        total += size
        if name in tracked and size >= LARGE_TRACKED:
            large.append((name, size))
    return total, sorted(large, key=lambda item: -item[1])


__all__ = ["LARGE_TRACKED", "MIB", "PARTS_FILE", "PART_BYTES", "RETURN_FILES", "RETURN_FILE_LIMIT", "RETURN_LIMIT",
           "TRANSFER_LIMIT", "archive_record", "extract", "fitting", "folder_bytes", "join_parts", "mib", "pack",
           "sha256_bytes", "split_into_folders", "travelling_tree", "unpack"]
