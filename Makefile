# The two commands of the README. Each creates .venv when missing and installs the kit into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test reproduce bench lab clean-venv

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[dev]"
	@touch $(STAMP)

test: $(STAMP)  ## unit tests, property tests and nbval over notebooks/*.ipynb
	$(PY) -m pytest

reproduce: $(STAMP)  ## run every study notebook at its defaults; rewrites figures/
	$(PY) -m causaleval reproduce

bench: $(STAMP)  ## performance scripts in benchmarks/
	$(PY) benchmarks/bench_structural.py

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

clean-venv:
	rm -rf $(VENV)
