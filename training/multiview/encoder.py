"""The trained two-view encoder: its module, its folder on disk, and its DiscoEval face (``trained:FOLDER``).

A saved folder (``best/`` or ``final/`` of a run) holds what training changed, and works on a machine without
the training data: ``encoder.safetensors`` (the bi-GRU ``f``, the linear map ``W`` of ``g`` (``U^T`` for the
generative objective) and the principal components used by the post-processing), ``tokenizer/`` and
``trained_encoder.json``. The frozen word-vector matrix is stored by reference (its source and the sha256 of its
values): it is 91% of the bytes (47 of 52 MB for all-MiniLM-L6-v2) and never changes, so a folder is 5 MB and
loading rebuilds the matrix from the installed model, refusing one whose values differ. Folders of format 1,
which hold the matrix, still load.

Test-time representations are those of the paper's Table 2, chosen with spec options:

- ``view=f|g|ensemble`` (default ``ensemble``);
- ``pool=multi|mean|train``: ``multi`` is the supervised column (f: ``[max(H); mean(H); min(H); h_last]``,
  g: ``[max(WX); mean(WX); min(WX)]``), ``mean`` the unsupervised one (``mean(H)``, ``mean(WX)``), ``train``
  what training saw (f: last state, g: ``mean(WX)``). Default ``multi``: DiscoEval trains classifiers on the
  vectors, which is the paper's supervised setting;
- ``ensemble=concat|mean``: default ``concat`` with ``pool=multi`` and ``mean`` otherwise, as in Table 2.
  Averaging needs both views to have one size, so ``ensemble=mean`` with ``pool=multi`` is an error;
- ``pc=remove|keep``: the post-processing (remove the top principal component, then l2-normalise each view;
  ``keep`` skips only the removal, the appendix's "w/o WR" rows);
- ``batch=N``, ``maxlen=N`` (word pieces, default 128), ``device=cpu|cuda``, ``name=TEXT``.

Where we differ from the paper: the principal component is not that of whatever batch is being encoded but
one fixed direction per view and pooling, estimated (SVD) at save time from held-out (dev split) sentences of
the training corpora and stored with the weights. A sentence's vector then does not depend on which other
sentences were encoded with it, which DiscoEval's per-text encoding cache requires.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import CoherenceMetricError, InputError
from coherence_metric.toolkit import write_atomically

from ..wordvec import WordVectors
from .principal import remove_component
from .views import POOLINGS, LinearView, RecurrentView

FAMILY = "multiview"
MANIFEST_FILE = "trained_encoder.json"  # research.encoders.TRAINED_ENCODER_FILE, the name trained:FOLDER reads
WEIGHTS_FILE = "encoder.safetensors"
TOKENIZER_FOLDER = "tokenizer"
FORMAT_VERSION = 2
VIEWS = ("f", "g")
SPEC_OPTIONS = ("view", "pool", "ensemble", "pc", "batch", "maxlen", "device", "name")


class MultiViewEncoder(nn.Module):
    """Frozen word vectors (a non-persistent buffer: never trained, never in the loop's resume state) and the
    two views over them, ``f`` with ``hidden`` units per direction and ``g`` of the same size ``2 * hidden``."""

    word_vectors: torch.Tensor

    def __init__(self, word_vectors: torch.Tensor, hidden: int) -> None:
        super().__init__()
        if hidden < 1:
            raise InputError(f"model.hidden must be at least 1, got {hidden}")
        self.register_buffer("word_vectors", word_vectors.detach().float().clone(), persistent=False)
        word_dim = int(word_vectors.shape[1])
        self.f = RecurrentView(word_dim, hidden)
        self.g = LinearView(word_dim, 2 * hidden)

    @property
    def dim(self) -> int:
        """Size of each view's training vector."""
        return self.f.dim

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Word vectors [B, T, D] of word-piece ids [B, T]."""
        return F.embedding(ids, self.word_vectors)

    def represent(self, ids: torch.Tensor, lengths: torch.Tensor, view: str, pooling: str = "train") -> torch.Tensor:
        """One view's vectors of a batch, before any post-processing."""
        vectors = self.embed(ids)
        return (self.f if view == "f" else self.g).pool(vectors, lengths, pooling)

    def every_pooling(self, ids: torch.Tensor, lengths: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Both views under every pooling, keyed like :func:`component_key`, from one pass of each view."""
        vectors = self.embed(ids)
        return {component_key(view, pooling): pooled
                for view, module in (("f", self.f), ("g", self.g))
                for pooling, pooled in zip(POOLINGS, module.every_pooling(vectors, lengths))}


def component_key(view: str, pooling: str) -> str:
    """Name of a stored principal component in the weights file."""
    return f"pc.{view}.{pooling}"


def save_encoder(folder: Path, model: MultiViewEncoder, tokenizer: Any, components: Mapping[str, torch.Tensor],
                 details: Mapping[str, Any]) -> Path:
    """Write the weights, word vectors, principal components, tokenizer and manifest into ``folder``."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tensors: Dict[str, torch.Tensor] = {key: value.detach().cpu().contiguous()
                                        for key, value in model.state_dict().items()}
    tensors.update({key: value.detach().cpu().float().contiguous() for key, value in components.items()})
    save_file(tensors, str(folder / WEIGHTS_FILE))
    os.chmod(folder / WEIGHTS_FILE, 0o644)  # safetensors writes owner-only; a run folder is meant to be shared
    tokenizer.save_pretrained(str(folder / TOKENIZER_FOLDER))
    digest = hashlib.sha256((folder / WEIGHTS_FILE).read_bytes()).hexdigest()
    manifest = {"family": FAMILY, "format": FORMAT_VERSION, "hidden": model.f.hidden,
                "word_dim": int(model.word_vectors.shape[1]), "weights_sha256": digest,
                "word_vectors_sha256": word_vectors_digest(model.word_vectors), **details}
    write_atomically(folder / MANIFEST_FILE, json.dumps(manifest, indent=2), what="the encoder's manifest")
    return folder


def word_vectors_digest(weights: torch.Tensor) -> str:
    """sha256 of a word-vector matrix's float32 values (row-major), which identifies it across machines."""
    return hashlib.sha256(weights.detach().cpu().float().contiguous().numpy().tobytes()).hexdigest()


def _stored_word_vectors(folder: Path, manifest: Mapping[str, Any], tensors: Dict[str, torch.Tensor],
                         tokenizer: Any) -> torch.Tensor:
    """The frozen matrix: from the weights file (format 1), else rebuilt from its source and checked."""
    if "word_vectors" in tensors:
        return tensors.pop("word_vectors")
    source = str(manifest.get("word_vectors", ""))
    try:
        weights = WordVectors.load(source).weights
    except (CoherenceMetricError, OSError, ValueError) as error:
        raise InputError(f"trained:{folder}: its word vectors come from {source!r}, which does not load here "
                         f"({error})") from None
    if weights.shape[0] != len(tokenizer) or word_vectors_digest(weights) != manifest.get("word_vectors_sha256"):
        raise InputError(f"trained:{folder}: the word vectors of {source!r} here differ from those it was trained "
                         "with (sha256 mismatch): install the same model version")
    return weights


class MultiViewSentenceEncoder:
    """A saved multi-view model as a DiscoEval :class:`~coherence_metric.research.encoders.SentenceEncoder`."""

    def __init__(self, model: MultiViewEncoder, word_vectors: WordVectors, components: Mapping[str, torch.Tensor],
                 view: str, pooling: str, ensemble: str, remove_pc: bool, batch_size: int, max_length: int,
                 device: str, name: str, weights_sha256: str) -> None:
        self.model = model.to(device).eval()
        self.word_vectors = word_vectors
        self.components = {key: value.to(device) for key, value in components.items()}
        self.view, self.pooling, self.ensemble, self.remove_pc = view, pooling, ensemble, remove_pc
        self.batch_size, self.max_length, self.device = batch_size, max_length, device
        self._name = name
        self._signature = (f"multiview:{weights_sha256}:view={view}:pool={pooling}:ensemble={ensemble}:"
                           f"pc={'remove' if remove_pc else 'keep'}:maxlen={max_length}")

    @property
    def name(self) -> str:
        """Short name for reports."""
        return self._name

    @property
    def signature(self) -> str:
        """Weights digest plus every option that changes the vectors (the encoding cache key)."""
        return self._signature

    def _post_processed(self, vectors: torch.Tensor, view: str) -> torch.Tensor:
        if self.remove_pc:
            vectors = remove_component(vectors, self.components[component_key(view, self.pooling)])
        return F.normalize(vectors, dim=-1)

    @torch.no_grad()
    def encode(self, texts: List[str]) -> np.ndarray:
        """float32 [len(texts), dim], row i for text i; texts are batched longest first."""
        if not texts:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        ids, lengths = self.word_vectors.token_ids(list(texts), self.max_length)
        order = torch.argsort(lengths, descending=True)
        rows: List[torch.Tensor] = []
        for start in range(0, len(texts), self.batch_size):
            chosen = order[start:start + self.batch_size]
            longest = int(lengths[chosen].max())
            batch_ids = ids[chosen, :longest].to(self.device)
            batch_lengths = lengths[chosen].to(self.device)
            views = [self._post_processed(self.model.represent(batch_ids, batch_lengths, view, self.pooling), view)
                     for view in (VIEWS if self.view == "ensemble" else (self.view,))]
            if len(views) == 1:
                rows.append(views[0])
            elif self.ensemble == "mean":
                rows.append((views[0] + views[1]) / 2)
            else:
                rows.append(torch.cat(views, dim=-1))
        encoded = torch.cat(rows).float().cpu()
        result = torch.empty_like(encoded)
        result[order] = encoded
        return result.numpy().astype(np.float32)

    def dimension(self) -> int:
        """Size of the encoded vectors under the chosen options."""
        per_view = {"f": self.model.dim * (4 if self.pooling == "multi" else 1),
                    "g": self.model.dim * (3 if self.pooling == "multi" else 1)}
        if self.view != "ensemble":
            return per_view[self.view]
        return per_view["f"] if self.ensemble == "mean" else per_view["f"] + per_view["g"]


def _choice(options: Mapping[str, str], key: str, allowed: tuple, default: str, folder: Path) -> str:
    value = options.get(key, default)
    if value not in allowed:
        raise InputError(f"trained:{folder}: option {key}={value!r} must be one of {', '.join(allowed)}")
    return value


def _positive_int(options: Mapping[str, str], key: str, default: int, folder: Path) -> int:
    text = options.get(key, str(default))
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"trained:{folder}: option {key}={text!r} must be a positive integer") from None
    if value < 1:
        raise InputError(f"trained:{folder}: option {key}={text!r} must be a positive integer")
    return value


