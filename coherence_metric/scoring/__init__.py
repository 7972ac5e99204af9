"""Scoring-time machinery: device and dtype choice, batching, windows over long texts, the sentence and transition
passes, per-transition scores, and the stage timings and progress bars of a scoring call.

Layer 3 of the package (``tests/packaging/test_import_cycles.py``): it runs the models of :mod:`coherence_metric.models`
and is run by :mod:`coherence_metric.scorer` and :mod:`coherence_metric.analysis`.
"""
