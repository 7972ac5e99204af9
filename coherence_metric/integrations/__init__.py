"""Bridges to the libraries where people already call metrics: Hugging Face ``evaluate``, torchmetrics, Ray Data.

Each bridge imports its library when used, never before: ``import coherence_metric`` (and this package) imports
none of them, so the metric stays cheap to import for users who need none of them. Install them with
``pip install '.[integrations]'`` in the clone (a missing one is named with the exact line that installs
it).
"""
