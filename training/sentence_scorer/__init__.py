"""Training the sentence-level term of a checkpoint (:mod:`coherence_metric.models.sentence_scorer`).

``family: sentence_scorer`` recipes (``coherence-metric train run training/configs/cpu-minilm-sentence-scorer.yaml``):
the training items' sentences are embedded once by the frozen pretrained backbone, a small transformer over them
learns to rank each positive above its permutations and intrusions, the epoch with the best dev selection score is
kept, its weight beside the base checkpoint's head is chosen on dev, and the base checkpoint is written again with
the term added (:func:`coherence_metric.models.checkpoint.add_sentence_scorer`). The base checkpoint's weights never
change.
"""
