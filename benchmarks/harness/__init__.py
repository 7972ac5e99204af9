"""What every benchmark run is made of: its settings (``settings.RunSettings``), the systems it scores (the model under
test and the ``baselines``, in ``systems``), their scores through the score cache (``cached_scores``), the bootstrap
draws of its intervals (``bootstrap``), its progress bar and the facts its report records (``facts``).

The measuring groups (``paper``, ``agreement``, ``localisation``, ``speed``) build on these and never on each other.
"""
