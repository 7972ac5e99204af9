"""Training data for the coherence model: documents -> positives and permuted negatives.

The pipeline follows Jwalapuram, Joty & Lin (ACL 2022), section 2.1: documents of at least 4 sentences,
10-sentence blocks for documents of 20+ sentences, a 600-token cap, and unique sentence permutations as
negatives (h = 50 per positive, for hard-negative mining). Splits are by document id; files are
gzipped JSON Lines (``read_split``). ``coherence-metric train prepare`` runs it end to end. The corpus readers,
documents and splits live in ``research``: the benchmarks' stand-ins read the same held-out documents.
"""

from __future__ import annotations

from coherence_metric.research.permutations import negative_orders

from .examples import BuildCounts, ExampleConfig, TrainingItem, build_items, document_blocks
from .storage import read_manifest, read_split, split_path, write_split
from .tokens import TokenCounter, load_tokenizer

__all__ = [
    "BuildCounts",
    "ExampleConfig",
    "TokenCounter",
    "TrainingItem",
    "build_items",
    "document_blocks",
    "load_tokenizer",
    "negative_orders",
    "read_manifest",
    "read_split",
    "split_path",
    "write_split",
]
