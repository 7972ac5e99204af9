"""What a resumed run must agree with and restore: its recipe, and its random number generators.

A state file continues the run that wrote it, so resuming under a changed recipe (another seed, data folder,
learning rate, max_length or backbone) would silently mix two runs and overwrite ``recipe.json`` with a recipe
that never produced the weights. :func:`check_same_recipe` therefore compares the whole recipe, key by key, and
refuses any change outside a short allow-list (how long to train and how often to log, evaluate and save).

RNG states are stored as tensors and plain numbers, so state files load with ``torch.load(weights_only=True)``
(which refuses numpy arrays and arbitrary classes), and restore bit for bit.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Collection, Dict, Iterator, List, Mapping, Optional, Tuple

import numpy as np
import torch

from coherence_metric.errors import InputError

Change = Tuple[str, Any, Any]


def _changes(stored: Mapping[str, Any], current: Mapping[str, Any], defaults: Optional[Mapping[str, Any]],
             prefix: str) -> Iterator[Change]:
    for key, now in current.items():
        path = f"{prefix}{key}"
        known_default = isinstance(defaults, Mapping) and key in defaults
        if key in stored:
            before = stored[key]
        elif known_default:
            before = defaults[key]  # type: ignore[index]
        else:
            continue  # an option added since the state was written, with no known default: accepted as it is
        if isinstance(before, Mapping) and isinstance(now, Mapping):
            below = defaults.get(key) if isinstance(defaults, Mapping) else None
            yield from _changes(before, now, below, f"{path}.")
        elif before != now:
            yield path, before, now


def recipe_changes(stored: Mapping[str, Any], current: Mapping[str, Any],
                   defaults: Optional[Mapping[str, Any]] = None) -> List[Change]:
    """``(dotted key, stored value, current value)`` for every leaf where the two recipes differ.

    A key the stored recipe lacks (an option added after the state was written) is compared with its value in
    ``defaults`` when given there, and accepted otherwise; a key only the stored recipe has is ignored.
    """
    return list(_changes(stored, current, defaults, ""))


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_same_recipe(path: Path, stored: Mapping[str, Any], current: Mapping[str, Any], allowed: Collection[str],
                      defaults: Optional[Mapping[str, Any]] = None) -> None:
    """Refuse to resume the state at ``path`` under a recipe that differs outside ``allowed`` (dotted keys).

    Raises:
        InputError: one line naming every changed key with its stored and current value.
    """
    changed = [change for change in recipe_changes(stored, current, defaults) if change[0] not in allowed]
    if changed:
        listed = ", ".join(f"{key}: {_short(before)} -> {_short(now)}" for key, before, now in changed)
        raise InputError(f"{path} was written by another recipe: {listed}; only {', '.join(sorted(allowed))} may "
                         "change when a run resumes: use a new output_dir or put those values back")


def _python_state(generator: Optional[random.Random]) -> Dict[str, Any]:
    version, internal, gauss_next = (generator or random).getstate()
    return {"version": version, "internal": torch.tensor(internal, dtype=torch.int64), "gauss_next": gauss_next}


def _numpy_state() -> Dict[str, Any]:
    name, keys, position, has_gauss, cached_gaussian = np.random.get_state()
    return {"name": name, "keys": torch.from_numpy(np.asarray(keys, dtype=np.int64)), "position": int(position),
            "has_gauss": int(has_gauss), "cached_gaussian": float(cached_gaussian)}


def seed_random_states(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators: call it before a recipe builds its model, so the initial
    weights follow the recipe's seed and not whatever the process drew before (CONPONO, DiscoEval's criteria and
    multi-view seeded only in the loop, after building, and two runs of one recipe differed)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def random_states(generator: Optional[random.Random] = None) -> Dict[str, Any]:
    """torch's CPU generator, numpy's global one and ``generator`` (Python's global one when None), as tensors and
    plain numbers that ``torch.load(weights_only=True)`` accepts."""
    return {"python": _python_state(generator), "torch": torch.random.get_rng_state(), "numpy": _numpy_state()}


def _python_tuple(stored: Any) -> Tuple[Any, ...]:
    if isinstance(stored, tuple):  # written by an earlier version: getstate() as it was
        return stored
    return stored["version"], tuple(int(value) for value in stored["internal"].tolist()), stored["gauss_next"]


def _numpy_tuple(stored: Any) -> Tuple[Any, ...]:
    if isinstance(stored, tuple):  # written by an earlier version: get_state() as it was
        return stored
    return (stored["name"], stored["keys"].numpy().astype(np.uint32), stored["position"], stored["has_gauss"],
            stored["cached_gaussian"])


def restore_random_states(states: Mapping[str, Any], generator: Optional[random.Random] = None) -> None:
    """Put back what :func:`random_states` recorded (each part that is present; earlier versions' tuples too), so
    the next draws are exactly those an uninterrupted run would make."""
    if "python" in states:
        (generator or random).setstate(_python_tuple(states["python"]))
    if "torch" in states:
        torch.random.set_rng_state(states["torch"].cpu())  # a state loaded with map_location=cuda must come back
    if "numpy" in states:
        np.random.set_state(_numpy_tuple(states["numpy"]))


__all__ = ["check_same_recipe", "random_states", "recipe_changes", "restore_random_states"]
