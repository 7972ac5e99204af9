"""Refusing a bad recipe setting: every family lists its rules as (holds, message) pairs, one line per rule, and
the first that fails is a one-line error naming where the setting came from."""

from __future__ import annotations

from typing import Sequence, Tuple

from coherence_metric.errors import InputError


def refuse_failed(checks: Sequence[Tuple[bool, str]], where: str) -> None:
    """Raise an InputError ``"{where}: {message}"`` for the first check that does not hold."""
    for ok, message in checks:
        if not ok:
            raise InputError(f"{where}: {message}")


__all__ = ["refuse_failed"]
