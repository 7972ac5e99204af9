"""coherence-metric as a Hugging Face ``evaluate`` metric: ``evaluate.load(path_to_this_folder)``.

The path is ``coherence_metric.integrations.hf_evaluate.MODULE_PATH``. The description, features and computation
live in that module; this script only declares the ``evaluate.Metric`` subclass evaluate looks for.
"""

from typing import Any, Dict

import evaluate

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

    def _compute(self, predictions: Any, **settings: Any) -> Dict[str, Any]:
        return hf_evaluate.compute(list(predictions), **settings)
