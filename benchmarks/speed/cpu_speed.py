"""The speed suite: documents per second and peak memory of our scorer against a paper-faithful reference.

The configurations score the same texts in one process, back to back:

- ``ours``: the model under test through ``CoherenceScorer`` with its defaults (tokenize once, sort by length,
  batches under a token budget, attention masks, ``dtype="auto"``: bf16 autocast on a CPU with native bf16).
- ``ours_fp32``: the same scorer in fp32, when ``ours`` runs in another dtype: the speed that dtype buys, and how far
  its scores move (``deviation``: max and mean |score difference| over the set's texts).
- ``ours_unsorted``: the same scorer called on consecutive chunks of the batch size in input order, so every
  batch pads to its longest text (what length sorting saves, visible on the mixed-length set).
- ``paper``: what the reference code does: an XLNet-base-shaped model (d_model 768, 12 layers, random weights:
  only the cost matters) plus a linear head, every input padded to 600 tokens plus ``<sep><cls>`` = 602, no
  attention mask, batch size 1, fp32. It is slow on a CPU, so it scores a small sample per set and its time for
  the whole set is extrapolated (reported as such). Since every input is 602 tokens, its cost per text does not
  depend on the text.

Beside them, per set, the **forward-only limit**: the checkpoint's document model alone on the set's own token ids,
tokenised and padded beforehand into the scorer's length-sorted batches, in ``ours``'s dtype (and in fp32): what the
encoder can do on this machine with nothing around it. Each configuration's **share** is its docs/s over that limit.
The **profile** says where each configuration's time went: tokenise, sentence split, windowing, document pass,
sentence pass, transition pass (a transition term; :mod:`coherence_metric.scoring.profiling`), and the Python between
them (the rest of the wall time).

Texts are cut deterministically from real sentences (the held-out news documents) to about 128, 256 and 512
tokens of the model's tokenizer, plus a mixed-length set. Memory: the resident set size sampled every few
milliseconds with psutil (torch allocates outside Python's heap, so tracemalloc would miss it); without psutil,
``resource.getrusage`` gives only the process's lifetime peak, a weaker number.
"""

from __future__ import annotations

import copy
import ctypes
import gc
import logging
import os
import platform
import random
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Optional, Sequence

from coherence_metric import __version__
from coherence_metric.errors import InputError
from coherence_metric.research.standins import read_news_documents
from coherence_metric.toolkit import BF16_CPU_FLAGS, STAGES, cpu_flags, pad_batch, plan_batches

from ..harness.settings import RunSettings
from ..reporting import write_speed_reports

LOGGER = logging.getLogger("coherence_metric.benchmarks")

DEFAULT_TEXTS = 1000
TARGET_TOKENS = (128, 256, 512)
MIXED_MIN_TOKENS = 32
PAPER_SAMPLE = 15
PAPER_MAX_LEN = 600
PAPER_IDS = {"pad": 5, "sep": 4, "cls": 3}  # XLNet's vocabulary ids, as the reference code uses them
#: xlnet-base-cased's shape (transformers' XLNetConfig() defaults are xlnet-large's: d_model 1024, 24 layers).
XLNET_BASE = {"vocab_size": 32000, "d_model": 768, "n_layer": 12, "n_head": 12, "d_inner": 3072}
_MB = 1024.0 * 1024.0


@dataclass
class Measurement:
    """One configuration scoring one set of texts.

    Attributes:
        n_texts: texts actually scored.
        seconds: wall time, tokenization included.
        docs_per_second: ``n_texts / seconds``.
        peak_rss_mb: highest resident set size of the process while scoring.
        rss_rise_mb: that peak minus the size just before scoring: activations and buffers.
        weights_mb: parameter bytes of the model.
        peak_memory_mb: ``weights_mb + rss_rise_mb``, the memory this configuration needs.
        extrapolated_seconds: for a sample, the time the whole set would take at the measured rate.
    """

    n_texts: int
    seconds: float
    docs_per_second: float
    peak_rss_mb: float
    rss_rise_mb: float
    weights_mb: float
    peak_memory_mb: float
    extrapolated_seconds: Optional[float] = None


