"""Agreement with people: the metric's scores against human ratings of generated texts.

``summeval_correlation`` (``benchmark summeval-correlation``: the field's table, SummEval's expert coherence, beside
published metrics in ``published``) and ``human_dev`` (``benchmark human-dev``: the human-rated dev sets recipes are
chosen on) both score their rated texts through ``rated_scoring`` and report ``correlation``'s levels; ``system_ranks``
is the per-system view.
"""
