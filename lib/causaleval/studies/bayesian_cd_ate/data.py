"""The data sets of study 6: synthetic linear-Gaussian data and Sachs et al. (2005)'s cytometry rows.

Synthetic (seed ``s``): ``d`` nodes, each of the ``d(d-1)/2`` lower-triangular entries ``A[i, j]``
(``i > j``, meaning ``i -> j``) present with probability ``expected_edges / (d(d-1)/2)``, then the
nodes randomly permuted; weights ``N(0, 1)``, noise ``N(0, noise_sd^2)``, no intercept, no
standardisation; ``X = E (I - W)^{-1}``. The graph, weights and permutation are drawn first from
``default_rng(s)``, so both sample sizes of a seed share the graph. Emezue et al. (2023, Sec. 3.1)
state d = 20, n = 20 and 100 and Erdos-Renyi graphs "following Deleu et al. (2022)"; the expected
number of edges, the weight and noise distributions are the kit's choices (parameters).
Sachs: the 853 CD3/CD28 rows (:mod:`causaleval.datasets.sachs`), z-scored (``ddof = 0``), truth =
pgmpy's 17-edge ``sachs`` DAG.

What the posterior methods score (:func:`scored`): with ``standardize`` (the default) the synthetic
columns z-scored, so all seven methods target one posterior (the kit's DiBS, Gadget and BCD Nets
z-score whatever they are given); without, the raw columns, as Deleu et al. (2022)'s code gives its
samplers (it z-scores Sachs only), while those three still z-score. The BGe posterior differs a great
deal between the two (measured, MC3, seed 0, d = 20, 42 true edges: about 113 and 130 edges per DAG on
the raw columns at n = 20 and 100, 78 and 63 on the z-scored ones). The ATEs are always computed on
the raw columns, the scale of the true effects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph

def synthetic(seed: int, n: int, n_nodes: int, expected_edges: float,
              noise_sd: float) -> tuple[CausalGraph, pd.DataFrame]:
    """The true DAG and ``n`` rows of the linear-Gaussian model of seed ``seed`` (module notes)."""
    rng = np.random.default_rng(seed)
    d = n_nodes
    p_edge = expected_edges / (d * (d - 1) / 2)
    if not 0 <= p_edge <= 1:
        raise ValueError(f"expected_edges={expected_edges}: more than the {d * (d - 1) // 2} possible edges "
                         f"of {d} nodes")
    lower = np.tril(rng.random((d, d)) < p_edge, k=-1)
    weights = np.where(lower, rng.standard_normal((d, d)), 0.0)
    order = rng.permutation(d)
    adjacency, weights = lower[np.ix_(order, order)], weights[np.ix_(order, order)]
    noise = rng.normal(scale=noise_sd, size=(n, d))
    data = noise @ np.linalg.inv(np.eye(d) - weights)
    names = [f"X{i}" for i in range(d)]
    return (CausalGraph.from_adjacency(adjacency.astype(np.int8), names, name=f"synthetic seed {seed}"),
            pd.DataFrame(data, columns=names))


def sachs() -> tuple[CausalGraph, pd.DataFrame]:
    """pgmpy's 17-edge Sachs DAG and the 853 observational rows, z-scored (``ddof = 0``)."""
    from causaleval.datasets.networks import network_graph
    from causaleval.datasets.sachs import load_sachs

    raw = load_sachs()
    truth = network_graph("sachs").reorder(list(raw.columns))
    return truth, standardised(raw)


def standardised(data: pd.DataFrame) -> pd.DataFrame:
    """``data``'s columns z-scored: ``(x - mean) / sd``, the population sd (``ddof = 0``)."""
    return (data - data.mean()) / data.std(ddof=0)


def scored(setting: str, data: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """The columns the posterior methods score in ``setting`` (module notes): Sachs's as they are
    (z-scored already), synthetic ones z-scored when ``config["standardize"]``, else raw."""
    return standardised(data) if setting != "sachs" and config["standardize"] else data


def settings(p: Mapping[str, Any]) -> list[str]:
    """The data settings of a run: ``n=<size>`` per sample size, then ``sachs``."""
    return [f"n={n}" for n in p["sample_sizes"]] + (["sachs"] if p["sachs"] else [])


def trial_data(setting: str, seed: int, config: Mapping[str, Any]) -> tuple[CausalGraph, pd.DataFrame]:
    """The truth and data of one trial (Sachs's are the same for every seed: there the seed is the
    methods' own randomness)."""
    if setting == "sachs":
        return sachs()
    return synthetic(seed, int(setting.removeprefix("n=")), config["n_nodes"], config["expected_edges"],
                     config["noise_sd"])
