"""Frozen sentence encoders: the protocol DiscoEval's probes need, a Hugging Face implementation, and the spec
options transformer encoders share. Here, not in ``benchmarks``, because training's CONPONO family hands its saved
encoder to the probes as one of these, and the probes read the ``trained_encoder.json`` training writes.

DiscoEval only needs ``encode(texts) -> (n, dim) float32`` and a ``signature`` that changes whenever the vectors
would, so cached encodings are reused exactly when valid. torch and transformers are imported on first use, so
listing tasks or rendering a report never pays for them.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence, Union, runtime_checkable

import numpy as np

from coherence_metric.errors import InputError
from coherence_metric.toolkit import pad_to_width

logger = logging.getLogger("coherence_metric.benchmarks")

POOLINGS = ("cls", "mean")
#: What a training family writes into an encoder folder it saves; ``trained:FOLDER`` specs read its ``family``.
TRAINED_ENCODER_FILE = "trained_encoder.json"
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack")
_FINGERPRINT_BYTES = 1 << 20
_PROGRESS_EVERY = 100  # batches between progress lines, so a long background run shows it is alive


@runtime_checkable
class SentenceEncoder(Protocol):
    """What the DiscoEval suite needs from an encoder: a readable name, a cache signature and batched encoding."""

    @property
    def name(self) -> str:
        """Short human-readable name shown in reports."""
        ...

    @property
    def signature(self) -> str:
        """String that identifies the vectors exactly (weights, layer, pooling, versions); the cache key."""
        ...

    def encode(self, texts: List[str]) -> np.ndarray:
        """Encode ``texts`` into a float32 array of shape ``(len(texts), dim)``, row i for text i."""
        ...


class HuggingFaceEncoder:
    """A frozen Hugging Face transformer encoder with CLS or masked-mean pooling over one layer (or all layers).

    The model loads lazily on the first :meth:`encode`, so a run served entirely from the cache never loads it.
    Texts are tokenised once, sorted by length (longest batch first, so out-of-memory shows at once) and batched;
    padding is therefore per batch, and the attention mask keeps padding out of both poolings.

    Args:
        model: a local folder or a Hub model id (loaded offline-first from the local cache by transformers).
        layer: hidden-state index (0 = embeddings, -1 = last layer) or ``"avg"`` for the mean over all hidden
            states, the paper's BERT setting ("averaged vector at the [CLS] position across all layers").
        pooling: ``"cls"`` (first position, BERT-style; models whose summary token comes last, like XLNet,
            should use mean) or ``"mean"`` (attention-mask-weighted mean over tokens, special tokens included, as
            sentence-transformers does).
        batch_size: texts per forward pass.
        max_length: tokens kept per text (longer ones are truncated, as the upstream BERT example does at 512);
            None uses the smaller of the tokenizer's and the model's limit.
        device: torch device string.
        display_name: name shown in reports (default: the folder or Hub id's last part); not part of the signature.
    """

    def __init__(self, model: Union[str, Path], layer: Union[int, str] = -1, pooling: str = "cls",
                 batch_size: int = 64, max_length: Optional[int] = None, device: str = "cpu",
                 display_name: Optional[str] = None) -> None:
        if pooling not in POOLINGS:
            raise InputError(f"unknown pooling {pooling!r} for encoder {model}: use one of {', '.join(POOLINGS)}")
        if isinstance(layer, str) and layer != "avg":
            raise InputError(f"unknown layer {layer!r} for encoder {model}: use an integer or 'avg'")
        if batch_size < 1:
            raise InputError(f"batch_size must be positive, got {batch_size}")
        self.model_ref = str(model)
        self.layer = layer
        self.pooling = pooling
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self.display_name = display_name or Path(self.model_ref).name or self.model_ref
        self._tokenizer: Any = None
        self._model: Any = None
        self._signature: Optional[str] = None

    @property
    def name(self) -> str:
        """E.g. ``all-MiniLM-L6-v2 [layer=-1, pool=cls]``."""
        return f"{self.display_name} [layer={self.layer}, pool={self.pooling}]"

    @property
    def signature(self) -> str:
        """Model id with a weights fingerprint for local folders, layer, pooling, truncation and library versions."""
        if self._signature is None:
            import transformers  # cheap next to a model load, and the version belongs in the key

            parts = [f"hf:{_model_identity(self.model_ref)}", f"layer={self.layer}", f"pool={self.pooling}",
                     f"maxlen={self.max_length or 'auto'}", f"transformers={transformers.__version__}"]
            self._signature = "|".join(parts)
        return self._signature

    def encode(self, texts: List[str]) -> np.ndarray:
        """Encode ``texts`` (any order, duplicates allowed) into float32 vectors, row i for ``texts[i]``.

        Args:
            texts: the text units.

        Returns:
            Array of shape ``(len(texts), hidden_size)``.
        """
        import torch

        self._load()
        if not texts:
            return np.zeros((0, int(self._model.config.hidden_size)), dtype=np.float32)
        encoded = self._tokenizer(list(texts), truncation=True, max_length=self._effective_max_length())
        ids: Sequence[Sequence[int]] = encoded["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        output: Optional[np.ndarray] = None
        batches = range(0, len(order), self.batch_size)
        with torch.inference_mode():
            for number, start in enumerate(batches, start=1):
                rows = order[start:start + self.batch_size]
                rows_ids = [ids[i] for i in rows]
                batch = pad_to_width(self._tokenizer, rows_ids, max(len(row) for row in rows_ids))
                batch = {key: value.to(self.device) for key, value in batch.items()}
                vectors = self._pool(batch).float().cpu().numpy()
                if output is None:
                    output = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                output[rows] = vectors
                if number % _PROGRESS_EVERY == 0:
                    logger.info("encoded %d/%d texts", min(start + self.batch_size, len(order)), len(order))
        return output if output is not None else np.zeros((0, 0), dtype=np.float32)

    def _pool(self, batch: dict) -> Any:
        outputs = self._model(**batch, output_hidden_states=True)
        hidden_states = outputs.hidden_states
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden_states[-1].dtype)
        selected = list(hidden_states) if self.layer == "avg" else [hidden_states[int(self.layer)]]
        pooled = []
        for states in selected:
            if self.pooling == "cls":
                pooled.append(states[:, 0])
            else:
                pooled.append((states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0))
        return sum(pooled[1:], pooled[0]) / len(pooled)

    def _effective_max_length(self) -> int:
        if self.max_length is not None:
            return self.max_length
        limits = [512]
        tokenizer_limit = getattr(self._tokenizer, "model_max_length", None)
        if isinstance(tokenizer_limit, int) and 0 < tokenizer_limit < 100_000:
            limits.append(tokenizer_limit)
        positions = getattr(self._model.config, "max_position_embeddings", None)
        if isinstance(positions, int) and positions > 0:
            limits.append(positions)
        return min(limits)

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModel, AutoTokenizer

        logger.info("loading encoder %s on %s", self.model_ref, self.device)
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(self.model_ref, trust_remote_code=False)
            model = AutoModel.from_pretrained(self.model_ref, trust_remote_code=False)
        except OSError as error:
            raise InputError(f"cannot load Hugging Face encoder {self.model_ref!r}: {error}; pass a local model "
                             "folder or a Hub id available offline") from error
        self._model = model.to(self.device).eval()
        layers = int(getattr(self._model.config, "num_hidden_layers", 0))
        if isinstance(self.layer, int) and not -(layers + 1) <= self.layer <= layers:
            raise InputError(f"layer {self.layer} out of range for {self.model_ref}: it has hidden states "
                             f"0..{layers} (0 = embeddings)")


def _model_identity(model_ref: str) -> str:
    """Local folders: name + a fingerprint of config and weights (retrained weights change it); Hub ids: the id."""
    folder = Path(model_ref).expanduser()
    if not folder.is_dir():
        return model_ref
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(folder).as_posix()
        if path.name == "config.json":
            digest.update(relative.encode() + b"\0" + path.read_bytes())
        elif path.suffix in _WEIGHT_SUFFIXES:
            # Size plus the first and last MiB: cheap for GB-sized weights, yet any retraining changes them.
            size = path.stat().st_size
            digest.update(f"{relative}\0{size}\0".encode())
            with path.open("rb") as handle:
                digest.update(handle.read(_FINGERPRINT_BYTES))
                if size > 2 * _FINGERPRINT_BYTES:
                    handle.seek(-_FINGERPRINT_BYTES, 2)
                    digest.update(handle.read())
    return f"{folder.name}@{digest.hexdigest()[:16]}"


def transformer_encoder_options(target: str, options: Mapping[str, str]) -> Dict[str, Any]:
    """:class:`HuggingFaceEncoder` keyword arguments from spec options (``hf:``, ``checkpoint:`` and trained
    transformer encoders share them); ``pooling`` is None when the spec leaves it to the encoder's default."""
    known = {"layer", "pool", "batch", "maxlen", "device", "name"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} in encoder spec for {target}: "
                         f"use {', '.join(sorted(known))}")
    layer_text = options.get("layer", "-1")
    try:
        layer: Union[int, str] = "avg" if layer_text == "avg" else int(layer_text)
        batch_size = int(options.get("batch", "64"))
        max_length = int(options["maxlen"]) if "maxlen" in options else None
    except ValueError as error:
        raise InputError(f"non-numeric layer/batch/maxlen in encoder spec for {target}: {dict(options)}") from error
    return {"layer": layer, "pooling": options.get("pool"), "batch_size": batch_size, "max_length": max_length,
            "device": options.get("device", "cpu"), "display_name": options.get("name")}
