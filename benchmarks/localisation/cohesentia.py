"""``benchmark cohesentia-dev``: do ``explain``'s flags land on the sentences people marked?

A dev ruler of real errors: CoheSentia's train split (Maimon & Tsarfaty, 2023; ``cohesentia_dev/TrainData.json`` of
the shared data folder, read in place and never shipped), 434 GPT-3 stories read sentence by sentence by 1-5
annotators, who marked the sentences that broke coherence when read, with why. Reason codes are grouped as the
dataset's authors group them: 1-3 ``cohesion`` (no connection to what came before), 4-5 ``consistency`` (it
contradicts what came before), 6-7 ``relevance`` (off the title or topic); a sentence is *marked* for a group when
at least half of the story's annotators give a reason of that group (the authors' rule); ``any`` is marked for one
group or more. Code 8 (other) belongs to no group.

Within each story, each method ranks the sentences by its evidence of a break (higher: more likely):

- ``random``: the exact expectation of a random ranking (AUC 0.5, top-1 the marked share);
- ``adjacent-cosine``: minus the cosine of the sentence with the one before it (pretrained all-MiniLM-L6-v2);
- ``transition-into`` / ``transition-min``: minus ``explain``'s transition (``transition-cosine``) into the
  sentence, or minus the lower of its two transitions (the held-out check's reading);
- the evidence of :mod:`coherence_metric.analysis.sentence_breaks` (``cohesion``, ``duplication``, ``relevance``,
  ``score_drop``), and ``explain``'s ranking of the sentences (``flag-order``: its flags first, in the order it
  gives them, then the other sentences by their score drop: ``sentence_breaks.break_ranks``, the ``rank`` explain
  reports per sentence); ``flag-margin`` (how far the sentence is beyond a threshold, its kind furthest beyond) is
  how the reports up to 0.9.0 read the flags' ranking, kept beside it;
- two rulers of the ruler, not evidence of a break: the sentence's position (later first) and its length in words
  (longer first). GPT-3's stories drift as they go on, so people mark later sentences more.

The first sentence has no transition into it: where a method has no evidence for a sentence it ranks lowest.
Measures per group, over the stories with at least one marked and one unmarked sentence: the within-story AUC
(ties count half) and top-1 (the share of marked sentences among the top-ranked ones, so ties cost nothing), against
random's exact top-1 (marked / sentences); 95% percentile bootstrap intervals over stories. Flags: the share of
sentences of stories whose holistic consensus score is 5 that ``explain`` flags, and, per group, the share of marked
sentences flagged.

Stories are split by id for choosing vs checking thresholds: even ids ``choose`` (thresholds set there), odd ids
``check``; the report gives both halves and the whole. Clean texts (``clean_texts``: the fully coherent stories and
the dev split's unchanged news and story documents, halved the same way): the share with any flag. Each checkpoint's
thresholds are set on the choosing half's clean texts so that few of them get a flag (``recalibrate``), and the
check half's share is the one ``explain`` prints.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache, digest
from coherence_metric.research.data_dir import shared_data_dir
from coherence_metric.research.localisation_sets import load_localisation_sets
from coherence_metric.toolkit import (
    COHESION,
    DRIFT_RULE,
    DRIFT_RULES,
    DUPLICATION,
    EVERY_SENTENCE_RULE,
    EVIDENCE,
    KIND_RULES,
    RELEVANCE,
    SCORE_DROP,
    TRANSITION,
    Calibration,
    calibration_for,
    flag_sentences,
    margins,
)

from ..harness.facts import run_facts
from ..harness.settings import RunSettings
from ..reporting import targets
from ..reporting.cohesentia_markdown import render_cohesentia_markdown
from ..reporting.files import write_reports
from .clean_texts import choose_budgets, clean_pool, clean_report, load_clean_texts, texts_evidence
from .duplicates import load_duplicates
from .story_ruler import (
    ANY,
    FLAG_ORDER,
    FULLY_COHERENT,
    GROUPS,
    RESAMPLES,
    CohesentiaStory,
    bootstrap_interval,
    flag_order_values,
    ratio_interval,
    story_evidence,
    top1_share,
    transition_cosine_values,
    within_text_auc,
)
from .synthetic_kinds import LOCALISATION_INTRUSION, from_localisation, kind_report, load_synthetic_kinds

LOGGER = logging.getLogger("coherence_metric.benchmarks")

SPLIT = "cohesentia-dev"
DATA_FILE = Path("cohesentia_dev") / "TrainData.json"
CACHE_KIND = "cohesentia"
#: Bumped when what ``compute_signals`` returns changes.
SIGNALS_VERSION = 2
#: Synthetic dev texts per kind of break (duplicates, and the localisation recipe's kinds in ``SYNTHETIC_KINDS``).
SYNTHETIC_PER_KIND = 100
#: The localisation recipe's kinds whose flags are measured (moves and swaps are measured per transition by the
#: localisation suite; their sentence flags cost CPU time this ruler did not have).
SYNTHETIC_KINDS = ("intrusion",)


def marked_sentences(reasons: Dict[str, Dict[str, List[int]]], annotators: int, count: int) -> Dict[str, List[int]]:
    """Per reason group (and ``any``), the sentences at least half the annotators marked with a reason of it."""
    votes: Dict[str, Dict[int, int]] = {group: {} for group in GROUPS}
    for per_sentence in reasons.values():
        for index, codes in per_sentence.items():
            for group, members in GROUPS.items():
                if any(int(code) in members for code in codes):
                    votes[group][int(index)] = votes[group].get(int(index), 0) + 1
    marked = {group: sorted(index for index, number in counts.items() if number >= annotators / 2 and index < count)
              for group, counts in votes.items()}
    marked[ANY] = sorted(set().union(*marked.values()))
    return marked


def load_cohesentia(data_dir: Optional[Path] = None) -> List[CohesentiaStory]:
    """The dev stories, in id order.

    Raises:
        InputError: the file is not in the shared data folder.
    """
    path = (data_dir or shared_data_dir()) / DATA_FILE
    if not path.is_file():
        raise InputError(f"{path} not found: the CoheSentia dev ruler reads the shared data folder's {DATA_FILE}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    stories = []
    for key, story in raw.items():
        incremental = story["IncrementalData"]
        sentences = [sentence.strip() for sentence in incremental["sentences"]]
        stories.append(CohesentiaStory(int(story.get("StoryID", key)), story.get("Title", ""), sentences,
                                       marked_sentences(incremental.get("reasons", {}),
                                                        int(incremental["num_annotators"]), len(sentences)),
                                       int(story["HolisticData"]["consensus_score"])))
    return sorted(stories, key=lambda story: story.id)


def compute_signals(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> Dict[str, Any]:
    """What the sentence evidence is made of, per text: transition-model logits, adjacent cosines, the sentences'
    similarity matrix, the text's score and the scores of its prefixes."""
    from coherence_metric.toolkit import adjacent_cosine, prefix_scores, similarity_matrices, transition_model

    lists = [list(sentences) for sentences in sentence_lists]
    timings = {}
    tick = time.perf_counter()
    logits = transition_model(scorer, lists)
    timings["transition_model"] = time.perf_counter() - tick
    tick = time.perf_counter()
    cosines = adjacent_cosine(scorer, lists)
    similarity = similarity_matrices(scorer, lists)
    timings["embeddings"] = time.perf_counter() - tick
    tick = time.perf_counter()
    scores = scorer.score(lists).scores
    timings["score"] = time.perf_counter() - tick
    tick = time.perf_counter()
    prefixes = prefix_scores(scorer, lists)
    timings["prefixes"] = time.perf_counter() - tick
    return {"logits": logits, "cosines": cosines, "similarity": similarity, "scores": list(map(float, scores)),
            "prefixes": prefixes, "seconds": timings}


