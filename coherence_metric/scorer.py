"""CoherenceScorer: load a checkpoint once, then score texts fast and reproducibly.

Inference path: validate -> tokenize once -> handle long texts (warn / error / window) -> sort by length
-> batches under a token budget -> ``torch.inference_mode`` forward (``dtype="auto"``: bf16 autocast where the hardware
runs it faster, fp32 elsewhere; :mod:`coherence_metric.scoring.runtime`) -> head
-> restore input order; a checkpoint with a cohesion term then adds its weight times the text's mean
adjacent-sentence cosine (:mod:`coherence_metric.scoring.sentence_pass`, in the same dtype). Each text is split into
sentences at most once per call, shared by windowing and the sentence pass. A text's score does not depend on the
batch size or on its neighbours in a batch: attention masks hide the padding and pooling reads only real tokens.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import threading
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

import torch

from .analysis.explain import explain
from .errors import InputError, NonFiniteScoreError, TruncationWarning
from .inputs.containers import as_text_list
from .inputs.empty import (
    EmptySplit,
    check_on_empty,
    errors_renamed,
    input_positions,
    split_empty_pairs,
    split_empty_texts,
)
from .inputs.texts import Document, normalise_documents, sentences_of
from .models.backbones import verified_backbone_folder
from .models.checkpoint import load_checkpoint
from .models.model import CoherenceModel
from .models.registry import DEFAULT_MODEL, resolve_model
from .results import CompareResult, ScoreResult, paired_comparison
from .scoring.batching import pad_batch, plan_batches
from .scoring.local_term import adjacent_pairs, group_by_owner, mix
from .scoring.profiling import DOCUMENT_PASS, SENTENCE_SPLIT, TOKENISE, TRANSITION_PASS, WINDOWING, StageTimes, stage
from .scoring.progress import DOCUMENTS, progress_scope, with_progress
from .scoring.runtime import autocast_context, resolve_device, resolve_dtype
from .scoring.sentence_pass import SentenceEmbedder, add_sentence_terms
from .scoring.token_ids import bounded_prefixes, token_ids
from .scoring.transition_pass import boundary_logits
from .scoring.windows import windowed_sentences
from .settings import ScorerSettings
from .signature import Signature
from .statistics.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_bootstrap_settings,
    check_sample_size,
)
from .statistics.significance import DEFAULT_TRIALS, check_trials
from .systems import compare_systems
from .version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.explain import ExplainResult
    from .systems import SystemsComparison

logger = logging.getLogger("coherence_metric")

#: Texts scored at a time within one call: memory grows with one part (its sentences, token ids and batches), not
#: with the call, so a file of a million lines needs about what its texts take plus one part. The parts give the
#: scores one call would (each text is scored alone; padding is masked), and a progress line names its part.
PART_TEXTS = 4096


@dataclass
class _Encoded:
    """Token ids to score, each tagged with the text it belongs to (several ids per text in window mode)."""

    ids: List[List[int]]
    owners: List[int]
    n_truncated: int
    n_windowed: int


def _fingerprint_module(model: torch.nn.Module) -> str:
    """A short hash of every parameter's bytes, for models that did not come from a checkpoint."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode("utf-8"))
        digest.update(tensor.detach().float().cpu().numpy().tobytes())
    return digest.hexdigest()[:12]