class PeakMemory:
    """Context manager measuring the peak resident set size while its block runs.

    With psutil, a thread samples the RSS every ``interval`` seconds; otherwise the block's effect on
    ``ru_maxrss`` (the process's lifetime peak) is all that can be seen, which is 0 when an earlier step peaked higher.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.before_mb = 0.0
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        try:
            import psutil

            self._process: Any = psutil.Process()
        except ImportError:
            self._process = None

    @property
    def method(self) -> str:
        """How memory is measured, for the report."""
        if self._process is not None:
            return f"psutil RSS sampled every {self.interval * 1000:.0f} ms"
        return "resource.getrusage ru_maxrss (lifetime peak: rises only above earlier peaks)"

    def _rss_mb(self) -> float:
        if self._process is not None:
            return self._process.memory_info().rss / _MB
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb, self._rss_mb())

    def __enter__(self) -> "PeakMemory":
        release_free_memory()
        self.before_mb = self.peak_mb = self._rss_mb()
        if self._process is not None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
        self.peak_mb = max(self.peak_mb, self._rss_mb())

    @property
    def rise_mb(self) -> float:
        """Peak minus the size before the block."""
        return max(0.0, self.peak_mb - self.before_mb)


def release_free_memory() -> None:
    """Collect garbage and hand freed heap pages back to the OS (glibc ``malloc_trim``; a no-op elsewhere).

    Without it, memory an earlier configuration freed stays in the process and is silently reused by the next
    one, whose RSS rise then looks smaller than what it needs on its own.
    """
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def weights_mb(module: Any) -> float:
    """Return the bytes of a module's parameters and buffers in MiB."""
    total = sum(p.numel() * p.element_size() for p in module.parameters())
    total += sum(b.numel() * b.element_size() for b in module.buffers())
    return total / _MB


def measure(score: Callable[[list[str]], Any], texts: list[str], module_mb: float, total_texts: Optional[int] = None,
            warmup: int = 2) -> Measurement:
    """Time ``score(texts)`` and track the peak memory, after a short untimed warm-up.

    Args:
        score: scores a list of texts.
        texts: the texts to time.
        module_mb: the model's weights in MiB.
        total_texts: the full set's size when ``texts`` is a sample (the time is then extrapolated).
        warmup: texts scored first, untimed (first calls pay one-off allocation costs).

    Returns:
        The measurement.
    """
    if warmup:
        score(texts[:warmup])
    with PeakMemory() as memory:
        started = time.perf_counter()
        score(texts)
        seconds = max(time.perf_counter() - started, 1e-9)
    rate = len(texts) / seconds
    extrapolated = None if total_texts is None or total_texts == len(texts) else round(total_texts / rate, 2)
    return Measurement(
        n_texts=len(texts),
        seconds=round(seconds, 3),
        docs_per_second=round(rate, 3),
        peak_rss_mb=round(memory.peak_mb, 1),
        rss_rise_mb=round(memory.rise_mb, 1),
        weights_mb=round(module_mb, 1),
        peak_memory_mb=round(module_mb + memory.rise_mb, 1),
        extrapolated_seconds=extrapolated,
    )


# ------------------------------------------------------------------------------------------------- texts


