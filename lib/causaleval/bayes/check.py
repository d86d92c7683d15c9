"""Does a posterior method sample the posterior? The exact check (d <= 5) and a two-run diagnostic (any d).

**Exact check.** On a data set ``D`` of ``d <= 5`` columns the BGe posterior ``p(G | D)`` is known
exactly (:mod:`causaleval.bayes.exact`). A method's ``N`` draws give an empirical distribution
``p_hat`` over DAGs, at total variation

    TV = 1/2 sum_G |p_hat(G) - p(G | D)|

from the posterior. A perfect sampler's TV is not 0: ``N`` i.i.d. draws from ``p(G | D)`` itself have
an expected TV, the *floor*, estimated as the mean TV of :data:`FLOOR_REPLICATES` sets of ``N`` exact
draws (:func:`tv_floor`); it shrinks like ``1 / sqrt(N)`` and grows with the posterior's spread. A
method is *within the floor* on ``D`` when ``TV <= FACTOR * floor`` (:data:`FACTOR` = 2), and the check
can tell only where the floor is small, ``floor <= MAX_FLOOR`` (0.1): with a few hundred draws from a
spread-out posterior at d = 5 even exact draws have a TV near 1, and every method looks alike.
:func:`check_summary` states, per method, whether it samples the exact posterior in the words of
:mod:`causaleval.verdicts`: ``does not hold`` when its TV exceeds ``FACTOR * floor`` on any data set,
``holds`` when it is within the floor on every data set and at least one floor is at most
``MAX_FLOOR`` (a data set whose floor is larger cannot pass a method alone, but can fail one),
``undecided`` otherwise (within the floor only where the floor is too large to tell).

**Two-run diagnostic** (:func:`two_run_gap`), for any ``d``: a method run twice on the same data with
two seeds (two MCMC chains started apart, as Gelman and Rubin (1992) compare chains), the largest
difference between the two runs' edge frequencies,

    gap = max_{i != j} |f1_ij - f2_ij|.

Its reference is the same statistic for two independent sets of ``N`` draws of independent edges with
the two runs' pooled frequencies ``(f1 + f2) / 2`` (binomial), the mean over :data:`FLOOR_REPLICATES`
simulated pairs. Runs whose gap is within ``FACTOR`` times the reference agree as well as independent
draws would: a chain that has not forgotten its start, or whose kept states are too correlated, gives a
larger gap. Emezue et al. (2023) compare the methods only by their downstream ATE distributions; both
checks are the kit's.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import verdicts
from causaleval.bayes import exact
from causaleval.bayes.posteriors import sample_posterior

FACTOR = 2.0  # within the floor: TV (or gap) at most twice what exact (or independent) draws give
MAX_FLOOR = 0.1  # the exact check can tell only where i.i.d. exact draws are this close to the posterior
FLOOR_REPLICATES = 5  # sets of exact (or independent) draws averaged into a floor
STATEMENT = "samples the exact posterior"


def tv_floor(data: pd.DataFrame | np.ndarray, n_draws: int, seed: int) -> float:
    """The mean over :data:`FLOOR_REPLICATES` sets of ``n_draws`` i.i.d. exact draws of their total
    variation to the exact posterior (module notes); replicate ``r`` draws with seed ``seed + r``."""
    return float(np.mean([exact.dag_tv(exact.exact_draws(data, n_draws, seed + r), data)
                          for r in range(FLOOR_REPLICATES)]))


def exact_check(methods: Sequence[str], data_sets: Sequence[tuple[Mapping[str, Any], pd.DataFrame]], *,
                n_draws: int, options: Mapping[str, Any], draws_by_method: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One row per (data set, method): the labels of the data set (``data_sets`` pairs labels, which
    must hold the ``seed`` the method runs with, with data of at most 5 columns), the method, its
    number of draws (``n_draws``, or ``draws_by_method[method]`` for a method whose cost grows with
    its draws, e.g. DiBS's particles), its DAG TV, the floor at that many draws (module notes), their
    ratio, whether it is within the floor, the mean absolute edge-marginal error and the method's
    warnings (kept, not printed)."""
    rows = []
    for labels, data in data_sets:
        seed = int(labels["seed"])
        floors: dict[int, float] = {}
        for method in methods:
            n = int((draws_by_method or {}).get(method, n_draws))
            if n not in floors:
                floors[n] = tv_floor(data, n, seed)
            floor = floors[n]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                dags = sample_posterior(method, data, n_samples=n, seed=seed, options=options)
            tv = exact.dag_tv(dags, data)
            rows.append({**labels, "method": method, "draws": n, "DAG TV": tv, "floor": floor,
                         "TV / floor": tv / floor, "within floor": tv <= FACTOR * floor,
                         "edge MAE": exact.edge_distance(dags, data),
                         "notes": "; ".join(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))})
    return pd.DataFrame(rows)


def check_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Per method of :func:`exact_check`'s table: whether it samples the exact posterior (module
    notes), the data sets within the floor, those whose floor can tell, and the range of its TV, of the
    floors and of TV / floor."""
    rows = []
    for method, g in check.groupby("method", sort=False):
        if not g["within floor"].all():
            verdict = verdicts.DOES_NOT_HOLD
        elif (g["floor"] <= MAX_FLOOR).any():
            verdict = verdicts.HOLDS
        else:
            verdict = verdicts.UNDECIDED
        rows.append({"method": method, "statement": STATEMENT, "verdict": verdict,
                     "within floor": f"{int(g['within floor'].sum())} of {len(g)}",
                     f"floor <= {MAX_FLOOR:g}": int((g["floor"] <= MAX_FLOOR).sum()),
                     "DAG TV": _range(g["DAG TV"]), "floor": _range(g["floor"]),
                     "TV / floor": _range(g["TV / floor"], ".1f")})
    return pd.DataFrame(rows)


def _range(values: pd.Series, fmt: str = ".2f") -> str:
    low, high = float(values.min()), float(values.max())
    return f"{low:{fmt}}" if f"{low:{fmt}}" == f"{high:{fmt}}" else f"{low:{fmt}}-{high:{fmt}}"


def two_run_gap(method: str, data: pd.DataFrame, *, n_draws: int, seeds: tuple[int, int],
                options: Mapping[str, Any]) -> dict[str, float]:
    """The two-run diagnostic of the module notes: ``gap``, its independent-draws ``reference`` and
    whether ``gap <= FACTOR * reference`` (``agree``)."""
    f1, f2 = (sample_posterior(method, data, n_samples=n_draws, seed=s, options=options).mean(axis=0) for s in seeds)
    off = ~np.eye(data.shape[1], dtype=bool)
    pooled = ((f1 + f2) / 2)[off]
    rng = np.random.default_rng(seeds[0])
    draws = rng.binomial(n_draws, pooled, size=(FLOOR_REPLICATES, 2, len(pooled))) / n_draws
    reference = float(np.abs(draws[:, 0] - draws[:, 1]).max(axis=1).mean())
    gap = float(np.abs(f1 - f2)[off].max())
    return {"gap": gap, "reference": reference, "agree": gap <= FACTOR * reference}
