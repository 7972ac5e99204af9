"""Where a scoring call spends its time: wall seconds per stage, for the speed suite's profile.

``CoherenceScorer.profile()`` hands out a :class:`StageTimes`; while it is open the scorer adds each stage's
seconds to it (tokenise, sentence split, windowing, document pass, sentence pass). Time outside the stages, the
Python between them, is the call's wall time minus their sum. Not profiling costs one ``nullcontext`` per stage.
"""

from __future__ import annotations

import contextlib
import time
from typing import Dict, Iterator, Optional

TOKENISE = "tokenise"
SENTENCE_SPLIT = "sentence split"
WINDOWING = "windowing"
DOCUMENT_PASS = "document pass"
SENTENCE_PASS = "sentence pass"
TRANSITION_PASS = "transition pass"
#: The stages in the order a call runs them (the speed suite's profile columns).
STAGES = (TOKENISE, SENTENCE_SPLIT, WINDOWING, DOCUMENT_PASS, SENTENCE_PASS, TRANSITION_PASS)


class StageTimes:
    """Wall seconds per stage, summed over every call made while it is open."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {name: 0.0 for name in STAGES}

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Add the block's wall time to ``name``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

    @property
    def total(self) -> float:
        """Seconds inside any stage."""
        return sum(self.seconds.values())


def stage(times: Optional[StageTimes], name: str) -> "contextlib.AbstractContextManager[None]":
    """``times.stage(name)``, or a no-op context when nobody is profiling."""
    return times.stage(name) if times is not None else contextlib.nullcontext()


__all__ = ["DOCUMENT_PASS", "SENTENCE_PASS", "SENTENCE_SPLIT", "STAGES", "TOKENISE", "WINDOWING", "StageTimes",
           "stage"]
