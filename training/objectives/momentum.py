"""The momentum encoder of eq. 4 and the FIFO queue of momentum-encoded negatives (MoCo, He et al. 2019)."""

from __future__ import annotations

import copy
from typing import Dict

import torch
from torch import nn

from coherence_metric import CoherenceModel
from coherence_metric.toolkit import pool


@torch.no_grad()
def momentum_update(momentum: nn.Module, base: nn.Module, coefficient: float) -> None:
    """Eq. 4: phi' <- mu * phi' + (1 - mu) * phi, for every parameter pair.

    With the paper's mu = 0.9999999 the change per step (1e-7 of the difference) is below float32
    resolution for most weights, so the momentum encoder stays at its initial weights; CPU recipes use
    a smaller mu. The authors' code updates before ``optimizer.step()``; our trainer does the same.
    """
    for momentum_parameter, base_parameter in zip(momentum.parameters(), base.parameters()):
        momentum_parameter.mul_(coefficient).add_(base_parameter.detach(), alpha=1.0 - coefficient)


class MomentumEncoder(nn.Module):
    """A frozen copy of a model's backbone and pooling, updated only by ``momentum_update``."""

    def __init__(self, model: CoherenceModel) -> None:
        super().__init__()
        self.backbone = copy.deepcopy(model.backbone)
        self.pooling = model.pooling
        for parameter in self.backbone.parameters():
            parameter.requires_grad_(False)

    @torch.no_grad()
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Document vectors [B, H], without gradient."""
        hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return pool(hidden, attention_mask, self.pooling)

    def update_from(self, model: CoherenceModel, coefficient: float) -> None:
        """Move towards the base model's backbone by eq. 4."""
        momentum_update(self.backbone, model.backbone, coefficient)


class NegativeQueue:
    """A first-in first-out queue of the last ``size`` momentum-encoded negative vectors.

    Vectors are stored detached, in fp32, on the CPU or the training device. The whole state is two
    tensors, saved with the trainer's state so a resumed run continues with the same queue.
    """

    def __init__(self, size: int, dim: int, device: torch.device | str = "cpu") -> None:
        if size < 1:
            raise ValueError("queue size must be at least 1")
        self.size = size
        self.buffer = torch.zeros(size, dim, device=device)
        self.count = 0  # vectors held, at most size
        self.head = 0  # next slot to write (the oldest vector once full)

    def enqueue(self, vectors: torch.Tensor) -> None:
        """Add vectors [K, H]; when full, the oldest ones are dropped first."""
        for vector in vectors.detach().to(self.buffer.device, torch.float32):
            self.buffer[self.head] = vector
            self.head = (self.head + 1) % self.size
            self.count = min(self.count + 1, self.size)

    def vectors(self) -> torch.Tensor:
        """The queued vectors [count, H], oldest first."""
        if self.count < self.size:
            return self.buffer[: self.count]
        return torch.cat([self.buffer[self.head:], self.buffer[: self.head]])

    def __len__(self) -> int:
        return self.count

    def state_dict(self) -> Dict[str, torch.Tensor]:
        """Tensors that restore the queue exactly."""
        return {"buffer": self.buffer.clone(), "count": torch.tensor(self.count), "head": torch.tensor(self.head)}

    def load_state_dict(self, state: Dict[str, torch.Tensor]) -> None:
        """Restore from ``state_dict()``."""
        self.buffer = state["buffer"].to(self.buffer.device)
        self.size = self.buffer.shape[0]
        self.count = int(state["count"])
        self.head = int(state["head"])
