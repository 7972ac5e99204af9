"""``family: transition_model``: the trained transition model behind ``explain``'s ``transition-model`` mechanism
(:mod:`coherence_metric.scoring.transition_pass`)."""
