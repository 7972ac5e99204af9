"""Benchmarks, grouped by what they measure: ``paper`` (the paper's test sets and probes), ``agreement`` (people's
ratings), ``localisation`` (where ``explain`` puts a break), ``speed`` and ``discoeval``; each builds on ``harness``
(what every run is made of) and ``reporting``, and ``cli`` is ``coherence-metric benchmark``.

Most of them score through ``CoherenceScorer``, like a user. The rest measure the scorer's own parts: the speed suite
times the batching and the runtime against a paper-faithful reference, the localisation rulers read ``explain``'s
mechanisms, evidence and calibration, and the baselines and No FT build models beside the one under test. Those parts
come from ``coherence_metric.toolkit`` only, never from the modules behind it. The test sets they score are read
through ``research`` (shared with training, which keeps them out of its data).
"""

if __name__ != "coherence_metric.benchmarks":  # the folder on sys.path (a checkout's root) must not be a second copy
    raise ImportError(f"import coherence_metric.benchmarks, not {__name__}: the benchmarks/ folder installs as "
                      "coherence_metric.benchmarks (pip install -e . from the checkout)")

