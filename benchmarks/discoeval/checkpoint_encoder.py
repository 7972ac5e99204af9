"""The backbone inside a coherence checkpoint as a DiscoEval sentence encoder (spec ``checkpoint:MODEL``).

Seed 001 reports DiscoEval for encoders trained with discourse objectives; this is how ours is probed: the
checkpoint's fine-tuned transformer, frozen, pooled like :class:`HuggingFaceEncoder` pools any Hub encoder.
The scoring head is not used. MODEL is anything ``coherence-metric score --model`` accepts (``default``, a
packaged name, a folder, a Hub id); delta and adapter checkpoints are rebuilt over their backbone first.
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Union

from coherence_metric.errors import InputError
from coherence_metric.research.encoders import HuggingFaceEncoder
from coherence_metric.toolkit import read_checkpoint_config, resolve_model

logger = logging.getLogger("coherence_metric.benchmarks")


class CheckpointEncoder(HuggingFaceEncoder):
    """A coherence checkpoint's backbone with CLS or mean pooling (default: the checkpoint's own pooling when it
    is one of those, else mean; XLNet-style last-token pooling is not offered because DiscoEval's units are
    single sentences where the last token is a separator)."""

    def __init__(self, model: str, layer: Union[int, str] = -1, pooling: Optional[str] = None, batch_size: int = 64,
                 max_length: Optional[int] = None, device: str = "cpu", display_name: Optional[str] = None) -> None:
        resolved = resolve_model(model)
        self.checkpoint_folder = resolved.folder
        self.checkpoint_config = read_checkpoint_config(resolved.folder)
        own = self.checkpoint_config.pooling
        super().__init__(str(resolved.folder), layer=layer,
                         pooling=pooling or (own if own in ("cls", "mean") else "mean"), batch_size=batch_size,
                         max_length=max_length, device=device,
                         display_name=display_name or f"checkpoint {resolved.label}")

    @property
    def signature(self) -> str:
        """The checkpoint's file-hash fingerprint, layer, pooling, truncation and library versions."""
        if self._signature is None:
            import transformers

            parts = [f"checkpoint:{self.checkpoint_config.fingerprint()}", f"layer={self.layer}",
                     f"pool={self.pooling}", f"maxlen={self.max_length or 'auto'}",
                     f"transformers={transformers.__version__}"]
            self._signature = "|".join(parts)
        return self._signature

    def _load(self) -> None:
        if self._model is not None:
            return
        from coherence_metric import load_checkpoint

        logger.info("loading the backbone of checkpoint %s on %s", self.checkpoint_folder, self.device)
        loaded = load_checkpoint(self.checkpoint_folder)
        backbone: Any = loaded.model.backbone
        if hasattr(backbone, "merge_and_unload"):  # a LoRA adapter: fold it in, the probe wants plain weights
            backbone = backbone.merge_and_unload()
        self._tokenizer = loaded.tokenizer
        self._model = backbone.to(self.device).eval()
        layers = int(getattr(self._model.config, "num_hidden_layers", getattr(self._model.config, "n_layer", 0)))
        if isinstance(self.layer, int) and not -(layers + 1) <= self.layer <= layers:
            raise InputError(f"layer {self.layer} out of range for checkpoint {self.checkpoint_folder}: it has "
                             f"hidden states 0..{layers} (0 = embeddings)")


__all__ = ["CheckpointEncoder"]
