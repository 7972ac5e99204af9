"""The pieces of the metric that the project's own training, benchmarks and research code build on.

Training needs the model's parts (checkpoints' configs, batching, the transition pass, the local term), the benchmarks
need explain's internals (its mechanisms, its sentence evidence and calibration) and the scorer's runtime facts (CPU,
profiling stages), and both need a few plain helpers (all-or-nothing writes, safe JSON). They import those from here,
and otherwise only from the user API (``from coherence_metric import ...``) and ``coherence_metric.errors``;
``tests/packaging/test_import_layers.py`` fails on any other import of the package's insides from ``training``,
``benchmarks`` or ``research`` (and from the repository tools, ``tools/``, which import from here too). So the modules
inside ``coherence_metric`` stay free to move: only this table and the user API need to follow.

This is not the user API. A name here is stable within a release, and may change or go in the next one together with
the training and benchmark code that uses it (they ship in the same wheel). Where a benchmark can do its work through
``CoherenceScorer`` (``score``, ``explain``, ``compare``), it does, and the name does not belong here.

Names load on first use, as the package's own do, so importing this module loads neither torch nor numpy: the
benchmark and training command lines import it at startup.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Name -> the module under ``coherence_metric`` that defines it, grouped by layer (tests/packaging/
#: test_import_cycles.py): plain helpers, inputs and statistics, models, scoring, analysis, and what is built on them.
_LAZY = {
    # plain helpers
    "write_atomically": "atomic_write",
    "plain_name": "file_names",
    "plain_names": "file_names",
    "pip_install_hint": "install_hints",
    "InvalidJson": "safe_json",
    "parse_json": "safe_json",
    "read_json": "safe_json",
    # inputs and statistics
    "split_sentences": "inputs.sentences",
    "sentences_of": "inputs.texts",
    "BODY": "inputs.units",
    "FRAME": "inputs.units",
    "ITEM": "inputs.units",
    "KINDS": "inputs.units",
    "Unit": "inputs.units",
    "split_units": "inputs.units",
    "symbols_only": "inputs.units",
    "MAX_RESAMPLES": "statistics.bootstrap",
    # models: checkpoints, backbones, the registry and the model's parts
    "WEIGHTS_NAME": "models.backbones",
    "resolve_backbone_folder": "models.backbones",
    "add_sentence_scorer": "models.checkpoint",
    "remove_sentence_scorer": "models.checkpoint",
    "BACKBONE_DIR": "models.checkpoint_config",
    "BackboneSpec": "models.checkpoint_config",
    "read_checkpoint_config": "models.checkpoint_config",
    "sha256_of_file": "models.checkpoint_config",
    "encoder_layers": "models.layers",
    "pool": "models.model",
    "peft_deprecation_hidden": "models.quiet",
    "quiet_transformers": "models.quiet",
    "read_alias_table": "models.registry",
    "resolve_model": "models.registry",
    "SentenceLevelScorer": "models.sentence_scorer",
    "SentenceScorerShape": "models.sentence_scorer",
    # scoring: batching, windows, the passes, the runtime and its profile
    "pad_batch": "scoring.batching",
    "pad_to_width": "scoring.batching",
    "plan_batches": "scoring.batching",
    "BF16_CPU_FLAGS": "scoring.cpuinfo",
    "cpu_flags": "scoring.cpuinfo",
    "adjacent_pairs": "scoring.local_term",
    "group_by_owner": "scoring.local_term",
    "mix": "scoring.local_term",
    "DOCUMENT_PASS": "scoring.profiling",
    "STAGES": "scoring.profiling",
    "TOKENISE": "scoring.profiling",
    "autocast_context": "scoring.runtime",
    "cpu_description": "scoring.runtime",
    "SentenceEmbedder": "scoring.sentence_pass",
    "adjacent_transition_cosines": "scoring.sentence_pass",
    "PAIR_MAX_LENGTH": "scoring.transition_pass",
    "TransitionModel": "scoring.transition_pass",
    "boundary_pairs": "scoring.transition_pass",
    "encode_pairs": "scoring.transition_pass",
    "transition_model_identity": "scoring.transition_pass",
    "transition_values": "scoring.transition_pass",
    "window_tokens": "scoring.windows",
    "window_units": "scoring.windows",
    # analysis: explain's mechanisms, and its sentence evidence and calibration
    "ADJACENT_COSINE": "analysis.mechanisms",
    "AUTO": "analysis.mechanisms",
    "COSINE_DEV_MEAN": "analysis.mechanisms",
    "COSINE_IN_LOGITS": "analysis.mechanisms",
    "LOCAL_TERM": "analysis.mechanisms",
    "MODEL_AGNOSTIC": "analysis.mechanisms",
    "adjacent_cosine": "analysis.mechanisms",
    "check_mechanism_name": "analysis.mechanisms",
    "has_local_term": "analysis.mechanisms",
    "resolve_mechanism": "analysis.mechanisms",
    "run_mechanism": "analysis.mechanisms",
    "transition_model": "analysis.mechanisms",
    "COHESION": "analysis.sentence_breaks",
    "Calibration": "analysis.sentence_breaks",
    "DEFAULT_CALIBRATION": "analysis.sentence_breaks",
    "DRIFT_RULE": "analysis.sentence_breaks",
    "DRIFT_RULES": "analysis.sentence_breaks",
    "DUPLICATION": "analysis.sentence_breaks",
    "EVERY_SENTENCE_RULE": "analysis.sentence_breaks",
    "EVIDENCE": "analysis.sentence_breaks",
    "KIND_RULE": "analysis.sentence_breaks",
    "KIND_RULES": "analysis.sentence_breaks",
    "RELEVANCE": "analysis.sentence_breaks",
    "SCORE_DROP": "analysis.sentence_breaks",
    "SentenceFlag": "analysis.sentence_breaks",
    "TRANSITION": "analysis.sentence_breaks",
    "break_ranks": "analysis.sentence_breaks",
    "calibration_for": "analysis.sentence_breaks",
    "flag_sentences": "analysis.sentence_breaks",
    "margins": "analysis.sentence_breaks",
    "prefix_scores": "analysis.sentence_breaks",
    "sentence_evidence": "analysis.sentence_breaks",
    "similarity_matrices": "analysis.sentence_breaks",
    # built on the scorer
    "tokenise_like_ptb": "diagnostics",
    # front ends: a checkout's research folders mounted where it was never installed
    "mount_checkout": "cli.lazy",
}

__all__ = [
    "ADJACENT_COSINE",
    "AUTO",
    "BACKBONE_DIR",
    "BF16_CPU_FLAGS",
    "BODY",
    "BackboneSpec",
    "COHESION",
    "COSINE_DEV_MEAN",
    "COSINE_IN_LOGITS",
    "Calibration",
    "DEFAULT_CALIBRATION",
    "DOCUMENT_PASS",
    "DRIFT_RULE",
    "DRIFT_RULES",
    "DUPLICATION",
    "EVERY_SENTENCE_RULE",
    "EVIDENCE",
    "FRAME",
    "ITEM",
    "InvalidJson",
    "KINDS",
    "KIND_RULE",
    "KIND_RULES",
    "LOCAL_TERM",
    "MAX_RESAMPLES",
    "MODEL_AGNOSTIC",
    "PAIR_MAX_LENGTH",
    "RELEVANCE",
    "SCORE_DROP",
    "STAGES",
    "SentenceEmbedder",
    "SentenceFlag",
    "SentenceLevelScorer",
    "SentenceScorerShape",
    "TOKENISE",
    "TRANSITION",
    "TransitionModel",
    "Unit",
    "WEIGHTS_NAME",
    "add_sentence_scorer",
    "adjacent_cosine",
    "adjacent_pairs",
    "adjacent_transition_cosines",
    "autocast_context",
    "boundary_pairs",
    "break_ranks",
    "calibration_for",
    "check_mechanism_name",
    "cpu_description",
    "cpu_flags",
    "encode_pairs",
    "encoder_layers",
    "flag_sentences",
    "group_by_owner",
    "has_local_term",
    "margins",
    "mix",
    "mount_checkout",
    "pad_batch",
    "pad_to_width",
    "parse_json",
    "peft_deprecation_hidden",
    "pip_install_hint",
    "plain_name",
    "plain_names",
    "plan_batches",
    "pool",
    "prefix_scores",
    "quiet_transformers",
    "read_alias_table",
    "read_checkpoint_config",
    "read_json",
    "remove_sentence_scorer",
    "resolve_backbone_folder",
    "resolve_mechanism",
    "resolve_model",
    "run_mechanism",
    "sentence_evidence",
    "sentences_of",
    "sha256_of_file",
    "similarity_matrices",
    "split_sentences",
    "split_units",
    "symbols_only",
    "tokenise_like_ptb",
    "transition_model",
    "transition_model_identity",
    "transition_values",
    "window_tokens",
    "window_units",
    "write_atomically",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .analysis.mechanisms import (
        ADJACENT_COSINE,
        AUTO,
        COSINE_DEV_MEAN,
        COSINE_IN_LOGITS,
        LOCAL_TERM,
        MODEL_AGNOSTIC,
        adjacent_cosine,
        check_mechanism_name,
        has_local_term,
        resolve_mechanism,
        run_mechanism,
        transition_model,
    )
    from .analysis.sentence_breaks import (
        COHESION,
        DEFAULT_CALIBRATION,
        DRIFT_RULE,
        DRIFT_RULES,
        DUPLICATION,
        EVERY_SENTENCE_RULE,
        EVIDENCE,
        KIND_RULE,
        KIND_RULES,
        RELEVANCE,
        SCORE_DROP,
        TRANSITION,
        Calibration,
        SentenceFlag,
        break_ranks,
        calibration_for,
        flag_sentences,
        margins,
        prefix_scores,
        sentence_evidence,
        similarity_matrices,
    )
    from .atomic_write import write_atomically
    from .cli.lazy import mount_checkout
    from .diagnostics import tokenise_like_ptb
    from .file_names import plain_name, plain_names
    from .inputs.sentences import split_sentences
    from .inputs.texts import sentences_of
    from .inputs.units import BODY, FRAME, ITEM, KINDS, Unit, split_units, symbols_only
    from .install_hints import pip_install_hint
    from .models.backbones import WEIGHTS_NAME, resolve_backbone_folder
    from .models.checkpoint import add_sentence_scorer, remove_sentence_scorer
    from .models.checkpoint_config import BACKBONE_DIR, BackboneSpec, read_checkpoint_config, sha256_of_file
    from .models.layers import encoder_layers
    from .models.model import pool
    from .models.quiet import peft_deprecation_hidden, quiet_transformers
    from .models.registry import read_alias_table, resolve_model
    from .models.sentence_scorer import SentenceLevelScorer, SentenceScorerShape
    from .safe_json import InvalidJson, parse_json, read_json
    from .scoring.batching import pad_batch, pad_to_width, plan_batches
    from .scoring.cpuinfo import BF16_CPU_FLAGS, cpu_flags
    from .scoring.local_term import adjacent_pairs, group_by_owner, mix
    from .scoring.profiling import DOCUMENT_PASS, STAGES, TOKENISE
    from .scoring.runtime import autocast_context, cpu_description
    from .scoring.sentence_pass import SentenceEmbedder, adjacent_transition_cosines
    from .scoring.transition_pass import (
        PAIR_MAX_LENGTH,
        TransitionModel,
        boundary_pairs,
        encode_pairs,
        transition_model_identity,
        transition_values,
    )
    from .scoring.windows import window_tokens, window_units
    from .statistics.bootstrap import MAX_RESAMPLES


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'coherence_metric.toolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module_name}", "coherence_metric"), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
