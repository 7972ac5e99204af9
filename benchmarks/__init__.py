"""Benchmarks: metrics, suites, probes and reports; they only ever call CoherenceScorer.

The test sets they score are read through ``research`` (shared with training, which keeps them out of its data).
"""

if __name__ != "coherence_metric.benchmarks":  # the folder on sys.path (a checkout's root) must not be a second copy
    raise ImportError(f"import coherence_metric.benchmarks, not {__name__}: the benchmarks/ folder installs as "
                      "coherence_metric.benchmarks (pip install -e . from the checkout)")