class CoherenceScorer:
    """Scores how coherent texts are: higher is more coherent; scores are comparative and unbounded.

    Args:
        model: ``"default"`` (an alias; signatures name the checkpoint it stands for), a packaged checkpoint
            name, a checkpoint folder (a string or a ``pathlib.Path``), or a Hub repo id.
        settings: how to load and run it (device, dtype, batch size, truncation...): a ``ScorerSettings``; None
            takes its defaults.
        **overrides: ``ScorerSettings`` fields by name, in place of those of ``settings``
            (``CoherenceScorer("default", dtype="fp32", batch_size=8)``).

    Attributes:
        settings: the settings it was built with, as given (``device``, ``dtype`` and ``max_length`` below are
            what they resolved to).
        device: the torch device it runs on.
        dtype: the compute dtype it runs in (``fp32``, ``bf16`` or ``fp16``).
        max_length: most tokens per text (the checkpoint's when the settings name none).

    Raises:
        UnknownSettingError: an override that names no setting (before anything loads).
        InputError: a setting the scorer refuses (a bad batch size, device or dtype; a ``max_length`` the
            backbone cannot take).
    """

    def __init__(
        self,
        model: Union[str, "os.PathLike[str]"] = DEFAULT_MODEL,
        *,
        settings: Optional[ScorerSettings] = None,
        **overrides: Any,
    ) -> None:
        settings = ScorerSettings.of(settings, overrides)
        self.device = resolve_device(settings.device)
        self.dtype = resolve_dtype(settings.dtype, self.device)
        resolved = resolve_model(model, revision=settings.revision, local_files_only=settings.local_files_only)
        loaded = load_checkpoint(resolved.folder, local_files_only=settings.local_files_only)
        self._setup(loaded.model, loaded.tokenizer, resolved.label, loaded.config.fingerprint())
        self._apply(settings)

    @classmethod
    def from_model(
        cls,
        model: CoherenceModel,
        tokenizer: Any,
        label: str,
        *,
        settings: Optional[ScorerSettings] = None,
        sentence_embedder: Optional[SentenceEmbedder] = None,
        **overrides: Any,
    ) -> "CoherenceScorer":
        """A scorer over an in-memory model (training's dev evaluation, the untrained-head baseline).

        The model is put in eval mode. Without ``settings``, ``dtype`` defaults to fp32 here, not ``auto``, so
        training's dev numbers (and the checkpoint chosen from them) do not depend on the machine; ``revision`` and
        ``local_files_only`` do not apply. The signature names ``label`` and a hash of the model's parameters,
        taken when the signature is first asked for, so later changes to the weights are not reflected.
        ``sentence_embedder`` lends an already loaded sentence encoder to a model with a sentence-level term
        (training scores its model many times); without it the pretrained backbone is loaded on first use.
        """
        settings = ScorerSettings.of(settings, overrides, dtype="fp32")
        scorer = cls.__new__(cls)
        scorer.device = resolve_device(settings.device)
        scorer.dtype = resolve_dtype(settings.dtype, scorer.device)
        scorer._setup(model, tokenizer, label, None, sentence_embedder)
        scorer._apply(settings)
        return scorer

    def _apply(self, settings: ScorerSettings) -> None:
        """Keep ``settings`` and the values scoring reads from them (``max_length`` checked against the model)."""
        self.settings = settings
        self.batch_size = settings.batch_size
        self.truncation = settings.truncation
        self.max_tokens_per_batch = settings.max_tokens_per_batch
        self.progress = settings.progress
        self.max_length = self._check_max_length(settings.max_length)

    def _setup(self, model: CoherenceModel, tokenizer: Any, label: str, fingerprint: Optional[str],
               sentence_embedder: Optional[SentenceEmbedder] = None) -> None:
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.model_label = label
        self._fingerprint = fingerprint
        self._sentence_embedder = sentence_embedder
        # Threads scoring with one scorer must share one encoder, not each load their own copy.
        self._sentence_embedder_lock = threading.Lock()
        self._stages: Optional[StageTimes] = None

    @property
    def sentence_embedder(self) -> SentenceEmbedder:
        """The sentence encoder of the model's sentence-level terms: its pretrained backbone, loaded on first use,
        once however many threads ask at the same time, batching under this scorer's token budget."""
        if self._sentence_embedder is None:
            with self._sentence_embedder_lock:
                if self._sentence_embedder is None:
                    with verified_backbone_folder(self.model.backbone_spec,
                                                  local_files_only=self.settings.local_files_only) as folder:
                        self._sentence_embedder = SentenceEmbedder.from_folder(
                            folder, device=self.device, max_tokens_per_batch=self.max_tokens_per_batch)
        return self._sentence_embedder

    def _add_sentence_terms(self, splits: "_Splits", scores: List[float]) -> List[float]:
        """Add the model's terms that read the texts sentence by sentence (cohesion, the sentence scorer)."""
        if self.model.cohesion_weight is None and self.model.sentence_scorer is None:
            return scores  # no sentence splitting, no encoder loaded
        return add_sentence_terms(self.model, self.sentence_embedder, splits.all(), scores, self.device,
                                  progress=self.progress, dtype=self.dtype, stages=self._stages)

    @contextlib.contextmanager
    def profile(self) -> Iterator[StageTimes]:
        """Time the stages of every call made inside the block (tokenise, sentence split, windowing, document pass,
        sentence pass) into the ``StageTimes`` it yields. For the speed suite; not meant for concurrent calls."""
        previous, self._stages = self._stages, StageTimes()
        try:
            yield self._stages
        finally:
            self._stages = previous

    @property
    def fingerprint(self) -> str:
        """Hash of the checkpoint files, or of the parameters for an in-memory model (computed when asked:
        training scores its model many times and never needs it)."""
        if self._fingerprint is None:
            self._fingerprint = _fingerprint_module(self.model)
        return self._fingerprint

    def _check_max_length(self, max_length: Optional[int]) -> int:
        limit = max_length if max_length is not None else self.model.max_length
        if not isinstance(limit, int) or limit <= self.tokenizer.num_special_tokens_to_add() + 1:
            source = "" if max_length is not None else " (the checkpoint's max_length)"  # name the value at fault
            raise InputError(f"max_length must be an integer above the special-token count, got {limit!r}{source}")
        # The loaded backbone's own type, not the checkpoint config's model_type: that field is a record, and
        # "xlnet" there switched this check off for a BERT, which then failed deep in torch on long texts.
        backbone_config = self.model.backbone.config
        positions = getattr(backbone_config, "max_position_embeddings", None)
        if getattr(backbone_config, "model_type", "") != "xlnet" and positions and limit > positions:
            raise InputError(f"max_length {limit} exceeds the backbone's {positions} positions")
        return limit

    @property
    def signature(self) -> Signature:
        """The signature of this scorer's settings (results add their truncation count)."""
        import transformers

        return Signature(
            model=self.model_label,
            fingerprint=self.fingerprint,
            pooling=self.model.pooling,
            max_length=self.max_length,
            truncation=self.truncation,
            dtype=self.dtype,
            n_truncated=0,
            library_version=__version__,
            transformers_version=transformers.__version__,
            torch_version=torch.__version__.split("+")[0],
        )

    # ----------------------------------------------------------------------------------------- public API

    def score(self, texts: Union[str, Iterable[Any]], *, on_empty: str = "error") -> ScoreResult:
        """Score texts: a string, or a list (tuple, generator, 1-D numpy array, pandas Series, any ordered iterable)
        of texts, each a string or a list of sentences (joined with spaces).

        Args:
            texts: the texts.
            on_empty: what an empty text (None, a missing value (NaN/NA), or a string or sentence list of whitespace
                or invisible characters only; the CLI's test) does: ``"error"`` (the default) refuses the call,
                naming every empty text; ``"skip"`` leaves them out (``result.indices`` is each score's input
                position); ``"nan"`` gives them a NaN score, left out of ``system_score``. Under skip and nan one
                ``EmptyTextWarning`` says how many, and ``result.empty`` lists their positions.

        Returns:
            A ScoreResult with one score per text in input order (under skip: per non-empty text), the mean, the
            truncation counts and the signature.

        Raises:
            InputError: an empty text (under ``"error"``), texts that are all empty, a wrong type, an unknown
                ``on_empty``, or (with ``truncation="error"``) a text too long.
        """
        documents = as_text_list(texts, keep_missing=True)
        split = split_empty_texts(documents, on_empty, stacklevel=3)
        return self._score_split(documents, split)

    def _score_split(self, documents: List[Any], split: EmptySplit) -> ScoreResult:
        """Score the texts ``split`` keeps, errors naming them by their place in ``documents``, and put the empty ones
        back as ``split.on_empty`` says."""
        if not split.empty:
            return replace(self._score_documents(documents), on_empty=split.on_empty)
        with errors_renamed(input_positions(split.kept)):
            result = self._score_documents([documents[position] for position in split.kept])
        if split.on_empty == "skip":
            return replace(result, on_empty="skip", empty=list(split.empty))
        transitions: Optional[List[List[float]]] = None
        if result.transitions is not None:
            transitions = [[] for _ in documents]  # an empty text has no sentence pairs
            for row, position in enumerate(split.kept):
                transitions[position] = result.transitions[row]
        return replace(result, scores=_with_nan(result.scores, split.kept, len(documents)), transitions=transitions,
                       on_empty="nan", empty=list(split.empty))

    def _score_documents(self, documents: List[Any]) -> ScoreResult:
        """Score non-empty texts (each checked; an empty one is refused, as ``normalise_documents`` says), at most
        :data:`PART_TEXTS` at a time, so that memory grows with one part (its sentences, token ids and batches), not
        with the whole call; the parts' results are joined, and cut texts are warned of once."""
        if len(documents) <= PART_TEXTS:
            parts = [self._score_part(documents)]
        else:
            parts = []
            for start in range(0, len(documents), PART_TEXTS):
                positions = list(range(start, min(start + PART_TEXTS, len(documents))))
                with errors_renamed(input_positions(positions)), \
                        progress_scope(f"part {start // PART_TEXTS + 1} of {-(-len(documents) // PART_TEXTS)}"):
                    parts.append(self._score_part(documents[positions[0]:positions[-1] + 1]))
        n_truncated = sum(part.n_truncated for part in parts)
        n_windowed = sum(part.n_windowed for part in parts)
        if n_truncated:
            warnings.warn(
                f"{n_truncated} of {len(documents)} texts were longer than max_length={self.max_length} "
                "tokens and were cut"
                + ("; use truncation='window' (CLI: --truncation window) to score them whole"
                   if self.truncation == "warn"
                   else " (a single sentence longer than max_length)"),
                TruncationWarning,
                stacklevel=4,  # the user's call: score or compare, then _score_split or _compare_split, then here
            )
        transitions = None
        if parts[0].transitions is not None:
            transitions = [row for part in parts for row in (part.transitions or [])]
        return ScoreResult(
            scores=[value for part in parts for value in part.scores],
            n_truncated=n_truncated,
            n_windowed=n_windowed,
            signature=self.signature.with_truncated(n_truncated, n_windowed),
            transitions=transitions,
        )

    def _score_part(self, documents: List[Any]) -> ScoreResult:
        """Score one part of a call's texts (:meth:`_score_documents`)."""
        joined = normalise_documents(documents)
        splits = _Splits(list(documents), self._stages)
        encoded = self._encode(splits, joined)
        local_weight = self.model.local_weight
        pairs = self._encode_pairs(splits) if local_weight is not None else _Encoded([], [], 0, 0)
        unit_scores = self._score_ids(encoded.ids + pairs.ids)  # one length-sorted pass for texts and pairs
        totals = [0.0] * len(joined)
        counts = [0] * len(joined)
        for owner, value in zip(encoded.owners, unit_scores):
            totals[owner] += value
            counts[owner] += 1
        scores = [total / count for total, count in zip(totals, counts)]
        transitions = None
        if local_weight is not None:
            transitions = group_by_owner(unit_scores[len(encoded.ids):], pairs.owners, len(joined))
            scores = mix(scores, transitions, float(local_weight))
        scores = self._add_sentence_terms(splits, scores)
        term = self.model.transition_term
        if term is not None:  # a checkpoint has a local term or a transition term, never both (format 5 references)
            with stage(self._stages, TRANSITION_PASS):
                transitions = boundary_logits(splits.all(), term, self.device, self.dtype,
                                              local_files_only=self.settings.local_files_only)
            scores = mix(scores, transitions, term.weight)
        self._refuse_non_finite(scores)
        return ScoreResult(
            scores=scores,
            n_truncated=encoded.n_truncated,
            n_windowed=encoded.n_windowed,
            signature=self.signature.with_truncated(encoded.n_truncated, encoded.n_windowed),
            transitions=transitions,
        )

    def compare(
        self,
        a: Union[Document, Iterable[Any]],
        b: Union[Document, Iterable[Any]],
        bootstrap_resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        randomization_trials: int = DEFAULT_TRIALS,
        *,
        on_empty: str = "error",
    ) -> CompareResult:
        """Compare two texts, or two systems' outputs on the same inputs (two equal-length lists).

        Args:
            a: a string, or a list (any ordered iterable, numpy array, pandas Series) of texts, each a string or
                a list of sentences, for system A.
            b: the same shape as ``a``.
            bootstrap_resamples: resamples of the paired bootstrap (paired comparisons only, of at least 2 inputs),
                1 to 1,000,000.
            seed: the bootstrap's seed, 0 to 2**63 - 1; it goes into the signature.
            randomization_trials: trials of the approximate randomization test (paired comparisons only), 1 to
                1,000,000; it goes into the signature.
            on_empty: for two lists, what an input whose text is empty on either side does (a pair needs both texts;
                empty as ``score`` says): ``"error"`` (the default) refuses, naming every such input; ``"skip"``
                leaves it out of the result (``result.indices``: the inputs kept); ``"nan"`` keeps it with NaN
                scores and the ``pair_winners`` entry ``"empty"``. Either way it is left out of every mean, win
                rate, interval and p-value, ``result.empty`` lists it, and one ``EmptyTextWarning`` says how many.
                Two single texts, one of them empty, are always refused: there is nothing to compare.

        Scores within the dtype's tie tolerance (1e-5 in fp32, 1e-2 in bf16 and fp16;
        :mod:`coherence_metric.statistics.ties`)
        of each other are a tie, per pair and for the winner. A paired
        comparison carries two-sided p-values that the systems differ (paired bootstrap and approximate
        randomization, :mod:`coherence_metric.statistics.significance`).
        """
        if isinstance(a, str) != isinstance(b, str):
            raise InputError("compare needs two texts or two lists of texts, not one of each")
        paired = not isinstance(a, str)
        if paired and not (isinstance(a, Iterable) and isinstance(b, Iterable)):
            raise InputError(f"compare takes strings or lists of texts, got {type(a).__name__} and {type(b).__name__}")
        bootstrap_resamples, seed = check_bootstrap_settings(bootstrap_resamples, seed)
        randomization_trials = check_trials(randomization_trials)
        check_on_empty(on_empty)
        if not paired:
            result = self._score_documents([a, b])
            return CompareResult(result.scores[:1], result.scores[1:], result.signature, paired=False,
                                 n_truncated=result.n_truncated)
        side_a: List[Any] = as_text_list(a, keep_missing=True)
        side_b: List[Any] = as_text_list(b, keep_missing=True)
        if len(side_a) != len(side_b):
            raise InputError(
                f"system A has {len(side_a)} texts and system B has {len(side_b)}: a paired comparison "
                "needs the same number of texts, in the same input order"
            )
        check_sample_size(len(side_a))
        split = split_empty_pairs(side_a, side_b, on_empty, stacklevel=3)
        return self._compare_split(side_a, side_b, split, bootstrap_resamples, seed, randomization_trials)

    def _compare_split(self, side_a: List[Any], side_b: List[Any], split: EmptySplit, bootstrap_resamples: int,
                       seed: int, randomization_trials: int) -> CompareResult:
        """The paired comparison of the inputs ``split`` keeps; errors name A's text i ``text i`` and B's ``text
        n+i``, as in the one list of both sides that is scored."""
        kept = split.kept
        if split.empty:
            check_sample_size(len(kept))
        count = len(side_a)
        with errors_renamed(input_positions(kept + [count + position for position in kept])):
            result = self._score_documents([side_a[position] for position in kept] +
                                           [side_b[position] for position in kept])
        scores_a, scores_b = result.scores[: len(kept)], result.scores[len(kept):]
        compared = paired_comparison(scores_a, scores_b, result.signature, result.n_truncated, bootstrap_resamples,
                                     seed, randomization_trials)
        if split.on_empty == "nan" and split.empty:
            scores_a, scores_b = _with_nan(scores_a, kept, count), _with_nan(scores_b, kept, count)
        return replace(compared, scores_a=scores_a, scores_b=scores_b, on_empty=split.on_empty,
                       empty=list(split.empty))

    def compare_systems(
        self,
        systems: Mapping[str, Iterable[Any]],
        bootstrap_resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        randomization_trials: int = DEFAULT_TRIALS,
    ) -> "SystemsComparison":
        """Compare N systems' outputs on the same inputs: ``{"name": [text for input 1, text for input 2, ...]}``.

        Returns a ``SystemsComparison``: each system's ``ScoreResult`` with ``system_score_interval``, a ranking,
        and every pair's win rate, mean difference, paired-bootstrap intervals and p-values (paired bootstrap and
        approximate randomization, as sacrebleu), all seeded by ``seed``.

        Raises:
            InputError: fewer than 2 systems, different numbers of texts, a bad text (named with its system),
                or settings out of range.
        """
        return compare_systems(self, systems, bootstrap_resamples, randomization_trials, seed)

    def explain(self, texts: Union[str, Iterable[Any]], mechanism: str = "auto", flagged: int = 1) -> "ExplainResult":
        """Where each text breaks: its sentences, one score per transition between adjacent sentences, at most
        ``flagged`` sentences flagged (only those whose evidence of a kind of break passes the dev-set threshold, each
        with its kind; none on a text with no break found), and the text's score
        (:mod:`coherence_metric.analysis.explain`).

        ``mechanism="auto"`` uses the checkpoint's local (sentence-pair) term where it has one, else the fallback
        the localisation benchmark chose; the result and its signature (``trans:NAME``) name what ran. A
        one-sentence text has no transitions (empty lists and a ``note``).

        Raises:
            InputError: an empty or badly typed text, an unknown mechanism, or ``flagged`` below 1.
        """
        return explain(self, texts, mechanism=mechanism, flagged=flagged)

    # ------------------------------------------------------------------------------------------ internals

    def _tokenize(self, texts: List[str], truncate: bool = False) -> List[List[int]]:
        with stage(self._stages, TOKENISE):
            if not truncate:
                return token_ids(self.tokenizer, texts)
            encoded = self.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=self.max_length,
                                     verbose=False)
            return [list(ids) for ids in encoded["input_ids"]]

    def _refuse_special_only(self, joined: List[str], ids: List[List[int]]) -> None:
        """Refuse a text of which the tokenizer kept nothing (combining marks an uncased tokenizer strips, say):
        the model would score the bare special tokens, the same number for every such text. [UNK] is content."""
        special = set(self.tokenizer.all_special_ids) - {self.tokenizer.unk_token_id}
        for position, sequence in enumerate(ids):
            if all(token in special for token in sequence):
                raise InputError(f"text {position} tokenises to special tokens only ({ascii(joined[position][:40])}): "
                                 "there is nothing to score")

    def _encode(self, splits: "_Splits", joined: List[str]) -> _Encoded:
        # A text of megabytes is read only as far as max_length needs: the same ids, bounded time and memory.
        joined = bounded_prefixes(self.tokenizer, joined, self.max_length)
        ids = self._tokenize(joined)
        self._refuse_special_only(joined, ids)
        too_long = [index for index, sequence in enumerate(ids) if len(sequence) > self.max_length]
        if too_long and self.truncation == "error":
            first = too_long[0]
            raise InputError(
                f"{len(too_long)} text(s) exceed max_length={self.max_length} tokens (text {first} has "
                f"{len(ids[first])}): pass truncation='window' or 'warn', or a larger max_length (CLI: --truncation "
                "window or warn, --max-length N)"
            )
        if not too_long:
            return _Encoded(ids, list(range(len(ids))), 0, 0)
        if self.truncation == "warn":
            cut = self._tokenize([joined[index] for index in too_long], truncate=True)
            for index, sequence in zip(too_long, cut):
                ids[index] = sequence
            return _Encoded(ids, list(range(len(ids))), len(too_long), 0)
        return self._encode_windows(splits, ids, too_long)

    def _encode_windows(self, splits: "_Splits", ids: List[List[int]], too_long: List[int]) -> _Encoded:
        budget = self.max_length - self.tokenizer.num_special_tokens_to_add()
        long_set = set(too_long)
        units = [sequence for index, sequence in enumerate(ids) if index not in long_set]
        owners = [index for index in range(len(ids)) if index not in long_set]
        # A sentence longer than a window is a window of its own, cut at max_length: its bounded prefix gives the
        # same window and the same ids.
        sentences = [bounded_prefixes(self.tokenizer, splits.get(index), self.max_length) for index in too_long]
        flat = [sentence for document in sentences for sentence in document]
        with stage(self._stages, TOKENISE):
            # One batched call for every long text's sentences. verbose=False: a sentence over the tokenizer's
            # model_max_length is cut below and counted in n_truncated; transformers' own "(3001 > 512) ...
            # indexing errors" line would only alarm.
            lengths = [len(piece) for piece in token_ids(self.tokenizer, flat, add_special_tokens=False)]
        with stage(self._stages, WINDOWING):
            windows, owned_by = windowed_sentences(sentences, lengths, budget)
            window_texts = [" ".join(window) for window in windows]
            window_owners = [too_long[owner] for owner in owned_by]
        window_ids = self._tokenize(window_texts)
        n_truncated = 0
        over = [position for position, sequence in enumerate(window_ids) if len(sequence) > self.max_length]
        if over:  # a single sentence longer than max_length, or joining added a few tokens
            cut = self._tokenize([window_texts[position] for position in over], truncate=True)
            for position, sequence in zip(over, cut):
                window_ids[position] = sequence
            n_truncated = len({window_owners[position] for position in over})
        return _Encoded(units + window_ids, owners + window_owners, n_truncated, len(too_long))

    def _encode_pairs(self, splits: "_Splits") -> _Encoded:
        """Token ids of every adjacent sentence pair of every text (the local term), each pair a two-sentence text;
        a pair longer than ``max_length`` (two very long sentences) is cut, as ``truncation="warn"`` would."""
        texts, owners = adjacent_pairs(splits.all())
        if not texts:
            return _Encoded([], [], 0, 0)
        ids, cut = self._tokenize_cutting(texts)
        return _Encoded(ids, owners, cut, 0)

    def _tokenize_cutting(self, texts: List[str]) -> Tuple[List[List[int]], int]:
        """Token ids of short texts (sentence pairs), each longer than ``max_length`` cut to it (two very long
        sentences), and how many were cut. Pairs are never windowed: a pair is the unit a transition score reads."""
        ids = self._tokenize(texts)
        over = [position for position, sequence in enumerate(ids) if len(sequence) > self.max_length]
        if over:
            for position, sequence in zip(over, self._tokenize([texts[position] for position in over], truncate=True)):
                ids[position] = sequence
        return ids, len(over)

    def _refuse_non_finite(self, scores: List[float]) -> None:
        """A NaN or infinite score is never reported: it would read as a tie, or as a bare ``NaN`` in JSON."""
        for position, value in enumerate(scores):
            if not math.isfinite(value):
                # fp32 is the remedy for a bf16/fp16 overflow; in fp32 itself the weights are what is wrong
                cause = ("the checkpoint is broken: its weights hold NaN/inf (a diverged training run or a damaged "
                         "file); re-download or retrain it" if self.dtype == "fp32" else
                         f"the model's weights hold NaN/inf or {self.dtype} overflowed: try dtype='fp32' (CLI: "
                         "--dtype fp32)")
                raise NonFiniteScoreError(f"text {position} got a non-finite score ({value}) from {self.model_label} "
                                          f"in {self.dtype}: {cause}; no result is reported")

    def _head(self, vectors: torch.Tensor) -> torch.Tensor:
        """The head on pooled vectors, outside autocast: in bf16 the score itself would be rounded to 8 significant
        bits (steps of 0.03 at |score| 4-8, more than all the encoder's bf16 rounding moves it)."""
        head = self.model.head
        if self.dtype == "fp32":
            return head(vectors.to(head.weight.dtype)).squeeze(-1).float()
        with torch.autocast(device_type=self.device.type, enabled=False):
            return head(vectors.to(head.weight.dtype)).squeeze(-1).float()

    def _score_ids(self, ids: List[List[int]]) -> List[float]:
        """One score per token sequence. Each distinct sequence is scored once and its score reused, and a batch
        holds sequences of one padded length only (:mod:`coherence_metric.scoring.batching`), so a text's score does not
        depend on the texts beside it: a text compared with itself is a tie in every dtype."""
        distinct: Dict[Tuple[int, ...], int] = {}
        for sequence in ids:
            distinct.setdefault(tuple(sequence), len(distinct))
        unique = list(distinct)
        values: List[float] = [0.0] * len(unique)
        batches = plan_batches([len(sequence) for sequence in unique], self.max_tokens_per_batch, self.batch_size,
                               limit=self.max_length)
        outputs: List[torch.Tensor] = []
        with stage(self._stages, DOCUMENT_PASS), torch.inference_mode(), autocast_context(self.dtype, self.device):
            for batch in with_progress(batches, self.progress, DOCUMENTS, len(batches)):
                padded = pad_batch(self.tokenizer, [unique[index] for index in batch], limit=self.max_length)
                vectors = self.model.document_vectors(padded["input_ids"].to(self.device),
                                                      padded["attention_mask"].to(self.device))
                outputs.append(self._head(vectors))
            # One copy to the host at the end, not one per batch: on a GPU each copy waits for its batch, so the
            # host could not pad the next batch while the device ran this one.
            flat = torch.cat(outputs).cpu().tolist() if outputs else []
        for index, value in zip((index for batch in batches for index in batch), flat):
            values[index] = float(value)
        return [values[distinct[tuple(sequence)]] for sequence in ids]


