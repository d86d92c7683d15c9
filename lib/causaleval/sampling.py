"""Sampling data from discrete Bayesian networks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def forward_sample(model: Any, n: int, seed: int) -> pd.DataFrame:
    """``n`` i.i.d. rows from a pgmpy discrete Bayesian network by ancestral sampling.

    Each column holds integer state codes in the order of the network's own state
    names (``df.attrs["states"][var]`` lists them), so codes do not depend on
    alphabetical order (unlike pgmpy's ``simulate``). Columns follow the network's
    node order. Deterministic in ``seed``; vectorized over rows.
    """
    import networkx as nx

    if n <= 0:
        raise ValueError(f"n must be a positive number of rows, got {n}")
    rng = np.random.default_rng(seed)
    codes: dict[str, np.ndarray] = {}
    states: dict[str, list[str]] = {}
    for var in nx.topological_sort(model):
        cpd = model.get_cpds(var)
        card = int(cpd.cardinality[0])
        table = cpd.values.reshape(card, -1)
        parents = cpd.variables[1:]
        if parents:
            config = np.ravel_multi_index([codes[p] for p in parents], cpd.cardinality[1:])
        else:
            config = np.zeros(n, dtype=np.intp)
        cum = np.cumsum(table, axis=0)[:, config]
        u = rng.random(n)
        codes[var] = np.minimum((u[None, :] > cum).sum(axis=0), card - 1).astype(np.int16)
        states[var] = [str(s) for s in cpd.state_names[var]]
    order = [str(v) for v in model.nodes()]
    df = pd.DataFrame({v: codes[v] for v in order})
    df.attrs["states"] = {v: states[v] for v in order}
    return df
