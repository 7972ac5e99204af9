"""Ray Data at scale, on a local 2-CPU Ray cluster: the same scores as one process, JSONL and Parquet in and out."""

from __future__ import annotations

import json

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


@pytest.fixture(scope="module")
def local_cluster():
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def expected(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint)).score(TEXTS).scores


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


def test_cli_scores_jsonl_and_parquet_in_and_out(local_cluster, bert_checkpoint, expected, jsonl_file, tmp_path):
    out = tmp_path / "scored-jsonl"
    # one actor: on 2 CPUs, two actors would leave the read and write tasks no CPU (the default leaves one)
    result = _score(str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray", "-o", str(out), "--actors", "1",
                    "--model", str(bert_checkpoint))
    assert result.exit_code == 0, result.output
    assert "ntrunc:n/a" in result.stdout and "model:local:bert-full@" in result.stdout
    rows = [json.loads(line) for file in sorted(out.glob("*.json*")) for line in file.read_text().splitlines()]
    assert [row["coherence"] for row in sorted(rows, key=lambda row: row["id"])] == pytest.approx(expected, abs=1e-5)

    parquet = tmp_path / "outputs.parquet"
    pd.DataFrame({"id": range(len(TEXTS)), "text": TEXTS}).to_parquet(parquet)
    out = tmp_path / "scored-parquet"
    result = _score(str(parquet), "--ray", "-o", str(out), "--model", str(bert_checkpoint))  # default: 1 actor
    assert result.exit_code == 0, result.output
    frame = pd.read_parquet(out).sort_values("id")
    assert frame["coherence"].tolist() == pytest.approx(expected, abs=1e-5)


def test_cli_refuses_before_any_actor_starts(local_cluster, bert_checkpoint, jsonl_file, tmp_path):
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "old.json").write_text("{}")
    cases = [
        ([str(jsonl_file), "-i", "jsonl", "--field", "output", "--ray"], "--ray writes a dataset: pass --output"),
        ([str(jsonl_file), "-i", "jsonl", "--ray", "-o", str(tmp_path / "o1")], "has no field 'text' (its fields:"),
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
