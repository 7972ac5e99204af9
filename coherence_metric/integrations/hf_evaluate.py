"""The Hugging Face ``evaluate`` module of the metric: ``evaluate.load(coherence_metric.integrations.hf_evaluate.
MODULE_PATH)``.

``evaluate`` loads a metric from a script (it copies the file into its module cache and imports it from there), so
the shipped script, ``coherence/coherence.py``, holds only the ``evaluate.Metric`` subclass; what it says and
computes lives here, importable and tested like the rest of the package.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ..errors import InputError
from ..inputs.containers import as_text_list
from ..inputs.texts import normalise_documents
from ..models.registry import DEFAULT_MODEL

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
    predictions: the texts to score, each a string or a list of its sentences (one kind for all of them).
    references: not used (the metric is reference-free); a warning says so.
    model: "default", a packaged checkpoint's name, a checkpoint folder or a Hub repo id.
    any other keyword: a setting of the scorer, as ``coherence_metric.ScorerSettings`` (device, dtype,
        batch_size, max_length, truncation...).
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


REFERENCES_IGNORED = ("coherence is reference-free: references= is ignored (the scores read the predictions "
                      "only)")
"""The one-line warning when references are passed; a refusal would break ``evaluate.combine`` with reference-based
metrics, which hands every module the same references."""

TEXT, SENTENCES = "a string", "a list of sentences"
_PLURALS = {TEXT: "strings", SENTENCES: "lists of sentences"}


def warn_if_references(references: Any) -> None:
    """Say once per call that ``references`` change nothing, instead of ignoring them without a word."""
    if references is not None:
        warnings.warn(REFERENCES_IGNORED, UserWarning, stacklevel=3)


def bare_string_message(text: str) -> str:
    """The one-line refusal of ``predictions="..."``: evaluate treats a string as a sequence, so each character
    would be scored as a text. ``add(prediction="...")`` takes one text; ``predictions`` wants a list."""
    short = len(text) <= 40
    preview = repr(text if short else text[:37] + "...")
    example = f"predictions=[{preview}]" if short else "predictions=[text]"
    return (f"predictions is a string ({preview}), which evaluate would score character by character: pass a list "
            f"of texts, e.g. {example}")


class PredictionLedger:
    """What the module has accepted since its last ``compute``: how many texts, and of which kind.

    evaluate checks only a batch's first element against the declared features and casts the rest: a NaN became
    the string "nan", a sentence list after a string its Python repr, a string after a sentence list a list of
    characters, and a bad row written before the failure stayed for the next ``compute``. So every row is checked
    here, before evaluate writes any of the batch, and all texts up to ``compute`` must be of one kind.
    """

    def __init__(self) -> None:
        self.count = 0
        self.kind: Optional[str] = None

    def check(self, predictions: Any) -> str:
        """The kind of every text in ``predictions`` (``TEXT`` or ``SENTENCES``), or an InputError naming the first
        bad one by its position among all texts added since the last ``compute``; nothing is recorded."""
        if predictions is None:
            raise InputError("no predictions: pass predictions=[...] (the texts to score)")
        if isinstance(predictions, str):  # evaluate iterates it: predictions="Hello." gave six scores, one a letter
            raise InputError(bare_string_message(predictions))
        try:
            items = as_text_list(predictions, first_position=self.count)
            if not items:
                raise InputError("predictions is empty: there is nothing to score")
            normalise_documents(items, first_position=self.count)
        except InputError as error:
            message = str(error)
            raise InputError(message if message.startswith("predictions") else f"predictions: {message}") from None
        kinds = [TEXT if isinstance(item, str) else SENTENCES for item in items]
        kind = self.kind or kinds[0]
        for position, item_kind in enumerate(kinds, start=self.count):
            if item_kind != kind:
                before = (f"the texts before it are {_PLURALS[kind]}" if self.kind
                          else f"text {self.count} is {kind}")
                raise InputError(f"predictions mix strings and sentence lists: text {position} is {item_kind} but "
                                 f"{before}; pass every text the same way")
        return kind

    def record(self, predictions: Any, kind: str) -> None:
        """Count a batch that evaluate has written."""
        self.count += len(as_text_list(predictions))
        self.kind = kind

    def reset(self) -> None:
        """Forget what was added (``compute`` consumed it)."""
        self.count = 0
        self.kind = None


def features() -> List[Any]:
    """Both input shapes: a text as a string, or as its list of sentences."""
    import datasets

    return [
        datasets.Features({"predictions": datasets.Value("string")}),
        datasets.Features({"predictions": datasets.Sequence(datasets.Value("string"))}),
    ]


def compute(predictions: List[Union[str, List[str]]], model: str = DEFAULT_MODEL, **settings: Any) -> Dict[str, Any]:
    """Score ``predictions`` with the cached scorer of these settings (``coherence_metric.ScorerSettings`` fields
    by name: ``dtype="fp32"``, ``batch_size=32``), loaded once per process."""
    from ..scorer import score

    result = score(predictions, model=model, **settings)
    return {"scores": result.scores, "system_score": result.system_score, "signature": str(result.signature)}
