"""Reading a score: ``explain``'s transition mechanisms, per-sentence evidence of a break and its calibrated flags.

Layer 4 of the package (``tests/packaging/test_import_cycles.py``): it uses the scoring passes and models below it
and is called by the scorer (``CoherenceScorer.explain``), the report and the CLI.
"""
