"""Repository tools: run from a checkout's root (``python -m tools.NAME``), never installed.

setup.py ships ``coherence_metric`` and the three folders it maps inside it, nothing else, so what lives here serves
the people who work on this repository (the route to a lent GPU machine, ``tools.gpu_route``) and adds nothing to a
user's install. A tool imports the package's own modules (``coherence_metric.training...``); nothing in the package,
``training/``, ``benchmarks/`` or ``research/`` imports a tool (``tests/packaging/test_import_layers.py``).
"""