def cached_signals(scorer: Any, name: str, sentence_lists: Sequence[Sequence[str]], cache: JsonCache) -> Dict[str, Any]:
    """``compute_signals`` from the cache, or computed and stored."""
    from coherence_metric.toolkit import transition_model_identity

    key = digest({"signals": SIGNALS_VERSION, "model": scorer.fingerprint, "dtype": scorer.dtype,
                  "maxlen": scorer.max_length,
                  "transition_model": list(transition_model_identity()), "texts": digest(sentence_lists, 32)})
    found = cache.read(CACHE_KIND, name, key)
    if found is not None:
        return found
    signals = compute_signals(scorer, sentence_lists)
    cache.write(CACHE_KIND, name, key, signals)
    return signals


def evaluate_method(stories: Sequence[CohesentiaStory], per_sentence: Sequence[Sequence[Optional[float]]],
                    seed: int) -> Dict[str, Any]:
    """Per reason group: mean within-story AUC and top-1 (with random's top-1 and the ratio), 95% intervals."""
    result: Dict[str, Any] = {}
    for group in (*GROUPS, ANY):
        aucs, tops, chances = [], [], []
        for story, values in zip(stories, per_sentence):
            marked = story.marked[group]
            auc = within_text_auc(values, marked)
            if auc is None:
                continue
            aucs.append(auc)
            tops.append(top1_share(values, marked))
            chances.append(len(marked) / len(story.sentences))
        if not aucs:
            result[group] = {"n_texts": 0}
            continue
        auc_array, top_array, chance_array = np.array(aucs), np.array(tops), np.array(chances)
        result[group] = {
            "n_texts": len(aucs), "n_marked": int(sum(len(story.marked[group]) for story in stories)),
            "auc": float(auc_array.mean()), "auc_interval": bootstrap_interval(auc_array, seed),
            "top1": float(top_array.mean()), "top1_interval": bootstrap_interval(top_array, seed + 1),
            "random_top1": float(chance_array.mean()),
            "top1_over_random": float(top_array.mean() / chance_array.mean()),
            "top1_over_random_interval": ratio_interval(top_array, chance_array, seed + 2),
        }
    return result


