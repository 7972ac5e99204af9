"""Several processes, one loop: DistributedDataParallel under ``torchrun`` (gloo on CPU, nccl on GPU).

Each process trains on its own documents of every optimizer step and DDP averages the gradients. The
momentum encoder and negative queue stay per process (no all-gather of keys): each queue holds that
process's recent negatives. Rank 0 alone evaluates, logs and writes checkpoints.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, ContextManager

import torch
from torch import nn


@dataclass(frozen=True)
class World:
    """This process's place: rank, world size, and the device it trains on."""

    rank: int
    size: int
    device: torch.device

    @property
    def is_main(self) -> bool:
        """Rank 0 evaluates, logs and saves."""
        return self.rank == 0


def setup() -> World:
    """Join the process group when launched by torchrun (WORLD_SIZE > 1); otherwise a world of one."""
    size = int(os.environ.get("WORLD_SIZE", "1"))
    cuda = torch.cuda.is_available()
    if size <= 1:
        return World(0, 1, torch.device("cuda" if cuda else "cpu"))
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if cuda else "gloo")
    rank = dist.get_rank()
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device(f"cuda:{local_rank}") if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    return World(rank, dist.get_world_size(), device)


def wrap(model: nn.Module, world: World) -> nn.Module:
    """The model as the training step calls it: DDP-wrapped when there are several processes."""
    if world.size <= 1:
        return model
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [world.device.index] if world.device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=device_ids, find_unused_parameters=False)


def no_sync_unless_last(wrapped: nn.Module, last: bool) -> ContextManager[Any]:
    """Skip DDP's gradient all-reduce on all but the last accumulated document of a step."""
    if last or not hasattr(wrapped, "no_sync"):
        return contextlib.nullcontext()
    return wrapped.no_sync()


def barrier(world: World) -> None:
    """Wait for every process (rank 0 may be evaluating or saving)."""
    if world.size > 1:
        import torch.distributed as dist

        dist.barrier()


def teardown(world: World) -> None:
    """Leave the process group."""
    if world.size > 1:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()
