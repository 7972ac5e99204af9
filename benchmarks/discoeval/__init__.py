"""DiscoEval probes (Chen, Chu & Gimpel 2019) for frozen sentence encoders, with the published rows beside ours.

``run_discoeval("minilm")`` loads the twelve tasks from the shared data folder (read in place), encodes every text
unit once (cached on disk per encoder signature, task and split), builds the paper's features, trains logistic
regression (a 2000-unit sigmoid MLP for DC) tuned on valid and reports test accuracy per task, per group and on
average. Three tasks have no train file upstream (SP/wiki, SP/arxiv, DC/wiki): they train on valid and are flagged
in every report. PDTB and RST-DT are LDC-derived: never ship their files or encodings.
"""

from ..reporting.files import write_json
from .classifiers import ClassifierResult, train_and_test
from .encoder_specs import (
    parse_encoder_spec,
    register_encoder_shortcut,
    register_encoder_spec,
    registered_prefixes,
    resolve_encoder,
)
from .encoding_cache import EncodingCache, default_cache_dir
from .features import build_features, feature_dim, segment_vectors
from .loaders import TaskData, discoeval_data_dir, load_task
from .published import PUBLISHED_ROWS, PublishedRow
from .reporting import plot_groups, render_markdown, write_reports
from .runner import DEFAULT_SEED, group_scores, run_discoeval
from .tasks import GROUPS, SPLITS, TASKS, DiscoEvalTask, Example, get_task, select_tasks

__all__ = [
    "DEFAULT_SEED",
    "GROUPS",
    "PUBLISHED_ROWS",
    "SPLITS",
    "TASKS",
    "ClassifierResult",
    "DiscoEvalTask",
    "EncodingCache",
    "Example",
    "PublishedRow",
    "TaskData",
    "build_features",
    "default_cache_dir",
    "discoeval_data_dir",
    "feature_dim",
    "get_task",
    "group_scores",
    "load_task",
    "parse_encoder_spec",
    "plot_groups",
    "register_encoder_shortcut",
    "register_encoder_spec",
    "registered_prefixes",
    "render_markdown",
    "resolve_encoder",
    "run_discoeval",
    "segment_vectors",
    "select_tasks",
    "train_and_test",
    "write_json",
    "write_reports",
]
