"""Benchmarks: metrics, suites, probes and reports; they only ever call CoherenceScorer.

The test sets they score are read through ``research`` (shared with training, which keeps them out of its data).
"""
