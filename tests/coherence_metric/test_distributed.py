"""Ray Data at scale, on a local 2-CPU Ray cluster: the same scores as one process, JSONL and Parquet in and out."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys

import pandas as pd
import pytest
import ray
from click.testing import CliRunner

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.cli import cli

TEXTS = [
    "The river rose slowly through the night. By morning the lower fields were under water.",
    "Everyone agreed to build a wall. The town held a meeting.",
    "Rain fell for days. The roads closed and the schools shut.",
    "It said her brother was coming home. She opened the letter.",
    "The bakery opened at six. By seven the bread was gone. Nobody minded.",
]


S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def s3_endpoint():
    """A real S3-compatible server (moto's) on 127.0.0.1; the environment points S3 clients at it (pyarrow reads
    AWS_ENDPOINT_URL), set before Ray starts so its workers inherit it."""
    import socket

    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    saved = {name: os.environ.get(name) for name in [*S3_ENV, "AWS_ENDPOINT_URL"]}
    os.environ.update(S3_ENV, AWS_ENDPOINT_URL=endpoint)
    yield endpoint
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    server.stop()


@pytest.fixture(scope="module")
def local_cluster(s3_endpoint):
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def expected(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint)).score(TEXTS).scores


@pytest.mark.slow
def test_score_dataset_matches_one_process(local_cluster, bert_checkpoint, expected):
    from coherence_metric.distributed import score_dataset

    dataset = ray.data.from_items([{"id": index, "text": text} for index, text in enumerate(TEXTS)])
    rows = score_dataset(dataset, model=str(bert_checkpoint), actors=2, texts_per_batch=2).take_all()
    scores = [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])]
    assert scores == pytest.approx(expected, abs=1e-5)
    assert {row["text"] for row in rows} == set(TEXTS)


@pytest.fixture
def jsonl_file(tmp_path):
    path = tmp_path / "outputs.jsonl"
    path.write_text("".join(json.dumps({"id": index, "output": text}) + "\n" for index, text in enumerate(TEXTS)))
    return path


def _score(*args):
    from coherence_metric.cli import score  # noqa: F401  (registers the command)

    return CliRunner().invoke(cli, ["score", *args], catch_exceptions=False)


@pytest.mark.slow
def test_cli_scores_jsonl_and_parquet_in_and_out(local_cluster, bert_checkpoint, expected, jsonl_file, tmp_path):
    out = tmp_path / "scored-jsonl"
    # one actor: on 2 CPUs, two actors would leave the read and write tasks no CPU (the default leaves one)
    result = _score(str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray", "-o", str(out), "--actors", "1",
                    "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    assert "ntrunc:0" in result.stdout and "model:local:bert-full@" in result.stdout
    rows = [json.loads(line) for file in sorted(out.glob("*.json*")) for line in file.read_text().splitlines()]
    assert [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])] == pytest.approx(expected, abs=1e-5)

    parquet = tmp_path / "outputs.parquet"
    pd.DataFrame({"id": range(len(TEXTS)), "text": TEXTS}).to_parquet(parquet)
    out = tmp_path / "scored-parquet"
    result = _score(str(parquet), "--ray", "-o", str(out), "--model", str(bert_checkpoint))  # default: 1 actor
    assert result.exit_code == 0, result.output
    frame = pd.read_parquet(out).sort_values("id")
    assert frame["coherence"].tolist() == pytest.approx(expected, abs=1e-5)


@pytest.mark.slow
def test_cli_refuses_before_any_actor_starts(local_cluster, bert_checkpoint, jsonl_file, tmp_path):
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "old.json").write_text("{}")
    cases = [
        ([str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray"], "--ray writes a dataset: pass --output"),
        ([str(jsonl_file), "-i", "jsonl", "--ray", "-o", str(tmp_path / "o1")],
         "outputs.jsonl line 1 has no field 'text'"),
        ([str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray", "-o", str(occupied)],
         "exists and is not an empty folder"),
        ([str(jsonl_file), "--ray", "-o", str(tmp_path / "o2")], "with --ray the input is JSONL (pass -i jsonl)"),
    ]
    for args, message in cases:
        result = _score(*args, "--model", str(bert_checkpoint))
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("coherence-metric: error: ") and message in result.stderr


def test_bad_settings_are_refused_before_ray_runs():
    from coherence_metric.distributed import score_dataset

    with pytest.raises(InputError, match="actors must be a positive integer"):
        score_dataset(object(), actors=0)
    with pytest.raises(InputError, match="texts_per_batch must be a positive integer"):
        score_dataset(object(), texts_per_batch=0)



# ------------------------------------------------------------------------------------------- errors, storage and logs


def _one_line(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("coherence-metric: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.slow
def test_bad_rows_are_one_line_naming_the_file_and_line_before_ray_runs(local_cluster, bert_checkpoint, tmp_path):
    """A missing field, a null text or a BOM gave 80-310-line Ray tracebacks with a row number relative to its
    batch; every row is now checked on the driver."""
    rows = [json.dumps({"id": index, "output": text}) for index, text in enumerate(TEXTS * 2)]
    cases = {
        "missing": (rows[:6] + ['{"id": 6}'] + rows[7:], "missing.jsonl line 7 has no field 'output'"),
        "null": (rows[:8] + ['{"id": 8, "output": null}'] + rows[9:],
                 "null.jsonl line 9: field 'output' is null"),
        "mixed": (rows[:3] + ['{"id": 3, "output": ["One.", "Two."]}'] + rows[4:],
                  "mixed.jsonl:4: field 'output' is a list of sentences but"),
    }
    for name, (lines, message) in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _one_line(_score(str(path), "-i", "jsonl", "--field", "output", "--ray", "-o", str(tmp_path / f"o-{name}"),
                         "--model", str(bert_checkpoint)), message)
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes("\n".join(rows).encode("utf-16"))  # named as the local reader names it
    _one_line(_score(str(utf16), "-i", "jsonl", "--field", "output", "--ray", "-o", str(tmp_path / "o-bom"),
                     "--model", str(bert_checkpoint)),
              f"utf16.jsonl is UTF-16, not UTF-8: convert it with `iconv -f UTF-16 -t UTF-8 {utf16}")
    folder = tmp_path / "parquet"
    folder.mkdir()
    pd.DataFrame({"text": TEXTS}).to_parquet(folder / "part-0.parquet")
    pd.DataFrame({"text": [TEXTS[0], None, TEXTS[1]]}).to_parquet(folder / "part-1.parquet")
    _one_line(_score(str(folder), "--ray", "-o", str(tmp_path / "o-parquet"), "--model", str(bert_checkpoint)),
              f"{folder}/part-1.parquet row 2: field 'text' is null")
    assert not any((tmp_path / name).exists() for name in ("o-missing", "o-null", "o-mixed", "o-bom", "o-parquet"))


@pytest.mark.slow
def test_file_and_s3_uris_in_and_out(local_cluster, s3_endpoint, bert_checkpoint, expected, jsonl_file, tmp_path):
    """README's object-storage command was refused ("no such file or folder": Path.exists on a URI)."""
    import boto3

    out = tmp_path / "scored-uri"
    result = _score(jsonl_file.as_uri(), "-i", "jsonl", "--field", "output", "--ray", "-o", out.as_uri(),
                    "--actors", "1", "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for file in sorted(out.glob("*.json*")) for line in file.read_text().splitlines()]
    assert [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])] == pytest.approx(expected, abs=1e-5)

    client = boto3.client("s3", endpoint_url=s3_endpoint)
    client.create_bucket(Bucket="bucket")
    client.put_object(Bucket="bucket", Key="outputs/part-0.jsonl", Body=jsonl_file.read_bytes())
    result = _score("s3://bucket/outputs/", "-i", "jsonl", "--field", "output", "--ray", "-o", "s3://bucket/scored/",
                    "--actors", "1", "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    keys = [entry["Key"] for entry in client.list_objects_v2(Bucket="bucket", Prefix="scored/")["Contents"]]
    rows = [json.loads(line) for key in keys if key.endswith(".json")
            for line in client.get_object(Bucket="bucket", Key=key)["Body"].read().decode().splitlines()]
    assert [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])] == pytest.approx(expected, abs=1e-5)
    # the checks on the driver read object storage too
    _one_line(_score("s3://bucket/nothing/", "-i", "jsonl", "--ray", "-o", "s3://bucket/o/", "--model",
                     str(bert_checkpoint)), "s3://bucket/nothing/: no such file or folder")
    _one_line(_score("s3://bucket/outputs/", "-i", "jsonl", "--field", "output", "--ray", "-o", "s3://bucket/scored/",
                     "--model", str(bert_checkpoint)), "s3://bucket/scored/ exists and is not an empty folder")


