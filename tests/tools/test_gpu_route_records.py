"""The GPU route's records taken as untrusted: a ``result.json``, a ``parts.json`` or an ``inputs.json`` written by
hand or on another machine names only plain files in its own folder, is JSON of the expected shape, and never
makes a command read, overwrite or delete a file elsewhere; the dev ruler travels as JSON, never a pickle; and an
export deletes only what an export wrote."""

from __future__ import annotations

import gzip
import json
import pickle
import tarfile
from pathlib import Path
from typing import Any, Dict

import pytest
from click.testing import CliRunner

from coherence_metric.errors import InputError
from coherence_metric.file_names import plain_name
from tools.gpu_route import transfer
from tools.gpu_route.cli import cli as route
from tools.gpu_route.dev_ruler import read_dev_ruler
from tools.gpu_route.inputs import DEV_DATA_FILE, export_inputs
from tools.gpu_route.on_device import join_backbone, read_manifest

from .test_gpu_route import _dev_data, _documents, _pointwise_recipe

DEEP = "[" * 100_000 + "]" * 100_000
LONG_INTEGER = "7" * 5_000


def _outputs(tmp_path: Path) -> Path:
    """What a device call brings back, in small: one snapshot folder packed in parts, and its result.json."""
    snapshot = tmp_path / "work" / "as-written-step-2"
    snapshot.mkdir(parents=True)
    (snapshot / "weights.safetensors").write_bytes(b"weights")
    outputs = tmp_path / "OUT"
    outputs.mkdir()
    archive = transfer.pack({snapshot.name: snapshot}, tmp_path / "work", outputs, "snapshots")
    _write_result(outputs, {"family": "pointwise", "archive": archive, "picks": [], "left_out": [], "records": []})
    return outputs


def _write_result(outputs: Path, result: Any) -> None:
    (outputs / "result.json").write_text(json.dumps(result), encoding="utf-8")


def _result(outputs: Path) -> Dict[str, Any]:
    result: Dict[str, Any] = json.loads((outputs / "result.json").read_text(encoding="utf-8"))
    return result


def _unpack(outputs: Path, target: Path) -> Any:
    return CliRunner().invoke(route, ["unpack-outputs", str(outputs), "--output", str(target)], catch_exceptions=False)


