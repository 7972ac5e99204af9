"""The encoder and the decoders (seed 002, section 4): a BiGRU over word vectors, mean of its hidden states,
and one feed-forward decoder per target.

The encoder reads frozen word vectors (:class:`coherence_metric.training.wordvec.WordVectors`, our stand-in for GloVe;
the authors' code fine-tuned its embeddings, ``--train_emb`` defaulting to True, so freezing them is a
deliberate difference: it keeps the 30,522 x 384 matrix out of the optimizer, which matters on a CPU). The
sentence vector is the average of the BiGRU's hidden states over the sentence's real positions
(``[forward; backward]``, 2 x hidden numbers), exactly as the authors' ``encoders.gru``.

Each decoder is an MLP (``mlp_layers`` hidden ReLU layers of ``mlp_hidden_size``) ending in the target's
logits: a vocabulary for the bag-of-words targets, classes for NL and SPP. The authors' bag-of-words decoder
put one more linear layer after its MLP's last linear layer (two linear maps in a row, no non-linearity
between), which composes to a single linear map; we use the single one.
"""

from __future__ import annotations

from typing import Dict, List

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

# Decoder names; the criteria use them in pairs (NSP: previous + next, SPP: sentence + paragraph,
# SDT: section + title).
DECODERS_OF: Dict[str, tuple] = {
    "nsp": ("nsp_previous", "nsp_next"),
    "nl": ("nl",),
    "spp": ("spp_sentence", "spp_paragraph"),
    "sdt": ("sdt_section", "sdt_title"),
}


class BiGRUEncoder(nn.Module):
    """Word vectors -> bidirectional GRU -> mean of the hidden states over real (unpadded) positions."""

    def __init__(self, embedding_weights: torch.Tensor, hidden_size: int, pad_id: int = 0) -> None:
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embedding_weights.clone().float(), freeze=True,
                                                      padding_idx=pad_id)
        self.gru = nn.GRU(int(embedding_weights.shape[1]), hidden_size, batch_first=True, bidirectional=True)
        self.hidden_size = hidden_size

    @property
    def dim(self) -> int:
        """Sentence vector size: 2 x hidden."""
        return 2 * self.hidden_size

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Sentence vectors [B, 2H] from word-piece ids [B, T] and lengths [B] (each at least 1)."""
        vectors = self.embedding(ids)
        packed = pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        outputs, _ = self.gru(packed)
        padded, _ = pad_packed_sequence(outputs, batch_first=True, total_length=ids.shape[1])  # zeros past ends
        return padded.sum(dim=1) / lengths.to(padded.device, padded.dtype).unsqueeze(1)


def feed_forward(input_size: int, hidden_size: int, output_size: int, layers: int, dropout: float) -> nn.Sequential:
    """``layers`` x (Linear, ReLU, Dropout) then a Linear to ``output_size``; ``layers=0`` is one Linear."""
    modules: List[nn.Module] = []
    width = input_size
    for _ in range(layers):
        modules += [nn.Linear(width, hidden_size), nn.ReLU(), nn.Dropout(dropout)]
        width = hidden_size
    modules.append(nn.Linear(width, output_size))
    return nn.Sequential(*modules)


class DiscoEvalModel(nn.Module):
    """The encoder and one decoder per target of the selected criteria (``decoders`` maps name -> output size)."""

    def __init__(self, encoder: BiGRUEncoder, outputs: Dict[str, int], mlp_hidden_size: int, mlp_layers: int,
                 dropout: float) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoders = nn.ModuleDict({
            name: feed_forward(encoder.dim, mlp_hidden_size, size, mlp_layers, dropout)
            for name, size in sorted(outputs.items())
        })

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Every decoder's logits for a batch of sentences."""
        vectors = self.encoder(ids, lengths)
        return {name: decoder(vectors) for name, decoder in self.decoders.items()}


__all__ = ["BiGRUEncoder", "DECODERS_OF", "DiscoEvalModel", "feed_forward"]