@pytest.mark.slow
def test_the_signature_names_what_the_actors_ran(local_cluster, bert_checkpoint, jsonl_file, tmp_path, monkeypatch):
    """The driver computed the signature: a driver resolving another dtype than its actors signed the wrong one, and
    the truncation count read n/a. The workers started with COHERENCE_METRIC_DTYPE=fp32 (conftest); the driver now
    says bf16."""
    from coherence_metric import CoherenceScorer

    expected = CoherenceScorer(str(bert_checkpoint), dtype="fp32", max_length=16, truncation="warn").score(TEXTS)
    assert expected.n_truncated == 2  # two of the five texts are longer than 16 tokens: the signature says ntrunc:2
    monkeypatch.setenv("COHERENCE_METRIC_DTYPE", "bf16")
    out = tmp_path / "scored"
    result = _score(str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray", "-o", str(out), "--actors", "1",
                    "--max-length", "16", "--truncation", "warn", "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    assert f"signature: {expected.signature}" in result.stdout.splitlines()
    rows = [json.loads(line) for file in sorted(out.glob("*.json*")) for line in file.read_text().splitlines()]
    assert [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])] == \
        pytest.approx(expected.scores, abs=1e-5)


# A line one of Ray's Python loggers printed at INFO or WARNING: "2026-11-26 01:38:57,415\tINFO
# streaming_executor.py:215 -- Starting execution of Dataset ...". A tab, not a space, comes before the level.
RAY_INFO_OR_WARNING = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(INFO|WARNING) \S+:\d+ -- ")


