"""Training objectives, data pipelines and the trainer that write coherence_metric checkpoints."""

if __name__ != "coherence_metric.training":  # the folder on sys.path (a checkout's root) must not be a second copy
    raise ImportError(f"import coherence_metric.training, not {__name__}: the training/ folder installs as "
                      "coherence_metric.training (pip install -e . from the checkout)")

