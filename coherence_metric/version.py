"""The package version, in a module of its own so setup.cfg can read it without importing torch."""

__version__ = "0.9.0"
