"""The paper's question, does the metric prefer a text to a corruption of it, on the test sets of Jwalapuram, Joty & Lin
(ACL 2022): ``coherence-metric benchmark paper|probes|all``.

``runner.run_suite`` loads the sets (``coherence_metric.research.catalogue``), scores them with the run's systems
through the cache (``scoring``), turns the scores into each set's metric (``metrics``) beside the paper's numbers
(``published``), and writes reports that a run on another machine can resume from (``resume``, ``carried_parts``).
``summeval_order_truncation`` asks the same question of SummEval's own summaries: a summary against its own shuffle
and against its first sentence alone.
"""
