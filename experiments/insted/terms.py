"""Sentence-level terms of other checkpoints, each added to the fine-tuned model's cached scores, on the paper suite.

    python -m experiments.insted.terms runs/sentence-scorer-docintr/checkpoint runs/sentence-scorer-crop/checkpoint

Each folder is a checkpoint with a sentence-level term (``add_sentence_scorer``); only the term is read, and it is
compared with the shipped one on the same ``--limit 500`` pairs. A saved term has its dev-chosen weight folded in,
so ``x1`` is the fine-tuned model plus the term at the weight its own dev run chose (for the shipped term: the
default itself), ``x2`` twice that, and ``alone`` the term without the fine-tuned model.
"""

from __future__ import annotations

import sys
from typing import List

import torch

from benchmarks.suites.catalogue import suite_test_sets
from coherence_metric.backbones import resolve_backbone_folder
from coherence_metric.checkpoint import load_checkpoint
from coherence_metric.cohesion import SentenceCohesion
from coherence_metric.texts import sentences_of
from experiments.insted.cached import COSINE, HEAD, TERM_WEIGHT, cached_scores, load_test_set, metric, shipped_term


def main(folders: List[str]) -> None:
    models = [load_checkpoint(folder).model for folder in folders]
    encoder = SentenceCohesion.from_folder(resolve_backbone_folder(models[0].backbone_spec))
    for name in suite_test_sets("paper"):
        test_set, documents, pos_index, neg_index = load_test_set(name)
        head = cached_scores(name, HEAD)

        def score(values: List[float], test_set=test_set, pos_index=pos_index, neg_index=neg_index) -> float:
            return metric(test_set, pos_index, neg_index, values)

        row = {"cos": score(cached_scores(name, COSINE)), "head": score(head)}
        terms = {"shipped": [TERM_WEIGHT * t for t in shipped_term(name)]}
        embeddings, rows = encoder.embed_documents([sentences_of(document) for document in documents])
        for folder, model in zip(folders, models):
            with torch.inference_mode():
                terms[folder] = model.sentence_scorer.score_documents(embeddings, rows).tolist()
        for label, term in terms.items():
            row[f"{label}:alone"] = score(term)
            for w in (0.5, 1, 2, 4):
                row[f"{label}:x{w}"] = score([h + w * t for h, t in zip(head, term)])
        print(name, row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
