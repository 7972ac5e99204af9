"""Test-set loaders, one module per family, and a registry to load any of them by name."""

from .base import DEFAULT_SEED, PairItem, TestSet, sample_subset
from .intrusion import IntruderFinder, build_intrusion_pairs
from .permutation import permute_sentences, sample_permutation_orders
from .probes import PROBE_NAMES
from .registry import PROBE_TEST_SETS, TEST_SETS, load_test_set, resolve_test_set_name

__all__ = [
    "DEFAULT_SEED",
    "IntruderFinder",
    "PROBE_NAMES",
    "PROBE_TEST_SETS",
    "TEST_SETS",
    "PairItem",
    "TestSet",
    "build_intrusion_pairs",
    "load_test_set",
    "permute_sentences",
    "resolve_test_set_name",
    "sample_permutation_orders",
    "sample_subset",
]
