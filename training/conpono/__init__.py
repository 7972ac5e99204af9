"""CONPONO (seed 001: Iter et al. 2020): predict the text k sentences away from an anchor, contrastively.

Modules, one job each:

- :mod:`.examples`: anchor, targets at distances k in [-K..-1, 1..K], hard and random negatives, from
  paragraph windows of the training split;
- :mod:`.inputs`: the token layouts of the isolated, uni-encoder and combined encodings;
- :mod:`.masking`: dynamic BERT masking for the auxiliary MLM loss;
- :mod:`.losses`: the log-bilinear score per k and the sampled-softmax loss, per-k accuracy;
- :mod:`.model`: the encoder, W_k and the MLM head;
- :mod:`.objective`: the :class:`coherence_metric.training.loop.Objective` (batches, loss, held-out accuracy, save);
- :mod:`.encoder`: the saved encoder as a DiscoEval sentence encoder (``trained:FOLDER``);
- :mod:`.recipe`: YAML recipes and ``run_recipe``.

Modules importing torch or transformers are not imported here, so ``import coherence_metric.training.conpono`` stays
cheap.
"""
