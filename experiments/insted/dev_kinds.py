"""Does our own dev set show the INSTED-WIKI gap? The 0.1.0 default (cm-minilm-2026.11) against adjacent cosine on
each kind of dev negative.

    python -m experiments.insted.dev_kinds [RUN]

``RUN`` (default ``runs/sentence-scorer-docintr``) is a sentence-level-term run whose dev groups hold more than one
kind of intrusion: ``data.document_intrusions`` (MODELS.md, "the term trained on INSteD-shaped intrusions as well":
600 dev items, each with 5 permutations, 2 nearest-sentence intrusions and 2 random sentences of the most similar other
document, the kind INSTED-WIKI has) or ``data.sibling_intrusions`` (``runs/sentence-scorer-sibling``: sentences of
another block of the same document). The groups, their pretrained sentence embeddings and the fine-tuned model's
scores of them are all in that folder. The shipped term is added to those scores as the default adds it, and each
kind of negative is read separately. Wikipedia items are also read on their own, the source INSTED-WIKI comes from.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import torch

from coherence_metric.scorer import CoherenceScorer
from coherence_metric.scoring.sentence_pass import adjacent_cosines
from coherence_metric.training.evaluation import Span, group_documents
from coherence_metric.training.sentence_scorer.fit import term_scores
from coherence_metric.training.sentence_scorer.groups import (
    EmbeddedGroups,
    cache_key,
    draw_items,
    intrusions_by_kind,
    load_items,
)
from coherence_metric.training.sentence_scorer.recipe import SentenceScorerData
from coherence_metric.training.state_files import read_state

COSINE_WEIGHTS = (1, 2, 4, 8, 16)


def pairs_by_kind(spans: Sequence[Span], intrusion_kinds: Sequence[Sequence[str]], sources: Sequence[str],
                  only: str = "") -> Dict[str, List[Tuple[int, int]]]:
    """(positive, negative) document positions per kind of negative; ``only``: items of one source."""
    pairs: Dict[str, List[Tuple[int, int]]] = defaultdict(list)
    for (start, permutations, intrusions), item_kinds, source in zip(spans, intrusion_kinds, sources):
        if only and source != only:
            continue
        assert len(item_kinds) == intrusions
        kinds = ["permutation"] * permutations + list(item_kinds)
        for offset, kind in enumerate(kinds, start=1):
            pairs[kind].append((start, start + offset))
    return pairs


def accuracy_by_kind(scores: Sequence[float], pairs: Dict[str, List[Tuple[int, int]]]) -> Dict[str, float]:
    """The share of each kind's pairs that the positive wins (a tie loses)."""
    return {kind: round(100 * sum(scores[pos] > scores[neg] for pos, neg in kind_pairs) / len(kind_pairs), 1)
            for kind, kind_pairs in pairs.items()}


def main(run: str = "runs/sentence-scorer-docintr") -> None:
    folder = Path(run)
    # weights_only loads (tensors, numbers, strings, containers): a run folder from elsewhere never runs code here
    recipe = read_state(folder / "state.pt", keys=("recipe",))["recipe"]
    data = SentenceScorerData(**recipe["data"])
    _, dev_items = load_items(Path(data.dir), data.decontaminate, data.source_limits, data.source_limit_seed)
    # sample_groups' own steps, kept apart so the intrusions are built once and their kinds stay known
    sample = draw_items(dev_items, data.dev_items, data.dev_seed)
    by_kind = intrusions_by_kind(sample, dev_items, data.intrusions, data.document_intrusions,
                                 data.sibling_intrusions, data.dev_seed)
    documents, spans = group_documents(sample, data.permutations,
                                       {item_id: [intrusion for intrusion, _ in found] for item_id, found in
                                        by_kind.items()})
    intrusion_kinds = [[kind for _, kind in by_kind[item.id]] for item in sample]
    sources = [item.source for item in sample]
    stored = torch.load(folder / "embeddings-dev.pt", weights_only=True)
    groups = EmbeddedGroups(stored["embeddings"], stored["documents"], stored["spans"])
    assert groups.spans == spans, "the run's dev groups differ from the ones rebuilt here"
    known = json.loads((folder / "base_dev_scores.json").read_text(encoding="utf-8"))["scores"]
    head = [known[cache_key({"sentences": document})] for document in documents]
    term = term_scores(CoherenceScorer("cm-minilm-2026.11").model.sentence_scorer, groups)  # the 0.1.0 default
    default = [h + t for h, t in zip(head, term)]
    cosine = adjacent_cosines(groups.embeddings, groups.documents)
    systems: Dict[str, List[float]] = {"fine-tuned alone": head, "default": default, "cosine": cosine}
    for weight in COSINE_WEIGHTS:
        systems[f"default + {weight} cos"] = [d + weight * c for d, c in zip(default, cosine)]
    for only in ("", "wiki"):
        pairs = pairs_by_kind(spans, intrusion_kinds, sources, only)
        print(f"dev items from {only or 'every source'}, pairs {({k: len(v) for k, v in pairs.items()})}:")
        for label, scores in systems.items():
            print(f"  {label}: {accuracy_by_kind(scores, pairs)}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
