"""DisSent (Nie, Bennett & Goodman 2019, seed paper 003): sentence vectors from discourse-marker prediction.

Modules, one job each:

- :mod:`.markers`: the Books 5 / Books 8 / ALL marker sets and each marker's kind.
- :mod:`.parser`: the spaCy dependency parser (installed from PyPI) that the extraction reads.
- :mod:`.extraction`: the paper's dependency patterns over one parsed sentence (SS and IPS pairs).
- :mod:`.patterns`: the surface-pattern fallback when no parser is installed.
- :mod:`.pairs`: the (S1, marker, S2) record, the length filters, clause-to-sentence clean-up.
- :mod:`.dataset`: corpora -> pairs per document split, cached; loading a marker set as labels.
- :mod:`.prepare`: ``python -m coherence_metric.training.dissent.prepare``: extract and print per-marker counts.
- :mod:`.model`: BiLSTM with max pooling, the pair features, the classifier.
- :mod:`.finetune`: the fine-tuned transformer (pair encoding, [CLS] classifier).
- :mod:`.objective`: the loss, held-out accuracy / macro-F1, for :class:`coherence_metric.training.loop.ObjectiveLoop`.
- :mod:`.encoder`: save / load a trained model; ``trained:FOLDER`` for DiscoEval.
- :mod:`.report`: test-set metrics and the paper's Table 5.
- :mod:`.recipe`: ``run_recipe`` for ``coherence-metric train run training/configs/dissent-*.yaml``.

EXTRACTION.md beside this file records the extraction's hand-checked precision and per-marker counts.
"""
