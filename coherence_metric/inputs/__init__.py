"""Texts as users hand them over: validation of strings and sentence lists, sentence splitting, the containers texts
come in (lists, arrays, pandas Series), the CLI's file formats, and where ``score --ray`` reads and writes.

Layer 1 of the package (``tests/packaging/test_import_cycles.py``): it imports only the base modules.
"""