def method_values(sentences: Sequence[Sequence[str]], signals: Dict[str, Any],
                  evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
                  calibration: Calibration) -> Dict[str, List[List[Optional[float]]]]:
    """Per method, per story, per sentence: the evidence of a break it ranks by (higher: more likely; None: none),
    from the stories' ``evidence`` (``story_evidence`` read with ``calibration``) and the flags' margins beyond
    ``calibration``'s thresholds."""
    transitions = [transition_cosine_values(logits, cosines)
                   for logits, cosines in zip(signals["logits"], signals["cosines"])]
    methods: Dict[str, List[List[Optional[float]]]] = {
        "adjacent-cosine": [[None] + [-value for value in row] for row in signals["cosines"]],
        "transition-into": [[None] + [-value for value in row] for row in transitions],
        "transition-min": [[-min(row[max(index - 1, 0):index + 1]) if row else None for index in range(len(row) + 1)]
                           for row in transitions],
    }
    for kind in EVIDENCE:
        if kind != TRANSITION:  # the same numbers as transition-into
            methods[kind] = [[entry[kind] for entry in rows] for rows in evidence]
    methods["flag-margin"] = [[max(margins(entry, calibration.thresholds, calibration.scales).values(), default=None)
                               for entry in rows] for rows in evidence]
    methods[FLAG_ORDER] = [flag_order_values(rows, calibration.thresholds, calibration.scales) for rows in evidence]
    # Not evidence of a break, rulers of the ruler: in generated stories, later and longer sentences are marked more.
    methods["position (later first)"] = [[float(index) for index in range(len(text))] for text in sentences]
    methods["length (longer first)"] = [[float(len(sentence.split())) for sentence in text] for text in sentences]
    return methods


def recalibrate(stories: Sequence[CohesentiaStory], signals: Dict[str, Any], base: Calibration,
                clean: Optional[Tuple[Sequence[Any], Dict[str, Any]]] = None) -> Dict[str, Any]:
    """``base``'s calibration recomputed on the choosing half, in the order each number depends on the one before:
    the spreads of ``transition`` and ``score_drop`` over all its sentences, then (``cohesion`` read with those
    spreads and ``base``'s weights) the budgets ``clean_texts.RULE`` picks so that few of the choosing half's clean
    texts get a flag, and each kind's threshold and scale over those texts' sentences (``clean_texts.choose_budgets``;
    the clean texts are its fully coherent stories and, with ``clean``, the clean dev texts and their signals). A
    checkpoint's shipped ``Calibration`` should equal it."""

    chosen = [index for index, story in enumerate(stories) if story.half == "choose"]
    subset = {key: [signals[key][index] for index in chosen] for key in ("logits", "cosines", "similarity", "prefixes")}
    texts = [stories[index].sentences for index in chosen]
    rows = [row for story_rows in story_evidence(texts, subset, base) for row in story_rows]
    spreads: Dict[str, Tuple[float, float]] = {}
    for kind in (TRANSITION, SCORE_DROP):
        values = np.array([row[kind] for row in rows if row[kind] is not None], dtype=np.float64)
        spreads[kind] = (float(values.mean()), float(values.std())) if len(values) else (0.0, 1.0)
    recomputed = replace(base, spreads=spreads)
    evidence = story_evidence(texts, subset, recomputed)
    chosen_stories = [stories[index] for index in chosen]
    clean_texts, clean_evidence = texts_evidence(clean[0], clean[1], recomputed, "choose") if clean else ([], [])
    pool = clean_pool(chosen_stories, evidence, clean_texts, clean_evidence, "choose")
    return {"checkpoint": base.checkpoint, "transition_weight": base.transition_weight,
            "drop_weight": base.drop_weight, "spreads": spreads, **choose_budgets(chosen_stories, evidence, pool)}


