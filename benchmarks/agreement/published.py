"""The numbers other metrics published on SummEval's expert coherence, to print beside ours in the
``summeval-correlation`` report (the paper suite's published numbers are in :mod:`..paper.published`)."""

from __future__ import annotations

SOURCE_GEVAL_TABLE_1 = "Liu et al. 2023 (G-Eval, EMNLP), Table 1, coherence"
#: Summary-level (Spearman rho, Kendall tau) with SummEval's expert coherence, as G-Eval's Table 1 gives them:
#: per article over its 16 summaries, then averaged (the protocol the summeval-correlation suite reproduces).
GEVAL_SUMMEVAL_COHERENCE: dict[str, tuple[float, float]] = {
    "G-Eval-4": (0.582, 0.457),
    "UniEval": (0.575, 0.442),
    "BARTScore": (0.448, 0.342),
    "BERTScore": (0.284, 0.211),
    "ROUGE-1": (0.167, 0.126),
    "MoverScore": (0.159, 0.118),
}
