"""Research plumbing shared by ``training`` and ``benchmarks``: the one layer both import and neither owns.

Where the shared data lives, the corpora and their document splits, intruder construction, the test sets (so that
training can keep them out and benchmarks can score them) and sentence encoders. Arrows run one way:
``training -> research`` and ``benchmarks -> research``, never between ``training`` and ``benchmarks``, and
``research`` imports neither; the scoring package ``coherence_metric`` imports none of the three.
"""

if __name__ != "coherence_metric.research":  # the folder on sys.path (a checkout's root) must not be a second copy
    raise ImportError(f"import coherence_metric.research, not {__name__}: the research/ folder installs as "
                      "coherence_metric.research (pip install -e . from the checkout)")