@pytest.mark.slow
def test_ray_info_or_warning_matches_what_rays_loggers_print(local_cluster):
    """RAY_INFO_OR_WARNING checked against Ray's own console formatters, so the --quiet test cannot pass by matching
    nothing (it once looked for " INFO " with a space, which Ray never prints, and passed while every line printed)."""
    handlers = [handler for name in ("ray", "ray.data") for handler in logging.getLogger(name).handlers
                if isinstance(handler, logging.StreamHandler) and handler.formatter is not None]
    assert handlers
    for handler in handlers:
        for level in (logging.INFO, logging.WARNING):
            record = logging.LogRecord("ray.data", level, "streaming_executor.py", 215, "Starting execution", None,
                                       None)
            assert RAY_INFO_OR_WARNING.match(handler.format(record)), handler.format(record)
        error = logging.LogRecord("ray.data", logging.ERROR, "streaming_executor.py", 215, "failed", None, None)
        assert not RAY_INFO_OR_WARNING.match(handler.format(error))


@pytest.mark.slow
def test_quiet_silences_rays_info_and_warning_lines(local_cluster, bert_checkpoint, jsonl_file, tmp_path):
    """The console script joining the running cluster, as a user's second job would: a fresh process, where importing
    Ray and Ray Data sets up their loggers. --quiet still printed the dataset's execution plan, "execution finished"
    and Ray Data's warnings (levels set before that import were overwritten by it); now it prints none of them."""
    script = os.path.join(os.path.dirname(sys.executable), "coherence-metric")
    address = ray.get_runtime_context().gcs_address
    result = subprocess.run([script, "score", str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray",
                             "-o", str(tmp_path / "quiet"), "--actors", "8", "--ray-address", address, "--quiet",
                             "--model", str(bert_checkpoint)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if RAY_INFO_OR_WARNING.match(line)] == [], result.stderr
    # Nor the C++ core's "core_worker.cc:2465: Actor ... has constructor arguments in the object
    # store" E line (nor its "Set ray log level" I line); and 8 actors on 2 CPUs do not wait forever
    assert result.stderr.strip() == "", result.stderr
    assert "signature: " in result.stdout
    assert len(list((tmp_path / "quiet").glob("*.json*"))) >= 1


# ------------------------------------------------------------------------------------------------ output fidelity


def _rows(folder):
    """The rows of a JSONL output folder (lines end at \n alone: a JSON string may hold U+2028 unescaped)."""
    return [json.loads(line) for file in sorted(folder.glob("*.json*"))
            for line in file.read_text(encoding="utf-8").split("\n") if line]


@pytest.mark.slow
def test_jsonl_fields_keep_their_json_types(local_cluster, bert_checkpoint, tmp_path):
    """Ray's JSON reader went through pandas: `"meta": 1` in a field that also held a string came back as
    "1", an integer field with a null as 3.0, a list mixing types as one row per element (and rows lost fields).
    Each output line is now its input object with the score added. The file also starts with a UTF-8 byte order mark
    (now read as the local reader reads it) and a text holds U+2028, where Ray's text reader broke lines."""
    records = [
        {"id": 0, "text": TEXTS[0], "meta": 1, "n": 3, "mixed": [1, "a"], "big": 2 ** 64 + 1, "x": 1.0,
         "nested": {"a": [1, None]}, "word": "naïve"},
        {"id": 1, "text": TEXTS[1] + "\u2028" + TEXTS[2], "meta": "x", "n": None, "mixed": [], "big": -1, "x": 2.5,
         "nested": {}, "word": "ok"},
        {"id": 2, "text": TEXTS[3], "meta": 1.5, "n": 7, "mixed": [True], "big": 0, "x": 0.0, "nested": None},
    ]
    path = tmp_path / "typed.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(record, ensure_ascii=False) + "\n"
                                                for record in records).encode("utf-8"))
    out = tmp_path / "scored"
    result = _score(str(path), "-i", "jsonl", "--ray", "-o", str(out), "--actors", "1", "--model",
                    str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    rows = sorted(_rows(out), key=lambda row: row["id"])
    expected = CoherenceScorer(str(bert_checkpoint)).score([record["text"] for record in records]).scores
    assert [row.pop("coherence") for row in rows] == pytest.approx(expected, abs=1e-5)
    # json.dumps tells 1 from 1.0 and "1", and keeps the order of the fields
    assert [json.dumps(row) for row in rows] == [json.dumps(record) for record in records]


@pytest.mark.slow
def test_an_existing_coherence_field_is_refused_not_overwritten(local_cluster, bert_checkpoint, tmp_path):
    """--ray must not replace an existing 'coherence' field without a word; score_dataframe refuses one."""
    path = tmp_path / "has.jsonl"
    path.write_text(json.dumps({"text": TEXTS[0]}) + "\n" + json.dumps({"text": TEXTS[1], "coherence": 0.5}) + "\n")
    _one_line(_score(str(path), "-i", "jsonl", "--ray", "-o", str(tmp_path / "o1"), "--model", str(bert_checkpoint)),
              "has.jsonl line 2 already has a field 'coherence'")
    parquet = tmp_path / "has.parquet"
    pd.DataFrame({"text": TEXTS, "coherence": [0.0] * len(TEXTS)}).to_parquet(parquet)
    _one_line(_score(str(parquet), "--ray", "-o", str(tmp_path / "o2"), "--model", str(bert_checkpoint)),
              "has.parquet already has a field 'coherence'")
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()
    assert path.read_text().count("coherence") == 1  # the input is untouched


@pytest.mark.slow
def test_parquet_columns_keep_their_types(local_cluster, bert_checkpoint, tmp_path):
    """Parquet batches went through numpy, so an integer column with a null came back as floats."""
    import pyarrow
    import pyarrow.parquet

    table = pyarrow.table({"text": TEXTS[:3], "n": pyarrow.array([1, None, 3], pyarrow.int64()),
                           "tags": pyarrow.array([["a"], [], ["b", "c"]])})
    pyarrow.parquet.write_table(table, tmp_path / "in.parquet")
    out = tmp_path / "scored"
    result = _score(str(tmp_path / "in.parquet"), "--ray", "-o", str(out), "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    scored = pyarrow.parquet.read_table(out)
    assert scored.schema.field("n").type == pyarrow.int64() and scored.schema.field("tags").type == table["tags"].type
    got = sorted(zip(scored["text"].to_pylist(), scored["n"].to_pylist(), scored["tags"].to_pylist()))
    assert got == sorted(zip(*(table[name].to_pylist() for name in ("text", "n", "tags"))))


EDIT_AFTER_CHECK = """
import sys
from coherence_metric.inputs import ray_io
from coherence_metric.cli import main

real = ray_io.check_jsonl
def check_then_edit(location, *args):
    rows = real(location, *args)
    with open(location.path, "a", encoding="utf-8") as stream:  # written after the check, before Ray reads it
        stream.write('{"id": 99}\\n')
    return rows
ray_io.check_jsonl = check_then_edit
main(sys.argv[1:])
"""


@pytest.mark.slow
def test_a_file_edited_after_the_check_is_one_line_naming_it(local_cluster, bert_checkpoint, jsonl_file, tmp_path):
    """A row appended between the driver's check and the workers' read gave a 74-line Ray traceback and
    exit 1. The console script, joining the running cluster, with the file edited right after the check."""
    address = ray.get_runtime_context().gcs_address
    out = tmp_path / "scored"
    result = subprocess.run([sys.executable, "-c", EDIT_AFTER_CHECK, "score", str(jsonl_file), "-i", "jsonl",
                             "--field", "output", "--ray", "-o", str(out), "--actors", "1", "--ray-address", address,
                             "--quiet", "--model", str(bert_checkpoint)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"coherence-metric: error: {jsonl_file} changed after it was checked"), lines[0]
    assert f"{jsonl_file} line {len(TEXTS) + 1} has no field 'output'" in lines[0]
    assert not out.exists()  # nothing half-written is left behind
    assert jsonl_file.read_text().count("\n") == len(TEXTS) + 1  # and the input is as the edit left it


@pytest.mark.slow
def test_actors_beyond_the_cluster_are_cut_with_a_warning(local_cluster, bert_checkpoint, expected, jsonl_file,
                                                          tmp_path):
    """--actors 8 on 2 CPUs must not wait forever for actors that cannot start."""
    out = tmp_path / "scored"
    with pytest.warns(UserWarning, match=r"8 scorer actors \(--actors\) do not fit this cluster \(2 CPUs, one left "
                                         r"to reading and writing\): starting 1"):
        result = _score(str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray", "-o", str(out), "--actors",
                        "8", "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    assert [row["coherence"] for row in sorted(_rows(out), key=lambda row: row["id"])] == \
        pytest.approx(expected, abs=1e-5)


def test_utf16_without_a_byte_order_mark_is_named(bert_checkpoint, tmp_path):
    """The --ray reader now names UTF-16 as the local reader does (no cluster needed: checked first)."""
    path = tmp_path / "wide.jsonl"
    path.write_bytes((json.dumps({"text": TEXTS[0]}) + "\n").encode("utf-16-le"))
    _one_line(_score(str(path), "-i", "jsonl", "--ray", "-o", str(tmp_path / "o"), "--model", str(bert_checkpoint)),
              f"wide.jsonl is UTF-16LE, not UTF-8: convert it with `iconv -f UTF-16LE -t UTF-8 {path}")


def test_object_storage_that_does_not_answer_is_one_line_after_the_timeout(bert_checkpoint, tmp_path):
    """``gs://`` offline waited 400 s for credentials, printing nothing. Offline here (and with an endpoint no
    packet reaches, 10.255.255.1), a 2-second timeout; the process exits without waiting for the stuck call."""
    import time

    script = os.path.join(os.path.dirname(sys.executable), "coherence-metric")
    given = "gs://coherence-metric-offline/in/?endpoint_override=10.255.255.1:80&scheme=http"
    start = time.monotonic()
    result = subprocess.run([script, "score", given, "-i", "jsonl", "--ray", "-o", str(tmp_path / "o"), "--quiet",
                             "--model", str(bert_checkpoint)], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "COHERENCE_METRIC_STORAGE_TIMEOUT": "2"})
    assert time.monotonic() - start < 30
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"coherence-metric: error: {given}: no answer from the storage in 2 s (offline, " \
        "an unreachable endpoint, or no credentials?); set COHERENCE_METRIC_STORAGE_TIMEOUT to wait longer"


def test_a_bad_storage_timeout_is_refused(bert_checkpoint, tmp_path, monkeypatch):
    monkeypatch.setenv("COHERENCE_METRIC_STORAGE_TIMEOUT", "soon")
    _one_line(_score("gs://coherence-metric-offline/in/", "-i", "jsonl", "--ray", "-o", str(tmp_path / "o"),
                     "--model", str(bert_checkpoint)),
              "COHERENCE_METRIC_STORAGE_TIMEOUT='soon' must be a positive number of seconds")
