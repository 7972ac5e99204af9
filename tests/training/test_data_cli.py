"""``coherence-metric train prepare`` through click: a tiny run, its summary, and one-line errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from coherence_metric.training.cli import train
from coherence_metric.training.data import read_split, split_path


def test_prepare_tiny_run(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("COHERENCE_METRIC_DATA", str(shared_data))
    out_dir = tmp_path / "data"
    result = CliRunner().invoke(
        train,
        ["prepare", "--corpora", "lee,mctest", "-o", str(out_dir), "--limit-docs", "20", "--negatives", "5",
         "--quiet"],
    )
    assert result.exit_code == 0, result.output
    assert "per split" in result.output and "per corpus" in result.output and "mctest" in result.output
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert list(manifest["corpora"]) == ["lee", "mctest"] and manifest["negatives"] == 5
    assert sum(manifest["counts_by_corpus"]["mctest"][s]["documents"] for s in ("train", "dev", "test")) == 20
    items = [item for split in ("train", "dev", "test") for item in read_split(split_path(out_dir, split))]
    assert len(items) == sum(manifest["files"][s]["items"] for s in ("train", "dev", "test")) > 0
    assert all(1 <= len(item.negs) <= 5 for item in items)


def test_prepare_refuses_to_overwrite_without_force(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("COHERENCE_METRIC_DATA", str(shared_data))
    arguments = ["prepare", "--corpora", "lee", "-o", str(tmp_path), "--limit-docs", "3", "--quiet"]
    assert CliRunner().invoke(train, arguments).exit_code == 0
    again = CliRunner().invoke(train, arguments)
    assert again.exit_code == 2 and "--force" in again.output
    assert CliRunner().invoke(train, arguments + ["--force"]).exit_code == 0


def test_unknown_corpus_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(train, ["prepare", "--corpora", "reuters,nope", "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown corpus 'nope'" in result.output and "reuters, bbc, wiki" in result.output


def test_missing_data_folder_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("COHERENCE_METRIC_DATA", str(tmp_path))
    result = CliRunner().invoke(train, ["prepare", "--corpora", "lee", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and str(tmp_path / "corpora") in errors[0]


def test_prepare_takes_the_option_names_every_command_uses_and_refuses_the_old_ones(shared_data, tmp_path,
                                                                                    monkeypatch):
    """-o/--output and --quiet, as score, compare and benchmark spell them; the old --out and --no-progress are gone."""
    monkeypatch.setenv("COHERENCE_METRIC_DATA", str(shared_data))
    new = CliRunner().invoke(train, ["prepare", "--corpora", "lee", "-o", str(tmp_path / "new"), "--limit-docs", "3",
                                     "--quiet"])
    assert new.exit_code == 0, new.output
    assert (tmp_path / "new" / "manifest.json").is_file()
    for old in (["--out", str(tmp_path / "old")], ["-o", str(tmp_path / "old"), "--no-progress"]):
        result = CliRunner().invoke(train, ["prepare", "--corpora", "lee", "--limit-docs", "3", *old])
        assert result.exit_code == 2 and "No such option" in result.output
    assert not (tmp_path / "old").exists()
    assert "--no-progress" not in CliRunner().invoke(train, ["run", "--help"]).output
    assert "--quiet" in CliRunner().invoke(train, ["run", "--help"]).output
