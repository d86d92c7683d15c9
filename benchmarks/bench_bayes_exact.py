"""Posterior methods against the exact BGe posterior at d <= 5: time and distance (issue 23).

    python benchmarks/bench_bayes_exact.py [--nodes 5] [--rows 100] [--seeds 3] [--samples 200]

Data: study 6's linear-Gaussian model (``studies.bayesian_cd_ate.data.synthetic``) with
``--nodes`` variables, ``--rows`` rows, ``expected_edges = nodes`` and notebook 6's
``noise_sd``, seeds ``0 .. seeds - 1``. Every method named below or registered in
:data:`causaleval.bayes.POSTERIORS` draws ``--samples`` DAGs per seed with notebook 6's
method settings (``pc_alpha``, ``ges_score``, ``cpdag_rule``, ``mc3_*``) and
``dag_gflownet``'s defaults; a method that is not registered, or whose optional dependency is
missing, is listed as not available. Printed and written to
``benchmarks/results/bench_bayes_exact.csv``: wall seconds per trial (one seed's sample,
including JAX compilation for ``dag_gflownet``, and for the exact draws the BGe scores of all DAGs, the first seed also
their enumeration) and per posterior sample, and, from :mod:`causaleval.bayes.exact`, the mean absolute edge-marginal
error, the total variation over DAGs and the Wasserstein-1 distance of the ATE distribution of one pair (the first
ordered pair, row-major, with a directed path in the true DAG), each the mean over seeds.
Each is run on the data as generated (``raw``; with ``noise_sd = 0.1`` the BGe prior
matrix ``t I``, ``t = 1/2``, is as large as the data's cross products, so the posterior is
diffuse: thousands of DAGs carry 90% of its mass) and on the columns standardised to mean 0
and sd 1 (study 6's ``standardised``, the population sd: a few hundred). The row ``exact i.i.d. draws`` samples
``--samples`` DAGs directly from the exact posterior (seeded): the distances any sampler of that size shows by sampling
error alone.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval import params, paths
from causaleval.bayes import POSTERIORS, exact, sample_posterior
from causaleval.studies.bayesian_cd_ate.data import standardised, synthetic

EXACT = "exact i.i.d. draws"
NAMED = ("bootstrap_pc", "bootstrap_ges", "mc3", "dag_gflownet", "dibs", "gadget", "bcd_nets")


def draw(method: str, data: pd.DataFrame, n: int, seed: int, options: dict) -> np.ndarray:
    if method == EXACT:
        return exact.exact_draws(data, n, seed)
    return sample_posterior(method, data, n_samples=n, seed=seed, options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    p = params.defaults(paths.NOTEBOOKS / "06_bayesian_cd_ate.ipynb")
    options = {k: p[k] for k in ("pc_alpha", "ges_score", "cpdag_rule", "mc3_burn_in", "mc3_thin")}
    methods = [EXACT, *NAMED, *sorted(set(POSTERIORS) - set(NAMED))]
    rows, unavailable = [], {}
    for scaling, method in itertools.product(("raw", "standardised"), methods):
        if method not in POSTERIORS and method != EXACT:
            unavailable[method] = "not registered"
            continue
        runs = []
        for seed in range(args.seeds):
            truth, data = synthetic(seed, args.rows, args.nodes, float(args.nodes), p["noise_sd"])
            if scaling == "standardised":
                data = standardised(data)
            t, y = exact.path_pair(truth.directed_matrix())
            start = time.perf_counter()
            try:
                dags = draw(method, data, args.samples, seed, options)
            except ImportError as err:
                unavailable[method] = str(err)
                break
            seconds = time.perf_counter() - start
            runs.append({"seconds per trial": seconds, "seconds per sample": seconds / args.samples,
                         "edge mean abs error": exact.edge_distance(dags, data),
                         "DAG TV": exact.dag_tv(dags, data),
                         "ATE W1": exact.ate_distance(dags, data, t, y)})
        if runs:
            rows.append({"method": method, "data": scaling, **pd.DataFrame(runs).mean().to_dict()})
    table = pd.DataFrame(rows)
    table.insert(2, "setting", f"d={args.nodes}, n={args.rows}, {args.seeds} seeds, {args.samples} samples")
    out = Path(__file__).parent / "results" / "bench_bayes_exact.csv"
    out.parent.mkdir(exist_ok=True)
    table.to_csv(out, index=False, float_format="%.6g")
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for method, why in unavailable.items():
        print(f"not available: {method} ({why})")
    print(f"written: {out}")


if __name__ == "__main__":
    main()