def _with_nan(scores: List[float], kept: List[int], count: int) -> List[float]:
    """``count`` scores: ``scores`` at the ``kept`` positions, NaN at the others (the empty texts)."""
    values = [math.nan] * count
    for value, position in zip(scores, kept):
        values[position] = value
    return values


class _Splits:
    """Each text's sentences, split at most once per call (windowing and the sentence pass both read them)."""

    def __init__(self, documents: List[Any], stages: Optional[StageTimes]) -> None:
        self.documents = documents
        self.stages = stages
        self._split: Dict[int, List[str]] = {}

    def get(self, index: int) -> List[str]:
        """The sentences of text ``index``."""
        if index not in self._split:
            with stage(self.stages, SENTENCE_SPLIT):
                self._split[index] = sentences_of(self.documents[index])
        return self._split[index]

    def all(self) -> List[List[str]]:
        """The sentences of every text, in input order."""
        return [self.get(index) for index in range(len(self.documents))]


_CACHE_SIZE = 4
_cached: Dict[Tuple[Any, ...], CoherenceScorer] = {}
_cache_lock = threading.Lock()  # guards _cached and _build_locks; never held while a model loads
_build_locks: Dict[Tuple[Any, ...], threading.Lock] = {}  # one per setting being built


def _cache_lookup(key: Tuple[Any, ...]) -> Optional[CoherenceScorer]:
    """The cached scorer for ``key``, marked as the most recently used, or None."""
    with _cache_lock:
        scorer = _cached.pop(key, None)
        if scorer is not None:
            _cached[key] = scorer
        return scorer