class TextBuilder:
    """Cuts texts of a given token length from a pool of sentences, deterministically for a seed.

    A text starts at a random sentence, takes the following ones until the budget is reached, and is cut to
    exactly ``target - special tokens`` word pieces and decoded back to a string.
    """

    def __init__(self, tokenizer: Any, sentences: Sequence[str], seed: int = 0) -> None:
        clean = [sentence.strip() for sentence in sentences if sentence and sentence.strip()]
        if len(clean) < 2:
            raise InputError("the speed suite needs at least 2 sentences to cut texts from")
        self.tokenizer = tokenizer
        self.sentences = clean
        self.seed = seed
        self.lengths = [len(ids) for ids in tokenizer(clean, add_special_tokens=False)["input_ids"]]
        self.specials = tokenizer.num_special_tokens_to_add()

    def text(self, target: int, rng: random.Random) -> str:
        """Return one text of about ``target`` tokens (special tokens included)."""
        budget = max(1, target - self.specials)
        start = rng.randrange(len(self.sentences))
        pieces: list[str] = []
        total = 0
        index = start
        while total < budget and len(pieces) < len(self.sentences):
            pieces.append(self.sentences[index])
            total += self.lengths[index]
            index = (index + 1) % len(self.sentences)
        ids = self.tokenizer(" ".join(pieces), add_special_tokens=False)["input_ids"][:budget]
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def fixed(self, target: int, n: int) -> list[str]:
        """Return ``n`` texts of about ``target`` tokens."""
        rng = random.Random(f"{self.seed}/{target}")
        return [self.text(target, rng) for _ in range(n)]

    def mixed(self, low: int, high: int, n: int) -> list[str]:
        """Return ``n`` texts with lengths drawn uniformly from ``low``..``high`` tokens, in shuffled order."""
        rng = random.Random(f"{self.seed}/mixed")
        return [self.text(rng.randint(low, high), rng) for _ in range(n)]


def news_sentences(data_dir: Any = None) -> list[str]:
    """Return the sentences of the held-out news documents, in order (the texts the stand-ins use)."""
    return [sentence for _, sentences in read_news_documents(data_dir) for sentence in sentences]


# --------------------------------------------------------------------------------------------- scorers


def score_in_input_order(scorer: Any, texts: list[str], batch_size: int) -> list[float]:
    """Score texts in consecutive chunks of ``batch_size`` in input order, each chunk one ``scorer.score`` call.

    Everything the scorer does is timed (windows, the terms read sentence by sentence); only the length sorting
    across the whole input is given up, so every chunk pads to its longest text. (Calling the model directly
    here once left the sentence-level term out of this column and made it look twice as fast as sorting.)

    Args:
        scorer: a CoherenceScorer.
        texts: the texts.
        batch_size: texts per chunk.

    Returns:
        One score per text, the same as ``scorer.score(texts).scores``.
    """
    scores: list[float] = []
    for start in range(0, len(texts), batch_size):
        scores.extend(scorer.score(texts[start:start + batch_size]).scores)
    return scores


class PaperFaithfulScorer:
    """The reference code's inference cost: XLNet-base with a linear head on the last (``<cls>``) state.

    Token ids come from the given tokenizer folded into XLNet's 32,000-id vocabulary (no XLNet SentencePiece
    model is available offline; tokenizing costs the same order either way), cut or right-padded to 600 with
    ``<pad>``, then ``<sep><cls>``: 602 ids, scored one text at a time, no attention mask, fp32.

    Args:
        tokenizer: turns texts into ids.
        config: XLNetConfig keyword arguments; xlnet-base's shape by default.
        seed: seeds the random weights.
        device: torch device.
    """

    def __init__(self, tokenizer: Any, config: Optional[dict[str, int]] = None, seed: int = 0,
                 device: Any = "cpu") -> None:
        import torch
        from transformers import XLNetConfig, XLNetModel

        self.tokenizer = tokenizer
        self.config: dict[str, Any] = dict(config or XLNET_BASE)
        self.device = device
        state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        self.encoder = XLNetModel(XLNetConfig(**self.config)).to(device).eval()
        self.head = torch.nn.Linear(self.config["d_model"], 1).to(device).eval()
        torch.random.set_rng_state(state)

    @property
    def weights_mb(self) -> float:
        """Weights of encoder and head in MiB."""
        return weights_mb(self.encoder) + weights_mb(self.head)

    def input_ids(self, text: str) -> list[int]:
        """Return the 602 ids the reference code builds for a text."""
        vocabulary = self.config["vocab_size"]
        ids = [token % vocabulary for token in self.tokenizer(text, add_special_tokens=False)["input_ids"]]
        ids = ids[:PAPER_MAX_LEN] + [PAPER_IDS["pad"]] * max(0, PAPER_MAX_LEN - len(ids))
        return ids + [PAPER_IDS["sep"], PAPER_IDS["cls"]]

    def score(self, texts: list[str]) -> list[float]:
        """Score texts one at a time, without an attention mask."""
        import torch

        scores = []
        with torch.inference_mode():
            for text in texts:
                ids = torch.tensor([self.input_ids(text)], dtype=torch.long, device=self.device)
                hidden = self.encoder(input_ids=ids).last_hidden_state[:, -1, :]
                scores.append(float(self.head(hidden).squeeze()))
        return scores


