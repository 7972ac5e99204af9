"""Benchmarks: test-set loaders, metrics, suites and reports; they only ever call CoherenceScorer."""