def _cache_store(key: Tuple[Any, ...], scorer: CoherenceScorer) -> None:
    """Keep ``scorer`` as the most recently used, dropping the oldest beyond _CACHE_SIZE."""
    with _cache_lock:
        _cached.pop(key, None)
        _cached[key] = scorer
        while len(_cached) > _CACHE_SIZE:
            _cached.pop(next(iter(_cached)))


def get_scorer(
    model: Union[str, "os.PathLike[str]"] = DEFAULT_MODEL,
    *,
    settings: Optional[ScorerSettings] = None,
    **overrides: Any,
) -> CoherenceScorer:
    """A scorer for this model and these settings (``CoherenceScorer``'s arguments: a ``ScorerSettings`` and/or its
    fields by name), built once and reused (bert_score rebuilt its model on every call).

    Keeps the last few distinct settings; the oldest is dropped first. Thread-safe: threads asking for the same
    settings on a cold cache wait for one build (four threads used to load four models); other settings build
    at the same time.
    """
    settings = ScorerSettings.of(settings, overrides)
    key = (model, settings)
    scorer = _cache_lookup(key)
    if scorer is not None:
        return scorer
    with _cache_lock:
        build_lock = _build_locks.setdefault(key, threading.Lock())
    with build_lock:
        try:
            scorer = _cache_lookup(key)  # built by the thread this one waited for
            if scorer is None:
                scorer = CoherenceScorer(model, settings=settings)
                _cache_store(key, scorer)
        finally:
            with _cache_lock:
                if _build_locks.get(key) is build_lock:
                    del _build_locks[key]
    return scorer