class Profiled:
    """Wraps a scoring function of a scorer: keeps the last call's scores and its profile (stage seconds, plus
    ``other``: the wall time outside the stages, and ``wall``)."""

    def __init__(self, scorer: Any, score: Callable[[list[str]], list[float]]) -> None:
        self.scorer = scorer
        self.score = score
        self.scores: list[float] = []
        self.profile: dict[str, float] = {}

    def __call__(self, texts: list[str]) -> list[float]:
        with self.scorer.profile() as stages:
            started = time.perf_counter()
            self.scores = list(self.score(texts))
            wall = time.perf_counter() - started
        self.profile = {name: round(stages.seconds.get(name, 0.0), 4) for name in STAGES}
        self.profile["other"] = round(max(0.0, wall - stages.total), 4)
        self.profile["wall"] = round(wall, 4)
        return self.scores


class ForwardOnly:
    """The forward-only limit: the scorer's document model alone on pre-tokenised, pre-padded, length-sorted
    batches of the texts (the scorer's own plan), in ``dtype``; calling it runs every batch once."""

    def __init__(self, scorer: Any, texts: list[str], dtype: str) -> None:
        self.scorer = scorer
        self.dtype = dtype
        self.n_texts = len(texts)
        ids = scorer.tokenizer(texts, truncation=True, max_length=scorer.max_length)["input_ids"]
        batches = plan_batches([len(sequence) for sequence in ids], scorer.max_tokens_per_batch, scorer.batch_size,
                               limit=scorer.max_length)
        self.padded = [pad_batch(scorer.tokenizer, [ids[index] for index in batch], limit=scorer.max_length)
                       for batch in batches]

    def run(self, padded: Sequence[Any]) -> None:
        import torch

        from coherence_metric.toolkit import autocast_context

        device = self.scorer.device
        with torch.inference_mode(), autocast_context(self.dtype, device):
            for batch in padded:
                self.scorer.model(batch["input_ids"].to(device), batch["attention_mask"].to(device))

    def __call__(self, texts: list[str]) -> None:
        """Run every batch for the whole set, the first batch only for a shorter list (``measure``'s warm-up)."""
        self.run(self.padded if len(texts) == self.n_texts else self.padded[:1])


# ---------------------------------------------------------------------------------------------- runner


