"""Synthetic dev texts with one known break of each kind ``explain`` names, and texts that drift at a known sentence.

``explain`` names a flag's kind (``cohesion``, ``duplication``, ``relevance``); a reader trusts it only where it is
the kind they see. These sets break dev news documents (the news corpora's dev split, first 10 sentences, those of
``MIN_SENTENCES``+, as the localisation recipe reads them; never a test document) with the code that makes training's
negatives (:mod:`coherence_metric.research.corruptions`), so each text has one broken sentence and the kind a reader
agrees with:

- ``random_intrusion`` -> ``relevance``: one sentence (not the first) replaced by a random sentence of another dev
  document (the localisation recipe's ``intrusion``, a *similar* foreign sentence, is measured beside it);
- ``repeat_sentence`` / ``near_repeat`` -> ``duplication``: a sentence said again verbatim, later; or restated with a
  word or two changed, right after itself;
- ``dangling_reference`` / ``connective_swap`` -> ``cohesion``: the sentence that introduces what a later pronoun (or
  "the X") refers to deleted; a sentence-opening connective replaced by one of another relation, or one added.

The broken sentence is the first whose text differs from the original's (the intruder, the repeat, the sentence left
dangling, the sentence with the wrong connective). ``drift`` (``topic_switch``): the text's second half replaced by
consecutive sentences of another dev document, so it leaves its topic at sentence ``k`` and stays away; a reader wants
the flag where the drift starts, not on every later sentence.

Measures per kind: the share of texts whose flag on the broken sentence names the right kind (``labelled_right``:
texts with no flag there count as wrong), the same among texts flagged there (``right_when_flagged``: what the kind
rule alone decides), the share whose top flag is on the broken sentence, and with no flag; for drift, the share whose
top flag is at ``k``, with a flag at ``k``, and with a flag after ``k``. 95% percentile bootstrap intervals over texts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from coherence_metric.research.corruptions import (
    dangling_reference,
    intrusion,
    near_repeat,
    repeat_sentence,
    topic_switch,
)
from coherence_metric.research.local_corruptions import connective_swap
from coherence_metric.research.localisation_sets import MIN_SENTENCES, LocalisationItem
from coherence_metric.research.standins import read_news_documents
from coherence_metric.toolkit import (
    COHESION,
    DRIFT_RULE,
    DRIFT_RULES,
    DUPLICATION,
    EVERY_SENTENCE_RULE,
    KIND_RULE,
    KIND_RULES,
    RELEVANCE,
    SentenceFlag,
    flag_sentences,
)

from .story_ruler import bootstrap_interval

#: Set name -> (the corruption that makes it, the kind a reader agrees with).
KIND_SETS: Dict[str, tuple] = {
    "random_intrusion": (intrusion, RELEVANCE),
    "repeat_sentence": (repeat_sentence, DUPLICATION),
    "near_repeat": (near_repeat, DUPLICATION),
    "dangling_reference": (dangling_reference, COHESION),
    "connective_swap": (connective_swap, COHESION),
}
#: The localisation recipe's similar intruder (``load_localisation_sets``'s ``intrusion``) is off topic too.
LOCALISATION_INTRUSION = "intrusion"
EXPECTED = {LOCALISATION_INTRUSION: RELEVANCE, **{name: kind for name, (_, kind) in KIND_SETS.items()}}
DRIFT = "drift"
#: Fewest sentences a drift keeps away from the topic (one foreign sentence at the end is an intrusion, not drift).
MIN_DRIFTED = 2


@dataclass(frozen=True)
class BrokenText:
    """One synthetic dev text: its sentences, the broken sentence (for drift: where the drift starts), its set."""

    id: str
    kind: str
    sentences: List[str]
    position: int


def first_difference(original: Sequence[str], corrupted: Sequence[str]) -> int:
    """The index of the first sentence of ``corrupted`` that differs from the original's at that place (its length
    when it only adds sentences at the end): the inserted, replaced or changed sentence, or the one after a deletion."""
    for index, (before, after) in enumerate(zip(original, corrupted)):
        if " ".join(before.split()) != " ".join(after.split()):
            return index
    return min(len(original), len(corrupted))


def _documents(data_dir: Optional[Path]) -> List[tuple]:
    return read_news_documents(data_dir, split="dev")


def _long_enough(documents: Sequence[tuple]) -> List[int]:
    return [index for index, (_, sentences) in enumerate(documents) if len(sentences) >= MIN_SENTENCES]


def build_kind_sets(documents: Sequence[tuple], count: int, seed: int) -> Dict[str, List[BrokenText]]:
    """Per set of ``KIND_SETS``, up to ``count`` texts: the documents of ``MIN_SENTENCES``+ sentences in a seeded
    order of the set's own, each broken by the set's corruption (skipped where it does not apply, or breaks the first
    sentence, which has nothing before it); the other documents are the pool an intruder is drawn from."""
    long_enough = _long_enough(documents)
    sets: Dict[str, List[BrokenText]] = {}
    for name, (corruption, _) in KIND_SETS.items():
        rng = random.Random(f"{seed}:{name}")
        order = rng.sample(long_enough, len(long_enough))
        items: List[BrokenText] = []
        for index in order:
            if len(items) >= count:
                break
            doc_id, sentences = documents[index]
            pool = [other for number, (_, other) in enumerate(documents) if number != index]
            corrupted = corruption(list(sentences), rng, pool)
            position = -1 if corrupted is None else first_difference(sentences, corrupted)
            if position < 1:  # not applicable, or the text's first sentence (never flagged: nothing before it)
                continue
            items.append(BrokenText(f"{doc_id}/{name}", name, corrupted, position))
        sets[name] = items
    return sets


def build_drift(documents: Sequence[tuple], count: int, seed: int) -> List[BrokenText]:
    """Up to ``count`` texts that leave their topic at a known sentence and stay away: ``topic_switch`` (the second
    half replaced by consecutive sentences of another dev document), kept where ``MIN_DRIFTED``+ sentences drift."""
    rng = random.Random(f"{seed}:{DRIFT}")
    long_enough = _long_enough(documents)
    items: List[BrokenText] = []
    for index in rng.sample(long_enough, len(long_enough)):
        if len(items) >= count:
            break
        doc_id, sentences = documents[index]
        pool = [other for number, (_, other) in enumerate(documents) if number != index]
        drifted = topic_switch(list(sentences), rng, pool)
        if drifted is None:
            continue
        start = first_difference(sentences, drifted)
        if len(drifted) - start >= MIN_DRIFTED:
            items.append(BrokenText(f"{doc_id}/{DRIFT}", DRIFT, drifted, start))
    return items


def load_synthetic_kinds(count: int, seed: int, data_dir: Optional[Path] = None) -> Dict[str, List[BrokenText]]:
    """The kind sets and the drift set of the news corpora's dev split (the recipe is cheap: nothing is cached)."""
    documents = _documents(data_dir)
    return {**build_kind_sets(documents, count, seed), DRIFT: build_drift(documents, count, seed)}