def assert_one_line_error(result: Any, *fragments: str) -> None:
    """The route's one-line error: exit status 2, one ``Error:`` line on stderr holding every fragment."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert all(fragment in lines[0] for fragment in fragments), lines[0]
    assert "Traceback" not in result.output


# ------------------------------------------------------------------------------------- names in records


@pytest.mark.parametrize("name", ["/etc/passwd", "../notes.txt", "a/b", "a\\b", ".", "..", "", "a\0b", 3, None])
def test_a_name_from_a_record_must_be_a_plain_file_name(name: Any) -> None:
    with pytest.raises(InputError, match=r"^result.json: archive.name is .*, which is not a plain file name"):
        plain_name(name, "result.json", "archive.name")
    assert plain_name("snapshots.part0", "result.json", "archive.name") == "snapshots.part0"


@pytest.mark.parametrize("outside", ["absolute", "../victim.txt"])
def test_an_archive_name_outside_the_target_is_refused_and_that_file_is_left_as_it_was(
        tmp_path: Path, outside: str) -> None:
    outputs, victim = _outputs(tmp_path), tmp_path / "victim.txt"
    victim.write_text("mine", encoding="utf-8")
    result = _result(outputs)
    result["archive"]["name"] = str(victim) if outside == "absolute" else outside  # ../ from the target folder
    _write_result(outputs, result)
    done = _unpack(outputs, tmp_path / "back")
    assert_one_line_error(done, "result.json: archive.name is", "not a plain file name")
    assert victim.read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / "back").exists()  # refused before anything is written


def test_part_and_log_names_that_reach_other_files_are_refused_before_they_are_read(tmp_path: Path) -> None:
    outputs = _outputs(tmp_path)
    result = _result(outputs)
    elsewhere = tmp_path / "elsewhere.part0"
    (outputs / result["archive"]["parts"][0]).rename(elsewhere)  # a part named by its absolute path
    assert_one_line_error(_unpack(outputs, tmp_path / "a"), "did not come back")
    _write_result(outputs, {**result, "archive": {**result["archive"], "parts": [str(elsewhere)]}})
    assert_one_line_error(_unpack(outputs, tmp_path / "b"), "archive.parts[0] is", "not a plain file name")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd").write_text("root", encoding="utf-8")
    with tarfile.open(tmp_path / "secret.tar.gz", "w:gz") as tar:
        tar.add(secret / "passwd", arcname="passwd")
    _write_result(outputs, {**result, "archive": None, "logs": str(tmp_path / "secret.tar.gz")})
    assert_one_line_error(_unpack(outputs, tmp_path / "c"), "logs is", "not a plain file name")
    assert not (tmp_path / "c" / "logs").exists()


def test_a_parts_list_naming_a_file_outside_its_folder_never_touches_it(tmp_path: Path) -> None:
    folder = tmp_path / "inputs" / "backbone"
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine", encoding="utf-8")
    missing = {"whole_sha256": "0" * 64, "parts": [{"name": "model.safetensors.part1", "sha256": "0" * 64}]}
    (folder / "parts.json").write_text(json.dumps({"file": "../../victim.txt", **missing}), encoding="utf-8")
    with pytest.raises(InputError, match=r"parts.json: file is '\.\./\.\./victim.txt', which is not a plain file"):
        transfer.join_parts(folder, [tmp_path])
    assert victim.read_text(encoding="utf-8") == "mine"
    # A plain name already there: a missing part leaves that file as it was (the join is renamed in at the end).
    (folder / "config.json").write_text("{}", encoding="utf-8")
    (folder / "parts.json").write_text(json.dumps({"file": "config.json", **missing}), encoding="utf-8")
    with pytest.raises(InputError, match="is in none of"):
        transfer.join_parts(folder, [tmp_path])
    assert (folder / "config.json").read_text(encoding="utf-8") == "{}"
    assert sorted(path.name for path in folder.iterdir()) == ["config.json", "parts.json"]
    # A part named by an absolute path is refused, not read.
    victim_part = {"name": str(victim), "sha256": transfer.sha256_bytes(b"mine")}
    (folder / "parts.json").write_text(json.dumps({"file": "model.safetensors", "whole_sha256": victim_part["sha256"],
                                                   "parts": [victim_part]}), encoding="utf-8")
    with pytest.raises(InputError, match=r"parts\[0\].name is .*not a plain file name"):
        transfer.join_parts(folder, [tmp_path])
    assert not (folder / "model.safetensors").exists()


def test_an_exports_part_folders_are_plain_names_beside_it(tmp_path: Path) -> None:
    inputs = tmp_path / "gpu"
    (inputs / "backbone").mkdir(parents=True)
    (inputs / "inputs.json").write_text(json.dumps({"family": "pointwise", "recipe": {}, "backbone": {
        "parts": ["../../etc"]}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"inputs.json: backbone.parts\[0\] is '\.\./\.\./etc'"):
        join_backbone(inputs, read_manifest(inputs), [])


# ------------------------------------------------------------------------------ records that are not JSON


@pytest.mark.parametrize("content, fragment", [
    ("not json at all", "is not valid JSON (Expecting value"),
    ("[1, 2]", "is not a device call's result (a JSON object), but a list"),
    (DEEP, "is not valid JSON (nested deeper than"),
    (f'{{"archive": null, "seconds": {LONG_INTEGER}}}', "is not valid JSON (Exceeds the limit (4300 digits)"),
])
def test_a_result_that_is_not_a_json_object_is_one_line_naming_it(tmp_path: Path, content: str,
                                                                  fragment: str) -> None:
    outputs = tmp_path / "OUT"
    outputs.mkdir()
    (outputs / "result.json").write_text(content, encoding="utf-8")
    assert_one_line_error(_unpack(outputs, tmp_path / "back"), str(outputs / "result.json"), fragment)


@pytest.mark.parametrize("content", [DEEP, "[]", f'{{"family": {LONG_INTEGER}}}'])
def test_an_exports_manifest_that_is_not_one_is_one_line_naming_it(tmp_path: Path, content: str) -> None:
    (tmp_path / "inputs.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"inputs.json is not (valid JSON|an export's manifest)"):
        read_manifest(tmp_path)


# --------------------------------------------------------------------------------------- the dev ruler


class _RunsCode:
    """What a crafted pickle holds: unpickling it calls ``Path.touch`` on a marker."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return Path.touch, (self.marker,)


