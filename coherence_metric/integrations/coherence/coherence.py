"""coherence-metric as a Hugging Face ``evaluate`` metric: ``evaluate.load(path_to_this_folder)``.

The path is ``coherence_metric.integrations.hf_evaluate.MODULE_PATH``. The description, features, input checks and
computation live in that module; this script only declares the ``evaluate.Metric`` subclass evaluate looks for.
"""

from typing import Any, Dict, Optional

import evaluate

from coherence_metric.errors import InputError
from coherence_metric.integrations import hf_evaluate


class Coherence(evaluate.Metric):
    """Per-text coherence scores, their mean (the system score) and the signature."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=hf_evaluate.DESCRIPTION,
            citation=hf_evaluate.CITATION,
            inputs_description=hf_evaluate.INPUTS_DESCRIPTION,
            features=hf_evaluate.features(),
            homepage="https://aclanthology.org/2022.acl-long.418/",
        )

    def _ledger(self) -> hf_evaluate.PredictionLedger:
        if not hasattr(self, "_prediction_ledger"):
            self._prediction_ledger = hf_evaluate.PredictionLedger()
        return self._prediction_ledger

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Check every text of the batch (evaluate checks the first only), then let evaluate write it."""
        hf_evaluate.warn_if_references(references)
        batch = self._ledger().check(predictions)
        super().add_batch(predictions=batch.written, **kwargs)
        self._ledger().record(batch)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Check one text, then let evaluate write it."""
        hf_evaluate.warn_if_references(reference)
        batch = self._ledger().check([prediction])
        super().add(prediction=batch.written[0], **kwargs)
        self._ledger().record(batch)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> Optional[Dict[str, Any]]:
        """Score what was added (and ``predictions``); ``references`` are ignored, with one warning. Under
        ``on_empty="error"`` (the default) an empty prediction is refused before anything added is consumed."""
        hf_evaluate.warn_if_references(references)
        ledger = self._ledger()
        if predictions is None and ledger.count == 0:
            raise InputError("no predictions: pass predictions=[...] or call add_batch/add before compute")
        ledger.refuse_empty(predictions, kwargs.get("on_empty", "error"))
        try:
            return super().compute(predictions=predictions, **kwargs)
        finally:
            if self.writer is None:  # evaluate consumed the texts (or had none): the next compute starts afresh
                ledger.reset()

    def _compute(self, predictions: Any, **settings: Any) -> Dict[str, Any]:
        return hf_evaluate.compute(list(predictions), **settings)
