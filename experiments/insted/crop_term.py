"""The sentence-level term retrained with half of its items cut to their first 3-8 sentences.

    python -m experiments.insted.crop_term runs/sentence-scorer-crop

The shipped recipe (``cpu-minilm-sentence-scorer.yaml``) over the fine-tuned model alone (``runs/base-852da``, see
experiments/README.md); only its sampled training groups change. Then ``python -m experiments.insted.terms
runs/sentence-scorer-crop/checkpoint``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import coherence_metric.training.sentence_scorer.recipe as recipe_module
from coherence_metric.training.config import read_recipe_mapping
from experiments.insted.cropping import crop_half

original_sample_groups = recipe_module.sample_groups


def cropped_sample_groups(items, count, permutations, intrusions, seed, document_intrusions=0):  # type: ignore[no-untyped-def]
    """The recipe's own draw of items, half of them cut; the recipe then draws its groups from that sample."""
    sample = random.Random(seed).sample(list(items), min(count, len(items)))
    return original_sample_groups(crop_half(sample, seed, 5), len(sample), permutations, intrusions, seed,
                                  document_intrusions)


def main(out: str) -> None:
    recipe_module.sample_groups = cropped_sample_groups
    mapping = read_recipe_mapping(Path("training/configs/cpu-minilm-sentence-scorer.yaml"),
                                  {"output_dir": out, "base_checkpoint": "runs/base-852da"})
    recipe = recipe_module.recipe_from_mapping(mapping, "crop")
    print(recipe_module.SentenceScorerRun(recipe).run())


if __name__ == "__main__":
    main(sys.argv[1])