def test_the_dev_ruler_travels_as_json_and_a_pickle_in_its_place_is_refused_unrun(
        tiny_bert_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "gpu"
    export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), out, documents=_documents(), dev_data=_dev_data())
    assert not [path for path in out.rglob("*") if path.suffix in (".pkl", ".pickle")]
    assert read_dev_ruler(out / DEV_DATA_FILE) == _dev_data()  # every field as it was, tuples included
    marker = tmp_path / "ran"
    crafted = pickle.dumps(_RunsCode(marker))
    for content in (crafted, gzip.compress(crafted)):
        (out / DEV_DATA_FILE).write_bytes(content)
        with pytest.raises(InputError, match=f"{DEV_DATA_FILE} is not (a gzipped dev ruler|valid JSON)"):
            read_dev_ruler(out / DEV_DATA_FILE)
    assert not marker.exists()
    (out / DEV_DATA_FILE).write_bytes(gzip.compress(b'{"format": 1, "rated": 3}'))
    with pytest.raises(InputError, match="is not a dev ruler"):
        read_dev_ruler(out / DEV_DATA_FILE)


# ------------------------------------------------------------------------- what an export may delete


def _stand_ins() -> Dict[str, Any]:
    return {"documents": _documents(), "dev_data": _dev_data()}


def test_an_export_deletes_its_own_earlier_export_and_nothing_else(tiny_bert_dir: Path, tmp_path: Path) -> None:
    recipe, out = _pointwise_recipe(tmp_path, tiny_bert_dir), tmp_path / "gpu"
    partners = tmp_path / "gpu-partners"  # a sibling whose name starts as the part folders' do
    partners.mkdir()
    (partners / "notes.part1").write_text("mine", encoding="utf-8")
    part_mb = (transfer.folder_bytes(tiny_bert_dir / "model.safetensors") // 6) / transfer.MIB
    first = export_inputs(recipe, out, split_mb=part_mb, **_stand_ins())
    assert len(first["backbone"]["parts"]) >= 2
    again = export_inputs(recipe, out, **_stand_ins())  # in one piece: the earlier export's parts go
    assert (partners / "notes.part1").read_text(encoding="utf-8") == "mine"
    assert again["backbone"]["parts"] == []
    assert not any((tmp_path / name).exists() for name in first["backbone"]["parts"])
    assert "inputs.json" in again["written"] and "backbone" in again["written"]
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="holds notes.txt, which its export did not write"):
        export_inputs(recipe, out, **_stand_ins())
    assert (out / "notes.txt").is_file() and (out / "backbone" / "model.safetensors").is_file()


def test_a_folder_no_export_of_this_kind_wrote_is_refused_and_nothing_is_deleted(
        tiny_bert_dir: Path, tmp_path: Path) -> None:
    recipe, out = _pointwise_recipe(tmp_path, tiny_bert_dir), tmp_path / "gpu"
    out.mkdir()
    (out / "inputs.json").write_text('{"family": "pointwise"}', encoding="utf-8")  # lists nothing it wrote
    (out / "results.csv").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="does not list what its export wrote"):
        export_inputs(recipe, out, **_stand_ins())
    assert sorted(path.name for path in out.iterdir()) == ["inputs.json", "results.csv"]
    taken = tmp_path / "new-part1"  # a part folder name already taken: refused before anything is written
    taken.mkdir()
    (taken / "model.safetensors.part1").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="new-part1 is there already and no export in"):
        export_inputs(recipe, tmp_path / "new", split_mb=0.01, **_stand_ins())
    assert not (tmp_path / "new").exists() and (taken / "model.safetensors.part1").read_text() == "mine"


def test_an_export_that_stops_half_way_removes_what_it_wrote_so_the_next_one_runs(
        tiny_bert_dir: Path, tmp_path: Path) -> None:
    recipe, out = _pointwise_recipe(tmp_path, tiny_bert_dir), tmp_path / "gpu"
    with pytest.raises(Exception, match="no-such-teacher"):  # after the documents, the ruler and the backbone
        export_inputs(recipe, out, {"objective.score_teacher": str(tmp_path / "no-such-teacher"),
                                    "objective.score_distil_weight": 1.0}, **_stand_ins())
    assert out.is_dir() and not any(out.iterdir())
    assert export_inputs(recipe, out, **_stand_ins())["family"] == "pointwise"
