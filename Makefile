# Two commands matter: `make demo` and `make test`. Both create (or refresh) .venv first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXTRAS ?= train,bench,integrations,docs,dev

.PHONY: install demo report-demo test lint docs docs-examples tables clean

# torch goes in first and pinned: an unpinned torch would pull a multi-GB CUDA build,
# and the CPU wheel of 2.13.0 satisfies every later `torch>=` requirement.
# The past defaults ship in their own distribution (archive/: PyPI takes files of at most 100 MB), installed before
# the package that depends on it.
$(STAMP): setup.cfg pyproject.toml archive/setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ./archive
	$(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/coherence-metric compare examples/coherent.txt examples/shuffled.txt
	$(VENV)/bin/coherence-metric explain examples/shuffled.txt

# The HTML report of three example systems, and the README's picture of it (needs Debian's chromium).
report-demo: $(STAMP)
	$(VENV)/bin/coherence-metric report examples/report/system_a.txt examples/report/system_b.txt \
		examples/report/system_c.txt -i lines --dtype fp32 -o examples/report/report.html
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1500 \
		--screenshot=examples/report/report.png "file://$(CURDIR)/examples/report/report.html"
	cp examples/report/report.png docs/assets/report.png

test: $(STAMP)
	$(VENV)/bin/mypy coherence_metric
	$(PY) -m pytest -q tests

# The documentation site, offline and strict (a broken link, a missing include or an undocumented public name fails).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Rewrite the outputs the docs print with what their runnable examples print now (after a change that moves scores).
docs-examples: $(STAMP)
	$(PY) -m tests.docs.runnable_examples --update

# Rewrite the numbers of README.md and docs/index.md from benchmarks/reports/ (after a benchmark run that moves them;
# tests/benchmarks/test_landing.py fails until this is run).
tables: $(STAMP)
	$(PY) -m coherence_metric.benchmarks.reporting.landing

lint: $(STAMP)
	$(VENV)/bin/ruff check coherence_metric research training benchmarks experiments tests archive

clean:
	rm -rf $(VENV) build dist site *.egg-info
