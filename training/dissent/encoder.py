"""Saving a trained DisSent model, and loading it back as a sentence encoder (``trained:FOLDER``).

A saved folder holds ``trained_encoder.json`` (family ``dissent``, the model kind and settings, the
markers, and sha256 sums), and:

- BiLSTM: ``model.pt`` (LSTM and classifier weights) and ``tokenizer/``. The frozen word-vector matrix
  is not copied (47 MB that never changes): the manifest names its source and its sha256, and loading
  refuses a source whose matrix differs.
- transformer: ``backbone/`` (Hugging Face format, with the tokenizer) and ``head.pt``.

The sentence vector is the BiLSTM's max-pooled state (paper eq. 1) or, for the transformer, the mean of
one sentence's token states (see :mod:`coherence_metric.training.dissent.finetune`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Union

import numpy as np
import torch
from torch import nn

from coherence_metric.errors import InputError
from coherence_metric.toolkit import sha256_of_file, write_atomically

from ..wordvec import WordVectors
from .finetune import PairTransformer
from .model import DisSentBiLSTM

MANIFEST = "trained_encoder.json"
FAMILY = "dissent"
ENCODER_OPTIONS = ("batch", "device")
Model = Union[DisSentBiLSTM, PairTransformer]


def matrix_sha256(weights: torch.Tensor) -> str:
    """sha256 of a float32 matrix's bytes (identifies the frozen word vectors)."""
    return hashlib.sha256(weights.detach().cpu().float().contiguous().numpy().tobytes()).hexdigest()


def save_trained(model: nn.Module, folder: Path, markers: Sequence[str]) -> None:
    """Write ``model`` so :func:`load_trained` (and ``trained:FOLDER``) can rebuild it without training data.

    Raises:
        InputError: ``model`` is neither of the two DisSent models.
    """
    if not isinstance(model, (DisSentBiLSTM, PairTransformer)):
        raise InputError(f"cannot save a {type(model).__name__} as a DisSent model")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    manifest: Dict[str, Any] = {"family": FAMILY, "model": model.kind, "markers": list(markers),
                                "config": dict(model.config)}
    if isinstance(model, DisSentBiLSTM):
        torch.save({key: value.detach().cpu() for key, value in model.state_dict().items()}, folder / "model.pt")
        model.word_vectors.tokenizer.save_pretrained(str(folder / "tokenizer"))
        manifest["word_vectors"] = model.word_vectors.source
        manifest["word_vectors_sha256"] = matrix_sha256(model.word_vectors.weights)
        manifest["weights_sha256"] = sha256_of_file(folder / "model.pt")
    else:
        model.save_backbone(folder / "backbone")
        torch.save({key: value.detach().cpu() for key, value in model.head.state_dict().items()}, folder / "head.pt")
        digest = hashlib.sha256(sha256_of_file(folder / "head.pt").encode())
        for path in sorted((folder / "backbone").glob("*.safetensors")) + sorted((folder / "backbone").glob("*.bin")):
            digest.update(sha256_of_file(path).encode())
        manifest["weights_sha256"] = digest.hexdigest()
    write_atomically(folder / MANIFEST, json.dumps(manifest, indent=2), what="the encoder's manifest")


def read_manifest(folder: Path) -> Dict[str, Any]:
    """The folder's manifest, checked to be a DisSent one.

    Raises:
        InputError: no manifest, unreadable JSON, another family, or an unknown model kind.
    """
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise InputError(f"{folder}: no {MANIFEST}: not a DisSent best/ or final/ folder")
    try:
        manifest: Dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise InputError(f"{path} is not valid JSON") from None
    if manifest.get("family") != FAMILY or manifest.get("model") not in ("bilstm", "transformer"):
        raise InputError(f"{path}: not a DisSent model (family {manifest.get('family')!r}, "
                         f"model {manifest.get('model')!r})")
    return manifest


def load_trained(folder: Path) -> Model:
    """Rebuild the saved model (eval mode, on the CPU).

    Raises:
        InputError: a bad manifest, missing files, or word vectors that are not the ones trained with.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    config = manifest["config"]
    try:
        if manifest["model"] == "bilstm":
            from transformers import AutoTokenizer

            vectors = WordVectors.load(manifest["word_vectors"])
            if matrix_sha256(vectors.weights) != manifest["word_vectors_sha256"]:
                raise InputError(f"{folder}: the word vectors at {manifest['word_vectors']!r} are not the ones "
                                 "this model was trained with (sha256 differs)")
            tokenizer = AutoTokenizer.from_pretrained(str(folder / "tokenizer"), trust_remote_code=False)
            vectors = WordVectors(tokenizer=tokenizer, weights=vectors.weights, source=vectors.source)
            model: Model = DisSentBiLSTM(vectors, config["hidden"], config["fc_dim"], config["classes"],
                                         config["activation"], config["max_length"])
            model.load_state_dict(torch.load(folder / "model.pt", map_location="cpu", weights_only=True))
        else:
            model = PairTransformer.from_pretrained(str(folder / "backbone"), config["classes"], config["max_length"])
            model.head.load_state_dict(torch.load(folder / "head.pt", map_location="cpu", weights_only=True))
    except (OSError, KeyError) as error:
        raise InputError(f"{folder}: incomplete DisSent model ({type(error).__name__}: {error})") from None
    model.eval()
    return model


class DisSentSentenceEncoder:
    """A trained DisSent model as a DiscoEval sentence encoder (frozen, batched, no gradients)."""

    def __init__(self, folder: Path, batch_size: int = 64, device: str = "cpu") -> None:
        self.folder = Path(folder)
        self.manifest = read_manifest(self.folder)
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None

    @property
    def name(self) -> str:
        """``dissent-<kind>-<markers>:<folder name>``."""
        return f"dissent-{self.manifest['model']}-{len(self.manifest['markers'])}m:{self.folder.name}"

    @property
    def signature(self) -> str:
        """Changes whenever the vectors would: the weights' sha256, the kind and the word vectors."""
        parts = [FAMILY, self.manifest["model"], self.manifest["weights_sha256"],
                 str(self.manifest.get("word_vectors_sha256", "")), json.dumps(self.manifest["config"], sort_keys=True)]
        return "dissent:" + hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]

    def encode(self, texts: List[str]) -> np.ndarray:
        """float32 [len(texts), dim]."""
        if self._model is None:
            self._model = load_trained(self.folder).to(self.device)
        rows: List[np.ndarray] = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                chunk = list(texts[start: start + self.batch_size])
                rows.append(self._model.encode(chunk).float().cpu().numpy())
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(rows).astype(np.float32)


def load_sentence_encoder(folder: Union[str, Path], options: Mapping[str, str]) -> DisSentSentenceEncoder:
    """``trained:FOLDER[:batch=N][:device=D]`` for a DisSent folder.

    Raises:
        InputError: an unknown option, a non-numeric batch, or a folder that is not a DisSent model.
    """
    unknown = sorted(set(options) - set(ENCODER_OPTIONS))
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} for a DisSent encoder: use "
                         f"{', '.join(ENCODER_OPTIONS)}")
    try:
        batch_size = int(options.get("batch", "64"))
    except ValueError:
        raise InputError(f"batch must be an integer, got {options.get('batch')!r}") from None
    if batch_size < 1:
        raise InputError(f"batch must be positive, got {batch_size}")
    return DisSentSentenceEncoder(Path(folder), batch_size=batch_size, device=options.get("device", "cpu"))


__all__ = ["DisSentSentenceEncoder", "MANIFEST", "load_sentence_encoder", "load_trained", "read_manifest",
           "save_trained"]