def from_localisation(items: Sequence[LocalisationItem]) -> List[BrokenText]:
    """The localisation recipe's intrusions as broken texts: the intruder is the sentence after the first break."""
    return [BrokenText(item.id, item.kind, list(item.sentences), min(item.breaks) + 1) for item in items]


def _share(values: Sequence[float], seed: int) -> Dict[str, Any]:
    array = np.array(values, dtype=np.float64)
    if not len(array):
        return {"share": None, "interval": None}
    return {"share": float(array.mean()), "interval": bootstrap_interval(array, seed)}


#: ``(evidence rows of one text) -> its flags``: the flag rule measured (``flag_sentences`` with some thresholds).
Flagger = Callable[[Sequence[Dict[str, Optional[float]]]], List[SentenceFlag]]


def kind_measures(items: Sequence[BrokenText], evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
                  expected: str, flagger: Flagger, seed: int) -> Dict[str, Any]:
    """For one set: n, the share of texts whose flag on the broken sentence names ``expected`` (``labelled_right``),
    the same among texts flagged there, top flag on the break, no flag, and the kinds named at the break."""
    right, right_flagged, top, clean = [], [], [], []
    named: Dict[str, int] = {}
    for item, rows in zip(items, evidence):
        flags = flagger(rows)
        at_break = next((flag for flag in flags if flag.index == item.position), None)
        right.append(float(at_break is not None and at_break.kind == expected))
        if at_break is not None:
            right_flagged.append(float(at_break.kind == expected))
            named[at_break.kind] = named.get(at_break.kind, 0) + 1
        top.append(float(bool(flags) and flags[0].index == item.position))
        clean.append(float(not flags))
    labelled, when_flagged, on_break = _share(right, seed), _share(right_flagged, seed + 1), _share(top, seed + 2)
    return {"n": len(right), "expected": expected,
            "labelled_right": labelled["share"], "labelled_right_interval": labelled["interval"],
            "flagged_at_break": len(right_flagged) / len(right) if right else None,
            "right_when_flagged": when_flagged["share"], "right_when_flagged_interval": when_flagged["interval"],
            "top_flag_on_break": on_break["share"], "top_flag_on_break_interval": on_break["interval"],
            "no_flag": float(np.mean(clean)) if clean else None, "kinds_at_break": dict(sorted(named.items()))}


def drift_measures(items: Sequence[BrokenText], evidence: Sequence[Sequence[Dict[str, Optional[float]]]],
                   flagger: Flagger, seed: int) -> Dict[str, Any]:
    """On the drift set: the share of texts whose top flag is where the drift starts (``k``), with a flag at ``k``,
    with a flag after ``k`` (should be few: the later sentences only stay on the new topic), and with none."""
    top, at_start, after, clean = [], [], [], []
    named: Dict[str, int] = {}
    for item, rows in zip(items, evidence):
        flags = flagger(rows)
        top.append(float(bool(flags) and flags[0].index == item.position))
        start = next((flag for flag in flags if flag.index == item.position), None)
        at_start.append(float(start is not None))
        if start is not None:
            named[start.kind] = named.get(start.kind, 0) + 1
        after.append(float(any(flag.index > item.position for flag in flags)))
        clean.append(float(not flags))
    measures: Dict[str, Any] = {"n": len(top)}
    for name, values, offset in (("top_flag_at_start", top, 0), ("flag_at_start", at_start, 1),
                                 ("flag_after_start", after, 2)):
        cell = _share(values, seed + offset)
        measures[name], measures[f"{name}_interval"] = cell["share"], cell["interval"]
    measures["no_flag"] = float(np.mean(clean)) if clean else None
    measures["kinds_at_start"] = dict(sorted(named.items()))
    return measures