def flag_rates(stories: Sequence[CohesentiaStory], evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
               thresholds: Dict[str, float], scales: Dict[str, float], seed: int,
               cap: Optional[int] = None, drift_rule: str = DRIFT_RULE) -> Dict[str, Any]:
    """How often ``explain`` flags (no cap unless given; drifts read by ``drift_rule``): the share of sentences of
    fully coherent stories flagged, stories with no flag at all; per group, the share of marked sentences flagged
    (recall) and of flags that are on a marked sentence (precision); 95% bootstrap intervals over stories."""
    rows = []
    for story, story_rows in zip(stories, evidence):
        flags = flag_sentences(story_rows, cap=cap, thresholds=thresholds, scales=scales, drift_rule=drift_rule)
        rows.append((story, {flag.index: flag.kind for flag in flags}))
    coherent = [(story, flags) for story, flags in rows if story.holistic == FULLY_COHERENT]
    result: Dict[str, Any] = {"n_stories": len(rows), "n_fully_coherent": len(coherent)}
    if coherent:
        flagged = np.array([len(flags) for _, flags in coherent], dtype=np.float64)
        counts = np.array([len(story.sentences) for story, _ in coherent], dtype=np.float64)
        draws = np.random.default_rng(seed).integers(0, len(coherent), size=(RESAMPLES, len(coherent)))
        shares = flagged[draws].sum(axis=1) / counts[draws].sum(axis=1)
        result["fully_coherent_sentences_flagged"] = float(flagged.sum() / counts.sum())
        result["fully_coherent_sentences_flagged_interval"] = [float(value) for value in
                                                              np.percentile(shares, [2.5, 97.5])]
        clean = (flagged == 0).astype(np.float64)
        result["fully_coherent_stories_without_flag"] = float(clean.mean())
        result["fully_coherent_stories_without_flag_interval"] = bootstrap_interval(clean, seed + 3)
    result["all_sentences_flagged"] = float(sum(len(flags) for _, flags in rows)
                                            / sum(len(story.sentences) for story, _ in rows))
    kinds: Dict[str, int] = {}
    for _, flags in rows:
        for kind in flags.values():
            kinds[kind] = kinds.get(kind, 0) + 1
    result["flags_by_kind"] = kinds
    for group in (*GROUPS, ANY):
        marked = sum(len(story.marked[group]) for story, _ in rows)
        hit = sum(sum(1 for index in story.marked[group] if index in flags) for story, flags in rows)
        total = sum(len(flags) for _, flags in rows)
        on = sum(sum(1 for index in flags if index in story.marked[group]) for story, flags in rows)
        result[group] = {"marked": marked, "flagged": hit, "recall": hit / marked if marked else None,
                         "precision": on / total if total else None}
    return result


def _reader_kind(story: CohesentiaStory, index: int) -> Optional[str]:
    """The kind a sentence's readers gave, where they agree on one: ``relevance`` for a sentence marked for
    relevance only, ``cohesion`` for one marked for cohesion or consistency only (``cohesion`` reads both); else
    None."""
    groups = {group for group in GROUPS if index in story.marked[group]}
    if groups == {"relevance"}:
        return RELEVANCE
    return COHESION if groups and groups <= {"cohesion", "consistency"} else None


