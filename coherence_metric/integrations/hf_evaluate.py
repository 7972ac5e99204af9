"""The Hugging Face ``evaluate`` module of the metric: ``evaluate.load(coherence_metric.integrations.hf_evaluate.
MODULE_PATH)``.

``evaluate`` loads a metric from a script (it copies the file into its module cache and imports it from there), so
the shipped script, ``coherence/coherence.py``, holds only the ``evaluate.Metric`` subclass; what it says and
computes lives here, importable and tested like the rest of the package.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ..errors import InputError
from ..inputs.containers import as_text_list
from ..inputs.empty import check_on_empty, empty_refusal, errors_renamed, find_empty, input_positions
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
    on_empty: what an empty prediction (None, NaN, or whitespace or invisible characters only) does: "error"
        (the default) refuses the compute, naming every one, and keeps what was added; "skip" leaves them out;
        "nan" scores them NaN, left out of system_score. Both warn how many.
    any other keyword: a setting of the scorer, as ``coherence_metric.ScorerSettings`` (device, dtype,
        batch_size, max_length, truncation...).
Returns:
    scores: one score per text, in input order (under "skip": per non-empty text; under "nan": NaN for an empty
        one).
    system_score: their mean (over the non-empty texts).
    signature: everything that can change the numbers; report it with them.
    on_empty, empty: under "skip" and "nan", the option and the positions of the empty predictions.
    indices: under "skip", the position of each score among the predictions.
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


@dataclass
class CheckedBatch:
    """A batch of predictions the ledger accepted: their kind, how many, the empty ones (position among every text
    since the last ``compute`` -> named with its reason), and the batch as evaluate is to write it."""

    kind: str
    count: int
    empty: Dict[int, str]
    written: List[Any]


class PredictionLedger:
    """What the module has accepted since its last ``compute``: how many texts, of which kind, and which were empty.

    evaluate checks only a batch's first element against the declared features and casts the rest: a NaN became
    the string "nan", a sentence list after a string its Python repr, a string after a sentence list a list of
    characters, and a bad row written before the failure stayed for the next ``compute``. So every row is checked
    here, before evaluate writes any of the batch, and all texts up to ``compute`` must be of one kind. Empty
    predictions are accepted here and written in the batch's kind ("" among strings, [] among sentence lists, so
    evaluate neither casts them into text nor picks the other kind from them); ``compute``'s ``on_empty`` decides.
    """

    def __init__(self) -> None:
        self.count = 0
        self.kind: Optional[str] = None
        self.empty: Dict[int, str] = {}

    def check(self, predictions: Any) -> CheckedBatch:
        """Check every text in ``predictions``: an InputError names the first bad one by its position among all
        texts added since the last ``compute``; nothing is recorded."""
        if predictions is None:
            raise InputError("no predictions: pass predictions=[...] (the texts to score)")
        if isinstance(predictions, str):  # evaluate iterates it: predictions="Hello." gave six scores, one a letter
            raise InputError(bare_string_message(predictions))
        try:
            items = as_text_list(predictions, first_position=self.count, keep_missing=True)
            if not items:
                raise InputError("predictions is empty: there is nothing to score")
            empty = find_empty(items, self.count)
            kept = [position for position in range(self.count, self.count + len(items)) if position not in empty]
            if kept:  # a batch of empty texts only is for compute's on_empty
                with errors_renamed(input_positions(kept)):
                    normalise_documents([items[position - self.count] for position in kept])
        except InputError as error:
            message = str(error)
            raise InputError(message if message.startswith("predictions") else f"predictions: {message}") from None
        kind = self._kind(items, kept)
        written = [item if position not in empty else _empty_as(kind, item)
                   for position, item in enumerate(items, start=self.count)]
        return CheckedBatch(kind, len(items), empty, written)

    def _kind(self, items: List[Any], kept: List[int]) -> str:
        """The one kind of the non-empty texts (a batch of empty ones only takes the kind before it, else strings),
        or an InputError naming the first text of the other kind."""
        kinds = {position: TEXT if isinstance(items[position - self.count], str) else SENTENCES for position in kept}
        kind = self.kind or next(iter(kinds.values()), TEXT)
        for position, item_kind in kinds.items():
            if item_kind != kind:
                before = (f"the texts before it are {_PLURALS[kind]}" if self.kind
                          else f"text {kept[0]} is {kind}")
                raise InputError(f"predictions mix strings and sentence lists: text {position} is {item_kind} but "
                                 f"{before}; pass every text the same way")
        return kind

    def record(self, batch: CheckedBatch) -> None:
        """Count a batch that evaluate has written."""
        self.count += batch.count
        self.kind = batch.kind
        self.empty.update(batch.empty)

    def refuse_empty(self, predictions: Any, on_empty: str) -> None:
        """Under ``on_empty="error"``, refuse a ``compute`` when any text added (or in ``predictions``) is empty,
        naming every one, before evaluate consumes what was added: ``compute(on_empty="skip")`` still has it."""
        check_on_empty(on_empty)
        if on_empty != "error":
            return
        found = dict(self.empty)
        if predictions is not None:
            found.update(self.check(predictions).empty)
        if found:
            raise empty_refusal(list(found.values()), prefix="predictions: ")

    def reset(self) -> None:
        """Forget what was added (``compute`` consumed it)."""
        self.count = 0
        self.kind = None
        self.empty = {}


def _empty_as(kind: str, item: Any) -> Any:
    """An empty prediction as evaluate is to write it in a batch of ``kind``: "" among strings (evaluate refuses a
    batch whose first string is None; a NaN written as a string would be scored as the word "nan"), [] among
    sentence lists."""
    if kind == TEXT:
        return item if isinstance(item, str) else ""
    return item if isinstance(item, list) else []


def features() -> List[Any]:
    """Both input shapes: a text as a string, or as its list of sentences."""
    import datasets

    return [
        datasets.Features({"predictions": datasets.Value("string")}),
        datasets.Features({"predictions": datasets.Sequence(datasets.Value("string"))}),
    ]


def compute(predictions: List[Union[str, List[str], None]], model: str = DEFAULT_MODEL, on_empty: str = "error",
            **settings: Any) -> Dict[str, Any]:
    """Score ``predictions`` with the cached scorer of these settings (``coherence_metric.ScorerSettings`` fields
    by name: ``dtype="fp32"``, ``batch_size=32``), loaded once per process; ``on_empty`` as
    ``coherence_metric.score`` takes it (under skip and nan the result adds ``on_empty``, ``empty`` and, under skip,
    ``indices``, as ``ScoreResult.to_dict`` does)."""
    from ..results import empty_fields
    from ..scorer import score

    result = score(predictions, model=model, on_empty=on_empty, **settings)
    return {"scores": result.scores, "system_score": result.system_score, "signature": str(result.signature),
            **empty_fields(result.on_empty, result.empty, result.indices)}
