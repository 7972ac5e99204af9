"""The trained BiGRU sentence encoder on disk, and ``trained:FOLDER`` loading for the DiscoEval suite.

A saved folder (``best/`` or ``final/`` of a run) holds ``encoder.pt`` (the encoder's state: the frozen word
vectors and the GRU), ``tokenizer/`` (the word-vector tokenizer) and ``trained_encoder.json`` (family, sizes,
the criteria it was trained with). The decoders are not saved: DiscoEval probes only the encoder, and
leaving them out keeps the folder free of the training vocabularies. Everything the encoder needs is in
the folder, so loading needs neither the training data nor the original word-vector model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import numpy as np
import torch

from coherence_metric.errors import InputError
from coherence_metric.toolkit import parse_json, plain_name, quiet_transformers, sha256_of_file, write_atomically

from ..wordvec import WordVectors
from .model import BiGRUEncoder

FAMILY = "discoeval"
MANIFEST_FILE = "trained_encoder.json"  # coherence_metric.research.encoders.TRAINED_ENCODER_FILE
WEIGHTS_FILE = "encoder.pt"
TOKENIZER_FOLDER = "tokenizer"
FORMAT = 1
OPTIONS = ("batch", "maxlen", "device", "name")


def save_encoder(folder: Path, encoder: BiGRUEncoder, tokenizer: Any, manifest: Dict[str, Any]) -> None:
    """Write ``encoder.pt``, ``tokenizer/`` and ``trained_encoder.json`` (``manifest`` plus family, sizes, files)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {key: value.detach().cpu().clone() for key, value in encoder.state_dict().items()}
    torch.save(state, folder / WEIGHTS_FILE)
    tokenizer.save_pretrained(str(folder / TOKENIZER_FOLDER))
    record = {**manifest, "family": FAMILY, "format": FORMAT, "hidden_size": encoder.hidden_size,
              "embedding_rows": int(encoder.embedding.weight.shape[0]),
              "embedding_dim": int(encoder.embedding.weight.shape[1]),
              "pad_id": encoder.embedding.padding_idx, "weights": WEIGHTS_FILE, "tokenizer": TOKENIZER_FOLDER}
    write_atomically(folder / MANIFEST_FILE, json.dumps(record, indent=2), what="the encoder's manifest")


def _read_manifest(folder: Path) -> Dict[str, Any]:
    path = folder / MANIFEST_FILE
    if not path.is_file():
        raise InputError(f"{folder}: no {MANIFEST_FILE}: not a saved DiscoEval-criteria encoder")
    try:
        manifest = parse_json(path.read_bytes(), str(path))
        if manifest.get("family") != FAMILY:
            raise InputError(f"{path}: family {manifest.get('family')!r}, expected {FAMILY!r}")
        for key in ("hidden_size", "embedding_rows", "embedding_dim", "max_length"):
            int(manifest[key])
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"{path} is corrupt: it must be the JSON a DiscoEval-criteria run writes") from None
    return dict(manifest)


class BiGRUSentenceEncoder:
    """A saved BiGRU encoder as a DiscoEval :class:`~coherence_metric.research.encoders.SentenceEncoder`.

    Texts are tokenized as in training (word pieces, no special tokens, at most ``max_length``), sorted by
    length and batched, so padding is per batch; the vectors do not depend on the batch (packed sequences).
    """

    def __init__(self, folder: Path, batch_size: int = 128, max_length: Optional[int] = None,
                 device: str = "cpu", display_name: Optional[str] = None) -> None:
        self.folder = Path(folder)
        self.manifest = _read_manifest(self.folder)
        record = self.folder / MANIFEST_FILE
        weights = self.folder / plain_name(self.manifest.get("weights", WEIGHTS_FILE), record, "weights")
        self._tokenizer = self.folder / plain_name(self.manifest.get("tokenizer", TOKENIZER_FOLDER), record,
                                                   "tokenizer")
        if not weights.is_file():
            raise InputError(f"{self.folder}: weights file {weights.name} is missing")
        if batch_size < 1:
            raise InputError(f"encoder option batch must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.max_length = int(max_length if max_length is not None else self.manifest["max_length"])
        if self.max_length < 1:
            raise InputError(f"encoder option maxlen must be at least 1, got {self.max_length}")
        self.device = device
        self._weights = weights
        self._digest = sha256_of_file(weights)
        row = self.manifest.get("row", "trained")
        self._name = display_name or f"DiscoEval BiGRU {row} ({self.folder.parent.name}/{self.folder.name})"
        self._encoder: Optional[BiGRUEncoder] = None
        self._vectors: Optional[WordVectors] = None

    @property
    def name(self) -> str:
        """Report name: the criteria row and the run folder."""
        return self._name

    @property
    def signature(self) -> str:
        """Changes whenever the vectors would: the weights' sha256 and the truncation length."""
        return f"discoeval-bigru:{self._digest}:maxlen={self.max_length}"

    @property
    def dim(self) -> int:
        """Vector size (2 x hidden)."""
        return 2 * int(self.manifest["hidden_size"])

    def _load(self) -> BiGRUEncoder:
        if self._encoder is not None:
            return self._encoder
        from transformers import AutoTokenizer


        try:
            state = torch.load(self._weights, map_location="cpu", weights_only=True)
        except Exception as error:  # truncated or foreign file: name it
            raise InputError(f"{self._weights}: cannot read the encoder weights ({type(error).__name__})") from None
        shape = (int(self.manifest["embedding_rows"]), int(self.manifest["embedding_dim"]))
        encoder = BiGRUEncoder(torch.zeros(shape), int(self.manifest["hidden_size"]),
                               pad_id=int(self.manifest.get("pad_id") or 0))
        try:
            encoder.load_state_dict(state)
        except (RuntimeError, TypeError):
            raise InputError(f"{self._weights} does not match {MANIFEST_FILE} (sizes differ)") from None
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(self._tokenizer), trust_remote_code=False)
        self._vectors = WordVectors(tokenizer=tokenizer, weights=encoder.embedding.weight.detach(),
                                    source=str(self.folder))
        self._encoder = encoder.to(self.device).eval()
        return self._encoder

    def encode(self, texts: List[str]) -> np.ndarray:
        """Float32 vectors [len(texts), 2 x hidden], row i for text i."""
        encoder = self._load()
        assert self._vectors is not None
        output = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                rows = order[start: start + self.batch_size]
                ids, lengths = self._vectors.token_ids([texts[row] for row in rows], self.max_length)
                vectors = encoder(ids.to(self.device), lengths)
                output[rows] = vectors.float().cpu().numpy()
        return output


def load_sentence_encoder(folder: Path, options: Mapping[str, str]) -> BiGRUSentenceEncoder:
    """``trained:FOLDER[:batch=N][:maxlen=N][:device=D][:name=TEXT]`` for the DiscoEval suite.

    Raises:
        InputError: an unknown or non-numeric option, or a folder that is not a saved encoder.
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} for trained:{folder}: use {', '.join(OPTIONS)}")
    try:
        batch = int(options.get("batch", "128"))
        max_length = int(options["maxlen"]) if "maxlen" in options else None
    except ValueError:
        raise InputError(f"non-numeric batch/maxlen for trained:{folder}: {dict(options)}") from None
    return BiGRUSentenceEncoder(Path(folder), batch_size=batch, max_length=max_length,
                                device=options.get("device", "cpu"), display_name=options.get("name"))


__all__ = ["BiGRUSentenceEncoder", "FAMILY", "MANIFEST_FILE", "load_sentence_encoder", "save_encoder"]
