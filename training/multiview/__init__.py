"""Multi-view sentence representations (seed 004): a bi-GRU view f and a linear average-of-word-vectors view g.

Two frameworks train them on ordered sentences of the project's corpora:

- generative (:mod:`.generative`): f encodes a sentence, an invertible linear decoder U predicts the next
  sentence's words with negative sampling, U is kept orthonormal (eq. 2) and g = U^T after training;
- discriminative (:mod:`.discriminative`): f and g of neighbouring sentences must agree
  (``cos(zf_i, zg_j) + cos(zg_i, zf_j)``, softmax over the batch with a trainable temperature), with the top
  principal component removed during training by power iteration (:mod:`.principal`).

``coherence-metric train run training/configs/multiview-*.yaml`` trains them (:mod:`.recipe`); the saved
``best/`` and ``final/`` folders load as DiscoEval encoders with ``trained:FOLDER[:view=f|g|ensemble]``
(:mod:`.encoder`).
"""