def run_speed(
    settings: RunSettings,
    *,
    sentences: Optional[Sequence[str]] = None,
    paper_sample: int = PAPER_SAMPLE,
    paper_config: Optional[dict[str, int]] = None,
) -> dict[str, Any]:
    """Measure scoring speed and memory of a model against the paper-faithful reference and the forward-only
    limit, on 4 sets of texts, with a profile of where the time goes.

    Args:
        settings: the run's model, limit (texts per set; default 1,000), seed (the texts and the reference's random
            weights), scorer (its dtype for the ``ours`` configurations, ``auto`` by default, as the scorer's; when
            it resolves to another than fp32, ``ours_fp32`` runs beside it), data folder (the news documents) and
            output folder (``speed[_limitN].md/.json/.png``); no cache, baselines or progress bars.
        sentences: cut texts from these sentences instead of the held-out news documents.
        paper_sample: texts per set the paper-faithful reference scores (its time is extrapolated).
        paper_config: XLNetConfig arguments of the reference (tests shrink it; default xlnet-base's shape).

    Returns:
        The result: per set and configuration the measurement and profile, the forward-only limit, ratios ours /
        paper-faithful and shares of the limit, and the score deviation from fp32.
    """
    import torch

    from coherence_metric import CoherenceScorer
    from coherence_metric.toolkit import cpu_description

    model, limit, seed, batch_size = settings.model, settings.limit, settings.seed, settings.batch_size
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError(f"--limit must be a positive integer, got {limit!r}")
    if paper_sample < 1:
        raise InputError(f"paper_sample must be at least 1, got {paper_sample}")
    started = time.perf_counter()
    load_before = _load_average()
    scorer = CoherenceScorer(model, settings=settings.scorer_settings("auto"))
    # The fp32 twin shares the loaded weights and sentence encoder: a shallow copy with another dtype.
    fp32_scorer = None
    if scorer.dtype != "fp32":
        fp32_scorer = copy.copy(scorer)
        fp32_scorer.dtype = "fp32"
    n_texts = limit or DEFAULT_TEXTS
    texts_from = list(sentences) if sentences is not None else news_sentences(settings.data_dir)
    builder = TextBuilder(scorer.tokenizer, texts_from, seed)
    targets = [target for target in TARGET_TOKENS if target <= scorer.max_length]
    skipped = [target for target in TARGET_TOKENS if target > scorer.max_length]
    text_sets: list[tuple[str, Optional[int], list[str]]] = [
        (f"{target} tokens", target, builder.fixed(target, n_texts)) for target in targets
    ]
    high = max(targets) if targets else scorer.max_length
    text_sets.append((f"mixed {MIXED_MIN_TOKENS}-{high} tokens", None, builder.mixed(MIXED_MIN_TOKENS, high, n_texts)))

    ours_mb = weights_mb(scorer.model)
    if scorer.model.cohesion_weight is not None or scorer.model.sentence_scorer is not None:
        ours_mb += weights_mb(scorer.sentence_embedder.model)  # loaded now, not inside the first timed run
    rows: list[dict[str, Any]] = []
    for name, target, texts in text_sets:
        LOGGER.info("speed: %s, ours (%s%s), input order and the forward-only limit on %d texts", name,
                    scorer.dtype, " and fp32" if fp32_scorer is not None else "", len(texts))
        profiled = {"ours": Profiled(scorer, lambda batch: scorer.score(batch).scores)}
        if fp32_scorer is not None:
            profiled["ours_fp32"] = Profiled(fp32_scorer, lambda batch: fp32_scorer.score(batch).scores)
        profiled["ours_unsorted"] = Profiled(scorer, lambda batch: score_in_input_order(scorer, batch, batch_size))
        # Warm up on a full batch, as the forward-only limit is: oneDNN builds kernels per shape on first use, a
        # one-off cost that a 1-2 text warm-up left inside the first timed configuration.
        runs = {key: measure(call, texts, ours_mb, warmup=batch_size) for key, call in profiled.items()}
        limits = {scorer.dtype: measure(ForwardOnly(scorer, texts, scorer.dtype), texts, weights_mb(scorer.model))}
        if fp32_scorer is not None:
            limits["fp32"] = measure(ForwardOnly(scorer, texts, "fp32"), texts, weights_mb(scorer.model))
        row: dict[str, Any] = {
            "name": name, "target_tokens": target, "n_texts": len(texts), "mean_tokens": _mean_tokens(scorer, texts),
            "runs": runs, "profiles": {key: call.profile for key, call in profiled.items()},
            "forward_limit": {key: asdict(value) for key, value in limits.items()},
            "shares": {key: round(run.docs_per_second / limits[scorer.dtype].docs_per_second, 3)
                       for key, run in runs.items()},
        }
        if fp32_scorer is not None:
            row["deviation"] = _deviation(profiled["ours"].scores, profiled["ours_fp32"].scores)
        rows.append(row)
    paper = PaperFaithfulScorer(scorer.tokenizer, paper_config, seed=seed, device=scorer.device)
    for row, (name, _, texts) in zip(rows, text_sets):
        sample = texts[:min(paper_sample, len(texts))]
        LOGGER.info("speed: %s, paper-faithful reference on %d texts", name, len(sample))
        row["runs"]["paper"] = measure(paper.score, sample, paper.weights_mb, total_texts=len(texts), warmup=1)
        row["ratios"] = _ratios(row["runs"])
        row["runs"] = {key: asdict(value) for key, value in row["runs"].items()}

    configurations = {"ours": f"ours ({scorer.dtype}, batch {batch_size}, length-sorted)"}
    if fp32_scorer is not None:
        configurations["ours_fp32"] = f"ours (fp32, batch {batch_size}, length-sorted)"
    configurations["ours_unsorted"] = f"ours ({scorer.dtype}, batch {batch_size}, input order)"
    configurations["paper"] = "paper-faithful (XLNet-base shape, 602 tokens, batch 1, no mask, fp32)"
    result: dict[str, Any] = {
        "suite": "speed",
        "model": {"spec": model, "label": scorer.model_label, "signature": str(scorer.signature),
                  "max_length": scorer.max_length, "batch_size": batch_size, "dtype": scorer.dtype,
                  "sentence_pass": scorer.model.cohesion_weight is not None
                  or scorer.model.sentence_scorer is not None},
        "device": str(scorer.device),
        "cpu": cpu_description(),
        "threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "load_average": {"before": load_before, "after": _load_average()},
        "limit": limit,
        "seed": seed,
        "configurations": configurations,
        "forward_limit": f"the document model alone on pre-padded length-sorted batches ({scorer.dtype})",
        "paper_reference": {"config": paper.config, "weights_mb": round(paper.weights_mb, 1),
                            "sample_per_set": paper_sample, "max_len": PAPER_MAX_LEN + 2},
        "memory_method": PeakMemory().method,
        "skipped_targets": skipped,
        "sets": rows,
        "versions": {"coherence_metric": __version__, "torch": torch.__version__, "python": platform.python_version()},
        "seconds": round(time.perf_counter() - started, 2),
    }
    if settings.out_dir is not None:

        result["outputs"] = write_speed_reports(result, settings.out_dir)
    return result


