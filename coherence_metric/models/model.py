"""The coherence model: f(D) = w . z + b, with z the backbone's vector of the whole document.

This is the paper's basic architecture with any Hugging Face encoder. Unlike the reference code, an
attention mask is always passed, so padding never changes a score. Training builds the same class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Tuple, Union

import torch
from torch import nn

from ..errors import InputError
from .checkpoint_config import POOLINGS, BackboneSpec, sha256_of_file
from .layers import keep_first_layers
from .quiet import quiet_transformers
from .sentence_scorer import SentenceLevelScorer
from .transition_term import TransitionTerm


def default_pooling(model_type: str) -> str:
    """Last token for XLNet (its <cls> is last, as in the paper), mean pooling for BERT-like encoders.

    Mean pooling rather than [CLS] because all-MiniLM-L6-v2 and most sentence encoders were trained
    with it; [CLS] stays available through ``pooling="cls"``.
    """
    return "last" if model_type == "xlnet" else "mean"


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """Reduce token states [B, T, H] to document vectors [B, H] using only real (unmasked) tokens.

    Args:
        hidden: the backbone's last hidden states.
        attention_mask: 1 for real tokens, 0 for padding, on either side.
        pooling: ``last`` (last real token), ``cls`` (first real token) or ``mean``.
    """
    mask = attention_mask.to(hidden.dtype)
    if pooling == "mean":
        summed = (hidden * mask.unsqueeze(-1)).sum(dim=1)
        return summed / mask.sum(dim=1, keepdim=True).clamp(min=1.0)
    positions = torch.arange(hidden.shape[1], device=hidden.device).expand_as(attention_mask)
    real = attention_mask.bool()
    if pooling == "last":
        index = torch.where(real, positions, torch.full_like(positions, -1)).max(dim=1).values
    elif pooling == "cls":
        big = torch.full_like(positions, hidden.shape[1])
        index = torch.where(real, positions, big).min(dim=1).values
    else:
        raise InputError(f"unknown pooling {pooling!r}: choose one of {', '.join(POOLINGS)}")
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), index]


class CoherenceModel(nn.Module):
    """A transformer encoder, a pooling rule and a linear head giving one unbounded score per document.

    Args:
        backbone: a transformers ``PreTrainedModel`` (or a PEFT model wrapping one).
        pooling: ``last``, ``cls`` or ``mean``.
        backbone_spec: where the backbone's pretrained weights come from (recorded in checkpoints).
        max_length: the longest input in tokens the model was trained or is meant to score.
        head: the scoring layer; a fresh ``Linear(hidden, 1)`` when omitted (an untrained head).
        cohesion_weight: when set, a text's score is the head's plus this weight times the mean adjacent-sentence
            cosine of the pretrained backbone's sentence embeddings (:mod:`coherence_metric.scoring.sentence_pass`).
            The term is added per text by ``CoherenceScorer`` and the trainer, not in ``forward``, which reads tokens,
            not sentences. A fixed number (a buffer, saved with the head), not a trained one.
        sentence_scorer: when set, a text's score also adds this module's reading of the text's sentences
            (:mod:`coherence_metric.models.sentence_scorer`), over the same pretrained sentence embeddings; like the
            cohesion term it is added per text by ``CoherenceScorer``, not in ``forward``.
        local_weight: when set (0 < w <= 1), a text's score is (1 - w) times the whole text's score plus w times the
            mean score of its adjacent sentence pairs, each pair scored alone by this same model (the "local" score
            of CoUDA's global + local scoring; :mod:`coherence_metric.scoring.local_term`). Mixed per text by
            ``CoherenceScorer``; a one-sentence text has no pair and keeps its whole-text score.
    """

    cohesion_weight: Optional[torch.Tensor]
    local_weight: Optional[torch.Tensor]
    sentence_scorer: Optional[SentenceLevelScorer]
    #: Set by a reference checkpoint (format 5): a transition model's mean boundary logit mixed into the score.
    transition_term: Optional[TransitionTerm] = None
    #: Set when the backbone keeps only its first layers (:func:`coherence_metric.models.layers.keep_first_layers`): the
    #: count a checkpoint records (format 6), so the loader cuts the named backbone the same way.
    num_layers: Optional[int] = None

    def __init__(
        self,
        backbone: nn.Module,
        pooling: str,
        backbone_spec: BackboneSpec,
        max_length: int,
        head: Optional[nn.Linear] = None,
        cohesion_weight: Optional[float] = None,
        sentence_scorer: Optional[SentenceLevelScorer] = None,
        local_weight: Optional[float] = None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InputError(f"unknown pooling {pooling!r}: choose one of {', '.join(POOLINGS)}")
        self.backbone = backbone
        self.pooling = pooling
        self.backbone_spec = backbone_spec
        self.max_length = int(max_length)
        self.head = head if head is not None else nn.Linear(_hidden_size(backbone), 1)
        if cohesion_weight is not None and not (float(cohesion_weight) > 0.0):
            raise InputError(f"cohesion_weight must be a positive number, got {cohesion_weight!r}")
        self.register_buffer("cohesion_weight",
                             None if cohesion_weight is None else torch.tensor(float(cohesion_weight)))
        if sentence_scorer is not None and sentence_scorer.shape.embedding_dim != _hidden_size(backbone):
            raise InputError(f"the sentence scorer reads {sentence_scorer.shape.embedding_dim}-wide sentence "
                             f"embeddings, but the backbone's are {_hidden_size(backbone)} wide")
        self.sentence_scorer = sentence_scorer
        if local_weight is not None and not (0.0 < float(local_weight) <= 1.0):
            raise InputError(f"local_weight must lie in (0, 1], got {local_weight!r}")
        self.register_buffer("local_weight", None if local_weight is None else torch.tensor(float(local_weight)))

    @property
    def hidden_size(self) -> int:
        """Width of the document vector z."""
        return int(self.head.in_features)

    def keep_first_layers(self, count: int) -> None:
        """Keep the backbone's first ``count`` transformer layers (a faster student that training then adapts); the
        checkpoint records the count. Raises InputError for a count outside 1..the backbone's layers."""
        keep_first_layers(self.backbone, count)
        self.num_layers = count

    def document_vectors(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """The pooled document representation z, before the head (the momentum loss works on it)."""
        outputs = self.backbone(input_ids=input_ids, attention_mask=attention_mask)
        return pool(outputs.last_hidden_state, attention_mask, self.pooling)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, return_vectors: bool = False
    ) -> Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        """Scores [B]: higher means more coherent; only differences between scores carry meaning.

        With ``return_vectors`` also the document vectors [B, H] (training's momentum loss needs both
        from one forward pass, which is also what DistributedDataParallel requires).
        """
        vectors = self.document_vectors(input_ids, attention_mask)
        scores = self.head(vectors.to(self.head.weight.dtype)).squeeze(-1)
        return (scores, vectors) if return_vectors else scores

    @classmethod
    def from_backbone(
        cls,
        name_or_path: Union[str, Path],
        pooling: Optional[str] = None,
        max_length: Optional[int] = None,
        revision: Optional[str] = None,
        seed: Optional[int] = None,
    ) -> "CoherenceModel":
        """A model with pretrained backbone weights and an untrained head (the paper's "No FT" start).

        Args:
            name_or_path: a local folder (the usual case offline) or a Hub repo id.
            pooling: None picks the backbone type's default (see ``default_pooling``).
            max_length: None takes the backbone's position limit, capped at 512.
            revision: Hub revision, recorded in the spec so checkpoints pin it.
            seed: seeds the head's initialisation, so an untrained baseline is reproducible.
        """
        from transformers import AutoModel

        folder = Path(name_or_path).expanduser()
        with quiet_transformers():
            # No code from the folder, and float32 weights whatever its config.json says (transformers 5 follows it).
            backbone = AutoModel.from_pretrained(str(name_or_path), revision=revision, trust_remote_code=False,
                                                 dtype=torch.float32)
        weights = folder / "model.safetensors"
        spec = BackboneSpec(
            name_or_path=str(name_or_path),
            revision=revision,
            model_type=str(backbone.config.model_type),
            weights_sha256=sha256_of_file(weights) if weights.is_file() else None,
        )
        positions = getattr(backbone.config, "max_position_embeddings", None)
        resolved_length = max_length or min(int(positions or 512), 512)
        head = None
        if seed is not None:
            generator_state = torch.random.get_rng_state()
            torch.manual_seed(seed)
            head = nn.Linear(_hidden_size(backbone), 1)
            torch.random.set_rng_state(generator_state)
        return cls(backbone, pooling or default_pooling(spec.model_type), spec, resolved_length, head)


def _hidden_size(backbone: nn.Module) -> int:
    config: Any = backbone.config
    return int(getattr(config, "hidden_size", None) or config.d_model)
