"""Study 6's check the paper does not have: every posterior method against the exact posterior.

At d <= 5 nodes every DAG can be enumerated, so the BGe posterior under a uniform prior is known
exactly (:mod:`causaleval.bayes.exact`). Each method draws ``n_posterior`` DAGs from synthetic data of
``exact_nodes`` nodes and ``exact_rows`` rows (the study's generator with ``expected_edges = d``, the
columns standardised: on the raw columns with noise sd 0.1 the BGe prior matrix is as large as the data's
cross-products and the posterior spreads over thousands of DAGs), per seed, and is measured by the mean
absolute error of its edge marginals, the total variation over whole DAGs, and the Wasserstein-1 distance
of its ATE distribution for the first ordered pair with a directed path in the true DAG. The row
``exact i.i.d. draws`` takes as many DAGs straight from the exact posterior: the distances sampling error
alone gives. A method that samples the posterior comes close to that floor; one that only finds modes
does not.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from causaleval.bayes import exact, sample_posterior
from causaleval.studies.bayesian_cd_ate.data import synthetic
from causaleval.studies.bayesian_cd_ate.paper import paper_name

EXACT = "exact i.i.d. draws"
DISTANCES = ("edge MAE", "DAG TV", "ATE W1")


def exact_check(methods: Sequence[str], *, n_nodes: int, n_rows: int, seeds: Sequence[int], n_posterior: int,
                noise_sd: float, options: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (method, seed): the three distances of the module notes (run times, which vary by
    machine, are measured by ``benchmarks/bench_bayes_exact.py``)."""
    rows = []
    for seed in seeds:
        truth, data = synthetic(seed, n_rows, n_nodes, float(n_nodes), noise_sd)
        data = (data - data.mean()) / data.std(ddof=0)
        t, y = exact.path_pair(truth.directed_matrix())
        for method in [EXACT, *methods]:
            with warnings.catch_warnings(record=True) as caught:  # kept in the row, not printed
                warnings.simplefilter("always")
                dags = (exact.exact_draws(data, n_posterior, seed) if method == EXACT else
                        sample_posterior(method, data, n_samples=n_posterior, seed=seed, options=options))
            rows.append({"method": method if method == EXACT else paper_name(method), "seed": seed,
                         "notes": "; ".join(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught)),
                         "edge MAE": exact.edge_distance(dags, data),
                         "DAG TV": exact.dag_tv(dags, data), "ATE W1": exact.ate_distance(dags, data, t, y)})
    return pd.DataFrame(rows)


def exact_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over the seeds of each distance, per method (the floor first)."""
    stats = check.groupby("method", sort=False)[list(DISTANCES)].agg(["mean", "std"])
    stats.columns = [f"{d} {s}" for d, s in stats.columns]
    return stats.reset_index()