def mean_right_when_flagged(per_kind: Mapping[str, Mapping[str, Any]]) -> Optional[float]:
    """The mean over the three kinds of break of their sets' share labelled right where flagged (each kind weighs
    the same however many sets it has): the kind rule's score on dev."""
    by_kind: Dict[str, List[float]] = {}
    for cell in per_kind.values():
        if cell.get("right_when_flagged") is not None:
            by_kind.setdefault(cell["expected"], []).append(cell["right_when_flagged"])
    if not by_kind:
        return None
    return float(np.mean([np.mean(values) for values in by_kind.values()]))


def compare_rules(texts: Mapping[str, Sequence[BrokenText]],
                  evidence: Mapping[str, Sequence[Sequence[Dict[str, Optional[float]]]]],
                  thresholds: Mapping[str, float], scales: Mapping[str, float], seed: int) -> Dict[str, Any]:
    """Each candidate kind rule and drift rule of ``sentence_breaks`` on the same texts, so the choice can be read
    off the report: per kind rule (every flag kept, so each rule names the same flags), each kind set's share
    labelled right where flagged and their mean over kinds (``mean_right_when_flagged``, the score it was chosen
    by); per drift rule (with the chosen kind rule), the drift measures and, on the kind sets, the mean share whose
    top flag is on the break (a drift rule must not hide a break that is not a drift)."""
    kind_rules: Dict[str, Any] = {}
    for rule in KIND_RULES:
        def flagger(rows: Sequence[Dict[str, Optional[float]]], rule: str = rule) -> List[SentenceFlag]:
            return flag_sentences(rows, thresholds=thresholds, scales=scales, kind_rule=rule,
                                  drift_rule=EVERY_SENTENCE_RULE)
        cells = {name: kind_measures(texts[name], evidence[name], EXPECTED[name], flagger, seed)
                 for name in EXPECTED if name in texts}
        kind_rules[rule] = {"right_when_flagged": {name: cell["right_when_flagged"] for name, cell in cells.items()},
                            "mean_right_when_flagged": mean_right_when_flagged(cells)}
    drift_rules: Dict[str, Any] = {}
    for rule in DRIFT_RULES:
        def drift_flagger(rows: Sequence[Dict[str, Optional[float]]], rule: str = rule) -> List[SentenceFlag]:
            return flag_sentences(rows, thresholds=thresholds, scales=scales, drift_rule=rule)
        cell = drift_measures(texts[DRIFT], evidence[DRIFT], drift_flagger, seed) if DRIFT in texts else {}
        tops = [kind_measures(texts[name], evidence[name], EXPECTED[name], drift_flagger, seed)["top_flag_on_break"]
                for name in EXPECTED if name in texts]
        drift_rules[rule] = {key: cell.get(key) for key in ("top_flag_at_start", "flag_at_start", "flag_after_start",
                                                             "no_flag")}
        drift_rules[rule]["kind_sets_top_flag_on_break"] = float(np.mean(tops)) if tops else None
    return {"kind": kind_rules, "kind_chosen": KIND_RULE, "drift": drift_rules, "drift_chosen": DRIFT_RULE}


def kind_report(texts: Mapping[str, Sequence[BrokenText]],
                evidence: Mapping[str, Sequence[Sequence[Dict[str, Optional[float]]]]],
                thresholds: Mapping[str, float], scales: Mapping[str, float], seed: int) -> Dict[str, Any]:
    """The synthetic dev report's per-kind part: ``kinds`` (per set, ``kind_measures`` of ``explain``'s flags),
    ``drift`` (``drift_measures``) and ``rules`` (``compare_rules``)."""
    def flagger(rows: Sequence[Dict[str, Optional[float]]]) -> List[SentenceFlag]:
        return flag_sentences(rows, thresholds=thresholds, scales=scales)

    kinds = {name: kind_measures(texts[name], evidence[name], EXPECTED[name], flagger, seed)
             for name in EXPECTED if name in texts}
    report: Dict[str, Any] = {"kinds": kinds, "kinds_mean_right_when_flagged": mean_right_when_flagged(kinds)}
    if DRIFT in texts:
        report["drift"] = drift_measures(texts[DRIFT], evidence[DRIFT], flagger, seed)
    report["rules"] = compare_rules(texts, evidence, thresholds, scales, seed)
    return report


__all__ = ["DRIFT", "EXPECTED", "KIND_SETS", "LOCALISATION_INTRUSION", "BrokenText", "build_drift", "build_kind_sets",
           "compare_rules", "drift_measures", "first_difference", "from_localisation", "kind_measures", "kind_report",
           "load_synthetic_kinds", "mean_right_when_flagged"]
