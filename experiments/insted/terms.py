"""Sentence-level terms of other checkpoints, each added to the fine-tuned model's cached scores, on the paper suite.

    python -m experiments.insted.terms runs/sentence-scorer-docintr/checkpoint runs/sentence-scorer-crop/checkpoint
    python -m experiments.insted.terms --full runs/sentence-scorer-wide/checkpoint      # every pair

Each folder is a checkpoint with a sentence-level term (``add_sentence_scorer``); only the term is read, and it is
compared with the shipped one on the same pairs (``--limit 500``, or every pair with ``--full``, which needs the
full-set cache of ``experiments/README.md``). A saved term has its dev-chosen weight folded in, so ``x1`` is the
fine-tuned model plus the term at the weight its own dev run chose (for the shipped term: the 0.1.0 default itself, and
for any folder the score of that checkpoint), ``x2`` twice that, and ``alone`` the term without the fine-tuned model.
With ``--full`` each set's sentence embeddings are kept in ``runs/term-embeddings`` so a second term costs seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import torch

from coherence_metric.inputs.texts import sentences_of
from coherence_metric.models.backbones import resolve_backbone_folder
from coherence_metric.models.checkpoint import load_checkpoint
from coherence_metric.research.catalogue import suite_test_sets
from coherence_metric.scoring.sentence_pass import SentenceEmbedder
from coherence_metric.training.sentence_scorer.groups import cache_key, embedded_groups
from experiments.insted.cached import (
    COSINE,
    HEAD,
    LIMIT,
    TERM_WEIGHT,
    cached_scores,
    load_test_set,
    metric,
    shipped_term,
)

EMBEDDINGS = Path("runs/term-embeddings")


def embedded(encoder: SentenceEmbedder, backbone_sha256: str, name: str, documents: Sequence[Sequence[str]],
             limit: Optional[int]) -> Tuple[torch.Tensor, List[List[int]]]:
    """The documents' sentence embeddings and rows; with ``limit=None`` kept in ``EMBEDDINGS`` (the training run's
    :func:`embedded_groups` cache), keyed by the sentences and the backbone's weights."""
    sentences = [sentences_of(document) for document in documents]
    if limit is not None:
        return encoder.embed_documents(sentences)
    key = cache_key({"sentences": sentences, "backbone": backbone_sha256})
    EMBEDDINGS.mkdir(parents=True, exist_ok=True)
    groups = embedded_groups(EMBEDDINGS / f"{name}.pt", key, sentences, [], encoder)
    return groups.embeddings, groups.documents


def main(argv: List[str]) -> None:
    limit: Optional[int] = None if "--full" in argv else LIMIT
    folders = [arg for arg in argv if arg != "--full"]
    models = [load_checkpoint(folder).model for folder in folders]
    encoder = SentenceEmbedder.from_folder(resolve_backbone_folder(models[0].backbone_spec))
    digits = 2 if limit is None else 1
    for name in suite_test_sets("paper"):
        test_set, documents, pos_index, neg_index = load_test_set(name, limit)
        head = cached_scores(name, HEAD, limit)

        def score(values: List[float], test_set=test_set, pos_index=pos_index, neg_index=neg_index) -> float:
            return metric(test_set, pos_index, neg_index, values, digits)

        row = {"cos": score(cached_scores(name, COSINE, limit)), "head": score(head)}
        terms = {"shipped": [TERM_WEIGHT * t for t in shipped_term(name, limit)]}
        embeddings, rows = embedded(encoder, models[0].backbone_spec.weights_sha256, name, documents, limit)
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