def rules_on_stories(stories: Sequence[CohesentiaStory], evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
                     thresholds: Dict[str, float], scales: Dict[str, float], seed: int) -> Dict[str, Any]:
    """The candidate kind and drift rules of ``sentence_breaks`` on real stories (the report gives the choosing
    half): per kind rule (every flag kept), among flagged sentences whose readers agree on one kind
    (``_reader_kind``), how many there are and the share named that kind; per drift rule, the share of marked
    sentences flagged (no cap, and the default cap of 1), of flags on a marked sentence, and of fully coherent
    stories' sentences flagged. GPT-3's stories drift, so a drift rule costs recall here where people marked every
    sentence of a drift."""
    kinds: Dict[str, Any] = {}
    for rule in KIND_RULES:
        counts = {COHESION: [0, 0], RELEVANCE: [0, 0]}
        for story, rows in zip(stories, evidence):
            for flag in flag_sentences(rows, thresholds=thresholds, scales=scales, kind_rule=rule,
                                       drift_rule=EVERY_SENTENCE_RULE):
                expected = _reader_kind(story, flag.index)
                if expected is not None:
                    counts[expected][0] += int(flag.kind == expected)
                    counts[expected][1] += 1
        kinds[rule] = {kind: {"flagged": total, "named_right": right / total if total else None}
                       for kind, (right, total) in counts.items()}
    drift: Dict[str, Any] = {}
    for rule in DRIFT_RULES:
        uncapped = flag_rates(stories, evidence, thresholds, scales, seed, drift_rule=rule)
        capped = flag_rates(stories, evidence, thresholds, scales, seed, cap=1, drift_rule=rule)
        drift[rule] = {"any_recall": uncapped[ANY]["recall"], "any_recall_cap_1": capped[ANY]["recall"],
                       "any_precision": uncapped[ANY]["precision"],
                       "fully_coherent_sentences_flagged": uncapped.get("fully_coherent_sentences_flagged"),
                       "all_sentences_flagged": uncapped["all_sentences_flagged"]}
    return {"kind": kinds, "drift": drift}


def _halves(stories: Sequence[CohesentiaStory]) -> Dict[str, List[int]]:
    return {"all": list(range(len(stories))),
            "choose": [index for index, story in enumerate(stories) if story.half == "choose"],
            "check": [index for index, story in enumerate(stories) if story.half == "check"]}


def synthetic_dev(scorer: Any, cache: JsonCache, seed: int, per_kind: int, data_dir: Optional[Path],
                  calibration: Calibration, cap: int) -> Dict[str, Any]:
    """On the synthetic dev split: the share of duplicates ``explain`` flags as ``duplication`` (with the default
    cap, and with none), and per kind of break the share of texts whose strongest flag is on a broken sentence (the
    intruder; the moved sentence or the sentence after its seam; either swapped sentence) and with no flag; then
    whether the flags name the kind a reader agrees with, and where a drift starts (``synthetic_kinds.kind_report``:
    ``kinds``, ``drift``, and the candidate rules compared in ``rules``)."""
    result: Dict[str, Any] = {"per_kind": per_kind}
    duplicates = load_duplicates(per_kind, seed, data_dir)
    signals = cached_signals(scorer, "synthetic-dev-duplicates", [item.sentences for item in duplicates], cache)
    evidence = story_evidence([item.sentences for item in duplicates], signals, calibration)
    thresholds, scales = calibration.thresholds, calibration.scales
    found, found_capped, variants = [], [], []
    for item, rows in zip(duplicates, evidence):
        flags = flag_sentences(rows, thresholds=thresholds, scales=scales)
        kinds = {flag.index: flag.kind for flag in flags}
        found.append(float(kinds.get(item.position) == DUPLICATION))
        found_capped.append(float(any(flag.index == item.position and flag.kind == DUPLICATION
                                      for flag in flags[:cap])))
        variants.append(item.variant)
    found_array = np.array(found)
    result["duplicates"] = {"n": len(found), "found": float(found_array.mean()),
                            "found_interval": bootstrap_interval(found_array, seed),
                            "found_with_cap": float(np.mean(found_capped)), "cap": cap,
                            "by_variant": {variant: float(np.mean([value for value, name in zip(found, variants)
                                                                   if name == variant]))
                                           for variant in sorted(set(variants))}}
    sets = load_localisation_sets(per_kind, seed, cache, data_dir, split="dev")
    for kind in SYNTHETIC_KINDS:
        items = sets[kind]
        signals = cached_signals(scorer, f"synthetic-dev-{kind}", [item.sentences for item in items], cache)
        evidence = story_evidence([item.sentences for item in items], signals, calibration)
        hits, clean, elsewhere, intact = [], [], 0, 0
        for item, rows in zip(items, evidence):
            after = {index + 1 for index in item.breaks}  # the sentence after each broken transition
            broken = {min(after)} if kind == "intrusion" else after  # an intrusion: the intruder itself
            flags = flag_sentences(rows, thresholds=thresholds, scales=scales)
            hits.append(float(bool(flags) and flags[0].index in broken))
            clean.append(float(not flags))
            elsewhere += sum(1 for flag in flags if flag.index not in after)
            intact += len(item.sentences) - len(after)
        result[kind] = {"n": len(items), "top_flag_on_break": float(np.mean(hits)),
                        "top_flag_on_break_interval": bootstrap_interval(np.array(hits), seed),
                        "no_flag": float(np.mean(clean)),
                        "flagged_elsewhere": elsewhere / intact if intact else None}
    kind_texts = {LOCALISATION_INTRUSION: from_localisation(sets[LOCALISATION_INTRUSION]),
                  **load_synthetic_kinds(per_kind, seed, data_dir)}
    evidence_by_set = {}
    for name, texts in kind_texts.items():
        lists = [text.sentences for text in texts]
        evidence_by_set[name] = story_evidence(lists, cached_signals(scorer, f"synthetic-dev-{name}", lists, cache),
                                               calibration)
    result.update(kind_report(kind_texts, evidence_by_set, thresholds, scales, seed))
    return result


