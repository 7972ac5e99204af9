"""What a checkpoint is and where it comes from: the coherence model and its parts, the checkpoint folder's format
and loading, and the lookup of a ``model`` argument (alias, packaged name, folder, Hub id) and of its backbone.

Layer 2 of the package (``tests/packaging/test_import_cycles.py``): it imports the base modules (``errors``,
``version``) and nothing above; scoring, analysis and the scorer import it.
"""
