"""Order and truncation on SummEval's summaries
(``python -m coherence_metric.benchmarks.paper.summeval_order_truncation``): the report MODELS.md's cards and the
landing page's known limits are written from, made with a tiny checkpoint."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from coherence_metric.benchmarks.paper import summeval_order_truncation as order
from coherence_metric.research.permutations import negative_orders

TEXTS = [["The storm reached the coast.", "Schools closed early.", "Roads flooded by noon."],
         ["A new bridge opened.", "Traffic eased at once.", "Shops near it reported more customers.", "Rents rose."]]


def test_a_shuffle_is_seeded_per_summary_and_reads_differently() -> None:
    first = negative_orders(TEXTS[1], 1, random.Random(f"{order.SEED}:1"))[0]
    assert first == negative_orders(TEXTS[1], 1, random.Random(f"{order.SEED}:1"))[0]
    assert list(first) != list(range(len(TEXTS[1])))
    assert order.win_credit(1.0, 0.0) == 1.0 and order.win_credit(0.0, 0.0) == 0.5 and order.win_credit(0.0, 1.0) == 0


def test_the_report_has_one_entry_per_model_in_fp32(bert_checkpoint: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(order, "summaries", lambda: TEXTS)
    order.main([str(bert_checkpoint), "--out", str(tmp_path / "reports" / "summeval-order-truncation.json")])
    written = json.loads((tmp_path / "reports" / "summeval-order-truncation.json").read_text(encoding="utf-8"))
    assert [entry["model"] for entry in written] == [str(bert_checkpoint)]
    entry = written[0]
    assert entry["n"] == 2 and "dtype:fp32" in entry["signature"]
    credits = (0.0, 0.25, 0.5, 0.75, 1.0)  # two summaries, a win, a tie or a loss each
    assert entry["own_shuffle"] in credits and entry["first_beats_whole"] in credits
    assert "own shuffle" in capsys.readouterr().out