def score(
    texts: Union[str, Iterable[Any]],
    model: Union[str, "os.PathLike[str]"] = DEFAULT_MODEL,
    *,
    on_empty: str = "error",
    settings: Optional[ScorerSettings] = None,
    **overrides: Any,
) -> ScoreResult:
    """Score texts with a cached ``CoherenceScorer`` of this model and these settings (a ``ScorerSettings`` and/or
    its fields by name: ``score(texts, dtype="fp32", batch_size=8)``); see ``CoherenceScorer.score``, ``on_empty``
    included. The texts are checked before a model is loaded, so bad input fails at once."""
    documents = as_text_list(texts, keep_missing=True)
    split = split_empty_texts(documents, on_empty, stacklevel=3)
    _check_kept(documents, split)
    return get_scorer(model, settings=settings, **overrides)._score_split(documents, split)


def compare(
    a: Union[Document, Iterable[Any]],
    b: Union[Document, Iterable[Any]],
    model: Union[str, "os.PathLike[str]"] = DEFAULT_MODEL,
    bootstrap_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    *,
    randomization_trials: int = DEFAULT_TRIALS,
    on_empty: str = "error",
    settings: Optional[ScorerSettings] = None,
    **overrides: Any,
) -> CompareResult:
    """Compare with a cached ``CoherenceScorer`` of this model and these settings (a ``ScorerSettings`` and/or its
    fields by name); see ``CoherenceScorer.compare``, ``on_empty`` included. Strings and lists are checked before a
    model is loaded, so bad input fails at once."""
    check_on_empty(on_empty)
    if isinstance(a, str) and isinstance(b, str):
        normalise_documents([a, b])  # as CoherenceScorer.compare scores them: A is text 0, B text 1
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        side_a, side_b = as_text_list(a, keep_missing=True), as_text_list(b, keep_missing=True)
        if len(side_a) == len(side_b):  # else compare names the lengths
            split = split_empty_pairs(side_a, side_b, on_empty, stacklevel=None)  # the scorer's compare warns
            both_sides = split.kept + [len(side_a) + position for position in split.kept]  # B's text i is n+i
            _check_kept(side_a + side_b, replace(split, kept=both_sides))
    scorer = get_scorer(model, settings=settings, **overrides)
    return scorer.compare(a, b, bootstrap_resamples=bootstrap_resamples, seed=seed,
                          randomization_trials=randomization_trials, on_empty=on_empty)


def _check_kept(documents: List[Any], split: EmptySplit) -> None:
    """Check the texts ``split`` keeps (types, sentences, Unicode) before a model loads, errors naming each by its
    position in ``documents``."""
    with errors_renamed(input_positions(split.kept)):
        normalise_documents([documents[position] for position in split.kept])
