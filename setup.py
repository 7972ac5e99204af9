"""The one thing setup.cfg cannot say: which packages ship, and where three of them come from.

``research/``, ``training/`` and ``benchmarks/`` stay top-level folders of the repository (the layout users know)
but install inside the package, as ``coherence_metric.research``, ``coherence_metric.training`` and
``coherence_metric.benchmarks``: generic top-level names in site-packages shadow, and are shadowed by, users' own
folders and other distributions. Every package under those folders (and under ``coherence_metric/``) is found
here, so a new subpackage ships without editing a list; tests/packaging/test_wheel.py checks the built wheel.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
#: Repository folder -> the package it installs as.
MAPPED = {
    "research": "coherence_metric.research",
    "training": "coherence_metric.training",
    "benchmarks": "coherence_metric.benchmarks",
}

packages = find_packages(where=str(HERE), include=["coherence_metric", "coherence_metric.*"])
for folder, package in MAPPED.items():
    packages += [package] + [f"{package}.{name}" for name in find_packages(where=str(HERE / folder))]

setup(packages=sorted(packages), package_dir={package: folder for folder, package in MAPPED.items()})
