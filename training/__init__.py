"""Training objectives, data pipelines and the trainer that write coherence_metric checkpoints."""
