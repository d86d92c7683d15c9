# The two commands of the README. Each creates .venv when missing and installs the kit into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# A stopped make (Ctrl-C, SIGTERM, kill -9) stops its long commands too: GNU make does not pass
# SIGTERM on, so they get a parent-death signal (Linux's setpriv; a run stopped by SIGTERM stops
# its kernel and workers, see the README's "Stopping a run").
WITH_MAKE := $(shell command -v setpriv >/dev/null 2>&1 && echo setpriv --pdeathsig TERM)

.PHONY: test reproduce report bench collect system-packages lab clean-venv

# The snapshots in data/software/ (see data/MANIFEST.md); `make collect` recollects them
# (resuming an interrupted collection). Remove a domain's folder first to start over.
COLLECT_ARGS := --subjects 2000 --trials 2 --scale 0.5 --seed 0

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[dev,bayes]"
	$(PY) -c "from causaleval.app.kernel import ensure_kernelspec; ensure_kernelspec()"
	@touch $(STAMP)

# Debian's packages the tests need, installed when missing (root, or sudo when not root):
# PostgreSQL's server for the postgres query domain, Chromium for the report's browser test, and on
# x86-64 qemu-user, whose emulated AVX2 processor tests/test_numerics.py compares XLA's dots with.
system-packages:
	@missing=""; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	[ "$$(uname -m)" != x86_64 ] || command -v qemu-x86_64 >/dev/null 2>&1 || missing="$$missing qemu-user"; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Unit tests and the notebooks run side by side on two workers (nbval keeps each notebook's
# cells together on one worker: --dist loadscope); the 15 slowest items are listed at the end, so a
# slow run on another machine says where its time went.
test: $(STAMP) system-packages  ## the layer contract, unit tests, property tests and nbval over notebooks/*.ipynb
	$(VENV)/bin/lint-imports
	CAUSALEVAL_REQUIRE_POSTGRES=1 CAUSALEVAL_REQUIRE_BROWSER=1 exec $(WITH_MAKE) $(PY) -m pytest -n 2 --dist loadscope --durations=15

reproduce: $(STAMP)  ## run every study notebook at its defaults; rewrites figures/, then lists outputs that differ from git HEAD
	exec $(WITH_MAKE) $(PY) -m causaleval reproduce
	$(PY) -m causaleval check-figures

report: $(STAMP)  ## the notebook site (Sphinx + myst-nb) of every study and run, runs/report/index.html
	$(PY) -m causaleval report

bench: $(STAMP) system-packages  ## performance scripts in benchmarks/
	$(PY) benchmarks/bench_structural.py
	$(PY) benchmarks/bench_collect.py
	$(PY) benchmarks/bench_do_inference.py
	$(PY) benchmarks/bench_mmhc.py
	$(PY) benchmarks/bench_ges.py
	$(PY) benchmarks/bench_ges_gaussian.py
	$(PY) benchmarks/bench_pc.py
	$(PY) benchmarks/bench_ate.py --posterior mec
	$(PY) benchmarks/bench_ate.py --posterior mc3 --seeds 3
	$(PY) benchmarks/bench_bayes_exact.py
	$(PY) benchmarks/bench_study6_scale.py
	$(PY) benchmarks/bench_xla_dots.py
	$(PY) benchmarks/bench_xla_pool.py

collect: $(STAMP) system-packages  ## recollect data/software/{sqlite,postgres} (resumes)
	$(PY) -m causaleval collect sqlite $(COLLECT_ARGS) --out data/software/sqlite
	$(PY) -m causaleval collect postgres $(COLLECT_ARGS) --out data/software/postgres

lab: $(STAMP)  ## JupyterLab on the kit's notebooks and ./studies, 127.0.0.1 only, with a random token (prints the URL once it answers)
	$(PY) -m causaleval lab

clean-venv:
	rm -rf $(VENV)
