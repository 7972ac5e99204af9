"""The Hugging Face ``evaluate`` module of the metric: ``evaluate.load(coherence_metric.integrations.hf_evaluate.
MODULE_PATH)``.

``evaluate`` loads a metric from a script (it copies the file into its module cache and imports it from there), so
the shipped script, ``coherence/coherence.py``, holds only the ``evaluate.Metric`` subclass; what it says and
computes lives here, importable and tested like the rest of the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ..registry import DEFAULT_MODEL

__all__ = ["MODULE_PATH", "compute"]

MODULE_PATH = str(Path(__file__).resolve().parent / "coherence")
"""The folder to pass to ``evaluate.load``; it holds ``coherence.py``, named after the folder as evaluate wants."""

DESCRIPTION = """A trained document-coherence metric (Jwalapuram, Joty & Lin, ACL 2022): a transformer reads each
text and a linear head gives one score. Higher is more coherent; scores are comparative and unbounded, so compare
systems on the same inputs scored with the same signature."""

CITATION = """@inproceedings{jwalapuram-etal-2022-rethinking,
    title = "Rethinking Self-Supervision Objectives for Generalizable Coherence Modeling",
    author = "Jwalapuram, Prathyusha and Joty, Shafiq and Lin, Xiang",
    booktitle = "Proceedings of ACL 2022",
    year = "2022",
}"""

INPUTS_DESCRIPTION = """
Args:
    predictions: the texts to score, each a string or a list of its sentences.
    model: "default", a packaged checkpoint's name, a checkpoint folder or a Hub repo id.
    batch_size, max_length, truncation, device, dtype: as ``coherence_metric.CoherenceScorer``.
Returns:
    scores: one score per text, in input order.
    system_score: their mean.
    signature: everything that can change the numbers; report it with them.
Examples:
    >>> import evaluate
    >>> from coherence_metric.integrations.hf_evaluate import MODULE_PATH
    >>> coherence = evaluate.load(MODULE_PATH)
    >>> result = coherence.compute(predictions=["One text. It goes on.", "Another text."])
    >>> sorted(result)
    ['scores', 'signature', 'system_score']
"""


def features() -> List[Any]:
    """Both input shapes: a text as a string, or as its list of sentences."""
    import datasets

    return [
        datasets.Features({"predictions": datasets.Value("string")}),
        datasets.Features({"predictions": datasets.Sequence(datasets.Value("string"))}),
    ]


def compute(predictions: List[Union[str, List[str]]], model: str = DEFAULT_MODEL, batch_size: int = 32,
            max_length: Optional[int] = None, truncation: str = "window", device: Optional[str] = None,
            dtype: Optional[str] = None) -> Dict[str, Any]:
    """Score ``predictions`` with the cached scorer of these settings (loaded once per process)."""
    from ..scorer import score

    result = score(predictions, model=model, batch_size=batch_size, max_length=max_length, truncation=truncation,
                   device=device, dtype=dtype)
    return {"scores": result.scores, "system_score": result.system_score, "signature": str(result.signature)}