def _deviation(scores: Sequence[float], reference: Sequence[float]) -> dict[str, float]:
    differences = [abs(a - b) for a, b in zip(scores, reference)]
    return {"max_abs": round(max(differences), 6), "mean_abs": round(sum(differences) / len(differences), 6)}


def float_paths(flags: Optional[frozenset[str]] = None) -> list[str]:
    """The float dtypes worth timing on this CPU (or one with ``flags``): fp32, and bf16 where the CPU has native
    bf16 (AMX or AVX512-BF16). Elsewhere bf16 is emulated, hundreds of times slower (a 2-core AMD EPYC with AVX2 only
    ran a 2048x2048 matrix product at 0.34 GFLOP/s in bf16 against 100 in fp32), and ``dtype="auto"`` never picks
    it."""
    return ["fp32", "bf16"] if (cpu_flags() if flags is None else flags) & BF16_CPU_FLAGS else ["fp32"]


def _ratios(runs: dict[str, Measurement]) -> dict[str, float]:
    paper = runs["paper"]
    ratios = {}
    for name in runs:
        if name == "paper":
            continue
        ratios[f"{name}_speedup"] = round(runs[name].docs_per_second / paper.docs_per_second, 2)
        if paper.peak_memory_mb > 0:
            ratios[f"{name}_memory"] = round(runs[name].peak_memory_mb / paper.peak_memory_mb, 3)
    return ratios


def _mean_tokens(scorer: Any, texts: list[str]) -> float:
    lengths = [min(len(ids), scorer.max_length) for ids in scorer.tokenizer(texts)["input_ids"]]
    return round(sum(lengths) / len(lengths), 1)


def _load_average() -> Optional[list[float]]:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None