#: The name the clean dev texts' signals are cached under.
CLEAN_SIGNALS = "clean-dev"


def clean_dev(scorer: Any, cache: JsonCache, seed: int, data_dir: Optional[Path]) -> Tuple[List[Any], Dict[str, Any]]:
    """The clean dev texts (``clean_texts.load_clean_texts``, from the synthetic dev sets' sample) and their signals."""
    texts = load_clean_texts(SYNTHETIC_PER_KIND, seed, cache, data_dir)
    return texts, cached_signals(scorer, CLEAN_SIGNALS, [text.sentences for text in texts], cache)


def clean_section(stories: Sequence[CohesentiaStory], evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
                  clean: Optional[Tuple[List[Any], Dict[str, Any]]], calibration: Calibration,
                  seed: int) -> Dict[str, Any]:
    """Per half, the share of clean texts with any flag at ``calibration``'s thresholds (``clean_texts.clean_report``;
    without ``clean``, the fully coherent stories alone)."""
    texts, text_evidence = texts_evidence(clean[0], clean[1], calibration) if clean else ([], [])
    return clean_report(stories, evidence, texts, text_evidence, calibration.thresholds, calibration.scales, seed)


#: Stories timed for ``explain``'s cost: the first of 6-10 sentences.
COST_TEXTS = 40


