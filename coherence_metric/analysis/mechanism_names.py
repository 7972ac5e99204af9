"""The names of ``explain``'s transition mechanisms and which is the fallback: what the command line offers and the
signature records, in a module that imports nothing, so ``--help`` does not load the code that runs them
(:mod:`coherence_metric.analysis.mechanisms` describes each one).
"""

from __future__ import annotations

LOCAL_TERM = "local-term"
PAIR_ALONE = "pair-alone"
CUT_DROP = "cut-drop"
WINDOW = "window"
ADJACENT_COSINE = "adjacent-cosine"
TRANSITION_MODEL = "transition-model"
TRANSITION_COSINE = "transition-cosine"
AUTO = "auto"
#: The fallback for checkpoints without a local term, chosen on the localisation benchmark's dev documents
#: (docs/explain.md has the table and its command).
FALLBACK = TRANSITION_COSINE
MECHANISMS = (LOCAL_TERM, PAIR_ALONE, CUT_DROP, WINDOW, ADJACENT_COSINE, TRANSITION_MODEL, TRANSITION_COSINE)
#: The mechanisms every checkpoint can run (all but ``local-term``).
MODEL_AGNOSTIC = (PAIR_ALONE, CUT_DROP, WINDOW, ADJACENT_COSINE, TRANSITION_MODEL, TRANSITION_COSINE)


__all__ = ["ADJACENT_COSINE", "AUTO", "CUT_DROP", "FALLBACK", "LOCAL_TERM", "MECHANISMS", "MODEL_AGNOSTIC",
           "PAIR_ALONE", "TRANSITION_COSINE", "TRANSITION_MODEL", "WINDOW"]