def read_manifest(folder: Path) -> Dict[str, Any]:
    """The folder's ``trained_encoder.json``, checked to be a multi-view one whose weights file is intact."""
    manifest_path = folder / MANIFEST_FILE
    try:
        manifest: Dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(f"{manifest_path}: missing or not JSON: not a saved multi-view encoder") from None
    if manifest.get("family") != FAMILY:
        raise InputError(f"{manifest_path}: family is {manifest.get('family')!r}, not {FAMILY!r}")
    if int(manifest.get("format", 0)) > FORMAT_VERSION:
        raise InputError(f"{manifest_path}: format {manifest.get('format')} is newer than this code "
                         f"({FORMAT_VERSION}): upgrade coherence-metric")
    weights = folder / WEIGHTS_FILE
    if not weights.is_file():
        raise InputError(f"{folder}: {WEIGHTS_FILE} is missing")
    if hashlib.sha256(weights.read_bytes()).hexdigest() != manifest.get("weights_sha256"):
        raise InputError(f"{weights}: sha256 does not match {MANIFEST_FILE} (damaged or replaced file)")
    return manifest


def load_sentence_encoder(folder: Path, options: Optional[Mapping[str, str]] = None) -> MultiViewSentenceEncoder:
    """Rebuild a saved multi-view encoder for ``trained:FOLDER[:view=..][:pool=..][:ensemble=..][:pc=..]``.

    Raises:
        InputError: an unknown or invalid option, ``ensemble=mean`` with ``pool=multi``, or a damaged folder.
    """
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    folder = Path(folder)
    options = dict(options or {})
    unknown = sorted(set(options) - set(SPEC_OPTIONS))
    if unknown:
        raise InputError(f"trained:{folder}: unknown option {unknown[0]!r} for a multi-view encoder "
                         f"(known: {', '.join(SPEC_OPTIONS)})")
    view = _choice(options, "view", ("f", "g", "ensemble"), "ensemble", folder)
    pooling = _choice(options, "pool", POOLINGS, "multi", folder)
    ensemble = _choice(options, "ensemble", ("concat", "mean"), "concat" if pooling == "multi" else "mean", folder)
    if view == "ensemble" and ensemble == "mean" and pooling == "multi":
        raise InputError(f"trained:{folder}: ensemble=mean needs views of one size: use pool=mean or pool=train "
                         "(pool=multi gives f 4 and g 3 pooled vectors), or ensemble=concat")
    remove_pc = _choice(options, "pc", ("remove", "keep"), "remove", folder) == "remove"
    batch_size = _positive_int(options, "batch", 64, folder)
    max_length = _positive_int(options, "maxlen", 128, folder)
    manifest = read_manifest(folder)
    tensors = load_file(str(folder / WEIGHTS_FILE))
    tokenizer = AutoTokenizer.from_pretrained(str(folder / TOKENIZER_FOLDER), trust_remote_code=False)
    word_vectors = _stored_word_vectors(folder, manifest, tensors, tokenizer)
    components = {key: tensors.pop(key) for key in list(tensors) if key.startswith("pc.")}
    model = MultiViewEncoder(word_vectors, int(manifest["hidden"]))
    model.load_state_dict(tensors)
    words = WordVectors(tokenizer=tokenizer, weights=word_vectors, source=str(manifest.get("word_vectors", "")))
    default_name = f"multiview-{manifest.get('objective', '?')}:{view}" + (f":{ensemble}" if view == "ensemble" else "")
    return MultiViewSentenceEncoder(model, words, components, view, pooling, ensemble, remove_pc, batch_size,
                                    max_length, options.get("device", "cpu"), options.get("name", default_name),
                                    str(manifest["weights_sha256"]))


__all__ = ["FAMILY", "MANIFEST_FILE", "MultiViewEncoder", "MultiViewSentenceEncoder", "component_key",
           "load_sentence_encoder", "read_manifest", "save_encoder", "word_vectors_digest"]
