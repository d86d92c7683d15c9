"""Factorial experiments the kit runs on real software systems (Gentzel et al. 2019, supp. Sec. 1).

``collect_domain("sqlite", subjects=50, trials=1, out="runs/collect/sqlite")`` generates the
Stack-Overflow-shaped database and query workload from the seed, runs every query under
every treatment combination, and writes the tidy layout that
:func:`causaleval.datasets.software.load_collected` reads. Domains:

* ``sqlite``: embedded, needs nothing installed (:mod:`causaleval.collect.sqlite`);
* ``postgres``: a private PostgreSQL server the kit starts and stops
  (:mod:`causaleval.collect.postgres`).

Same as ``python -m causaleval collect sqlite --subjects 50 --trials 1 --out DIR``.
"""

from __future__ import annotations

from pathlib import Path

from causaleval.collect.runner import collect, collection_settings

DOMAINS = ("sqlite", "postgres")
DEFAULT_TIMEOUT_S = {"sqlite": 10.0, "postgres": 30.0}


def collect_domain(domain: str, *, subjects: int, trials: int, out: str | Path, seed: int = 0,
                   scale: float = 1.0, timeout_s: float | None = None, progress: bool = True) -> Path:
    """Collect (or resume) one domain's factorial experiment into ``out``."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown collection domain {domain!r}; known: {', '.join(DOMAINS)}")
    timeout_s = DEFAULT_TIMEOUT_S[domain] if timeout_s is None else timeout_s
    settings = collection_settings(domain, subjects, trials, seed, scale, timeout_s)
    if domain == "sqlite":
        from causaleval.collect.sqlite import SqliteEngine as factory
    else:
        from causaleval.collect.postgres import PostgresEngine as factory
    return collect(factory, settings, Path(out), progress=progress)


__all__ = ["DOMAINS", "collect_domain"]
