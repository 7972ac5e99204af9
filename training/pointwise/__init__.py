"""``family: pointwise``: one coherence scale across different texts, learned from short texts and the errors
generators make. See :mod:`coherence_metric.training.pointwise.recipe`."""