def explain_cost(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> Dict[str, Any]:
    """Texts per second of ``explain`` (every kind of evidence) against its transitions and score alone (what
    ``explain`` computed before kinds of break), and of ``score``, on the same texts, one after the other."""
    from coherence_metric.toolkit import AUTO, resolve_mechanism, run_mechanism

    lists = [list(sentences) for sentences in sentence_lists]
    scorer.explain(lists[:2])  # load the transition model and the encoder before timing
    tick = time.perf_counter()
    scorer.score(lists)
    score_seconds = time.perf_counter() - tick
    tick = time.perf_counter()
    run_mechanism(scorer, resolve_mechanism(scorer, AUTO), lists)
    scorer.score(lists)
    transitions_seconds = time.perf_counter() - tick
    tick = time.perf_counter()
    scorer.explain(lists)
    explain_seconds = time.perf_counter() - tick
    import torch

    return {"texts": len(lists), "mean_sentences": float(np.mean([len(text) for text in lists])),
            "explain_texts_per_second": len(lists) / explain_seconds,
            "transitions_and_score_texts_per_second": len(lists) / transitions_seconds,
            "score_texts_per_second": len(lists) / score_seconds,
            "explain_seconds": explain_seconds, "threads": torch.get_num_threads(),
            "device": str(scorer.device), "dtype": scorer.dtype}


def run_cohesentia(
    settings: RunSettings,
    *,
    synthetic: bool = True,
    timing: bool = True,
) -> Dict[str, Any]:
    """Measure, on CoheSentia's dev stories, how each method ranks the sentences people marked, and how
    ``explain``'s calibrated flags fall (module docstring); with ``synthetic``, also the synthetic dev duplicates
    and breaks.

    Args:
        settings: the run's model (its score gives the score cost), seed (the bootstrap and the synthetic sets),
            scorer (fp32 unless its dtype says otherwise), cache (the signals) and output folder
            (``localisation_cohesentia-dev.md`` and ``.json``); every story is scored (no limit), with no baselines
            and no progress bars.
        synthetic: also measure the synthetic dev split (duplicates, intrusions).
        timing: also time ``explain`` against its transitions and ``score`` (``COST_TEXTS`` stories of 6-10
            sentences; never cached).

    Returns:
        The result.
    """
    from coherence_metric import CoherenceScorer


    model, seed, data_dir, out_dir = settings.model, settings.seed, settings.data_dir, settings.out_dir
    started = time.perf_counter()
    stories = load_cohesentia(data_dir)
    cache = JsonCache(settings.cache_dir, enabled=settings.use_cache)
    scorer = CoherenceScorer(model, settings=settings.scorer_settings("fp32"))
    sentences = [story.sentences for story in stories]
    signals = cached_signals(scorer, "cohesentia-dev", sentences, cache)
    shipped, calibrated = calibration_for(scorer.fingerprint)
    evidence = story_evidence(sentences, signals, shipped)
    methods = method_values(sentences, signals, evidence, shipped)
    halves = _halves(stories)
    table: Dict[str, Dict[str, Any]] = {}
    for half, indices in halves.items():
        chosen = [stories[index] for index in indices]
        table[half] = {name: evaluate_method(chosen, [values[index] for index in indices], seed)
                       for name, values in methods.items()}
    clean = clean_dev(scorer, cache, seed, data_dir) if synthetic else None
    calibration = recalibrate(stories, signals, shipped, clean)
    thresholds, scales = dict(shipped.thresholds), dict(shipped.scales)
    flags = {}
    for half, indices in halves.items():
        chosen = [stories[index] for index in indices]
        flags[half] = {"no_cap": flag_rates(chosen, [evidence[index] for index in indices], thresholds, scales, seed),
                       "cap_1": flag_rates(chosen, [evidence[index] for index in indices], thresholds, scales, seed,
                                           cap=1)}
    counts = [len(story.sentences) for story in stories]
    cost = {"texts": len(stories), "sentences": int(sum(counts)), "mean_sentences": float(np.mean(counts)),
            "seconds": signals.get("seconds")}
    if timing:
        cost["explain"] = explain_cost(scorer, [text for text in sentences if 6 <= len(text) <= 10][:COST_TEXTS])
    result: Dict[str, Any] = {
        "suite": "localisation",
        "split": SPLIT,
        "model": {"spec": model, "label": scorer.model_label, "signature": str(scorer.signature)},
        "protocol": {
            "data": "CoheSentia train split (434 GPT-3 stories), shared data cohesentia_dev/TrainData.json, dev only",
            "marked": "a sentence is marked for a reason group when at least half the story's annotators give a "
                      "reason of it (1-3 cohesion, 4-5 consistency, 6-7 relevance); any: marked for one or more",
            "auc": "within-story AUC of marked against unmarked sentences (ties half; no evidence ranks lowest), "
                   "mean over stories with both",
            "top1": "share of marked sentences among the top-ranked (ties shared); random: marked / sentences",
            "halves": "choose: even story ids (thresholds set there); check: odd ids",
            "flags": "explain's flags with the shipped thresholds; fully coherent: holistic consensus score 5",
            "clean": "clean texts: the half's fully coherent stories and (with the synthetic dev split) the dev news "
                     "documents the synthetic sets are corrupted from and the story corpora's dev documents, "
                     "unchanged, halved by position (even: choose); flagged: the share with any flag",
            "interval": f"95% percentile bootstrap over stories, {RESAMPLES} resamples",
        },
        "n_stories": {half: len(indices) for half, indices in halves.items()},
        "methods": table,
        "calibration": {"recomputed_on_choose": calibration,
                        "shipped": {"checkpoint": shipped.checkpoint, "calibrated": calibrated,
                                    "transition_weight": shipped.transition_weight,
                                    "drop_weight": shipped.drop_weight,
                                    "spreads": {kind: list(value) for kind, value in shipped.spreads.items()},
                                    "thresholds": thresholds, "scales": scales}},
        "flags": flags,
        "clean": clean_section(stories, evidence, clean, shipped, seed),
        "cost": cost,
        "seed": seed,
    }
    choosing = halves["choose"]
    result["flag_rules"] = {"choose": rules_on_stories([stories[index] for index in choosing],
                                                       [evidence[index] for index in choosing], thresholds, scales,
                                                       seed)}
    if synthetic:
        result["synthetic_dev"] = synthetic_dev(scorer, cache, seed, SYNTHETIC_PER_KIND, data_dir, shipped, 1)
    result["targets"] = target_check(result)
    result.update(run_facts(cache, started))
    if out_dir is not None:

        result["outputs"] = write_reports(result, out_dir, f"localisation_{SPLIT}", render_cohesentia_markdown)
    return result


#: Per reason group, the evidence whose ranking the targets read: the kind ``explain`` gives for that reason
#: (no evidence of contradiction ships, so consistency is read by ``cohesion``, the evidence that a sentence does not
#: follow from what came before).
TARGET_EVIDENCE = {"cohesion": "cohesion", "consistency": "cohesion", "relevance": "relevance"}


def flag_order_checks(methods: Dict[str, Dict[str, Any]], group: str,
                      goals: targets.CoheSentiaTargets) -> Dict[str, Any]:
    """Per half (choose, check), explain's ranking (``flag-order``) on one reason group: AUC and top-1 factor with
    their intervals, and whether each meets ``goals`` (``flags_auc_min``, ``flags_top1_over_random_min``)."""
    checks = {}
    for half in ("choose", "check"):
        cell = methods[half][FLAG_ORDER][group]
        if not cell.get("n_texts"):
            continue
        checks[half] = ranking_check(cell, goals.flags_auc_min, goals.flags_top1_over_random_min)
    return checks


def ranking_check(cell: Dict[str, Any], auc_min: float, top1_min: float) -> Dict[str, Any]:
    """One method's AUC and top-1 factor on one reason group (``evaluate_method``'s cell), with their intervals, and
    whether each meets its target."""
    return {"auc": cell["auc"], "auc_interval": cell["auc_interval"], "auc_met": cell["auc"] >= auc_min,
            "top1_over_random": cell["top1_over_random"],
            "top1_over_random_interval": cell["top1_over_random_interval"],
            "top1_met": cell["top1_over_random"] >= top1_min}


def target_check(result: Dict[str, Any]) -> Dict[str, Any]:
    """explain's dev targets (``targets.toml``'s ``[cohesentia]``): per reason group with ``min_marked_sentences``+
    marked sentences, AUC and top-1 factor of the matching kind's evidence (``TARGET_EVIDENCE``), and of explain's
    ranking of the sentences on each half (``flag_order_checks``); flags on fully coherent stories; clean texts of
    the check half (no threshold was set on them) with any flag; synthetic duplicates found; per synthetic set with
    a known kind of break, the share of flags at the break that name it."""
    goals = targets.load().cohesentia
    methods = result["methods"]["all"]
    groups = {}
    for group, evidence in TARGET_EVIDENCE.items():
        cell = methods[evidence][group]
        if cell.get("n_marked", 0) < goals.min_marked_sentences:
            continue
        groups[group] = {"evidence": evidence, **ranking_check(cell, goals.auc_min, goals.top1_over_random_min),
                         "flags": flag_order_checks(result["methods"], group, goals)}
    flags = result["flags"]["all"]["no_cap"]
    checks = {"groups": groups, "fully_coherent_flagged": flags.get("fully_coherent_sentences_flagged"),
              "fully_coherent_flagged_interval": flags.get("fully_coherent_sentences_flagged_interval"),
              "fully_coherent_met": flags.get("fully_coherent_sentences_flagged") is not None
              and flags["fully_coherent_sentences_flagged"] <= goals.fully_coherent_flagged_max}
    clean = (result.get("clean") or {}).get("check") or {}
    if clean.get("flagged") is not None:
        checks["clean_texts_flagged"] = clean["flagged"]
        checks["clean_texts_flagged_interval"] = clean["flagged_interval"]
        checks["clean_texts_met"] = clean["flagged"] <= goals.clean_texts_flagged_max
    synthetic = result.get("synthetic_dev")
    if synthetic:
        checks["duplicates_found"] = synthetic["duplicates"]["found"]
        checks["duplicates_found_interval"] = synthetic["duplicates"]["found_interval"]
        checks["duplicates_met"] = synthetic["duplicates"]["found"] >= goals.duplicates_found_min
        checks["kinds_named_right"] = {
            name: {"expected": cell["expected"], "right_when_flagged": cell["right_when_flagged"],
                   "right_when_flagged_interval": cell["right_when_flagged_interval"],
                   "met": cell["right_when_flagged"] is not None
                   and cell["right_when_flagged"] >= goals.kinds_named_right_min}
            for name, cell in (synthetic.get("kinds") or {}).items()}
    return checks
