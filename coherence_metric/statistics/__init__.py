"""The statistics a comparison reports: the paired bootstrap, significance tests, the tie rule and how a p-value is
written. numpy only, no torch.

Layer 1 of the package (``tests/packaging/test_import_cycles.py``): it imports only the base modules.
"""
