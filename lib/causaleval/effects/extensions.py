"""From a learned graph to interventional estimates, when the learner returns a CPDAG.

A CPDAG stands for its Markov equivalence class; ``P(O | do(T))`` can differ between the
class's DAGs. Two rules, chosen by a parameter (``cpdag_rule``) in the studies:

* ``"extension"``: one consistent extension (Dor and Tarsi 1992,
  :func:`causaleval.graphs.extensions.consistent_extension`); deterministic, the DAG a user
  of the learner would usually fit.
* ``"mec_average"``: the average of ``P(O | do(T))`` over every member of the class
  (:func:`causaleval.graphs.extensions.mec_members`), fitted to the same data; exact but
  exponential in the size of the largest connected set of undirected edges. A PDAG without
  members is fitted through the fallback extension instead.

A DAG passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from causaleval.effects import bn
from causaleval.graphs import CausalGraph
from causaleval.graphs.extensions import NoExtension, consistent_extension, mec_members

RULES = ("extension", "mec_average")


def interventional_tables(
    graph: CausalGraph, data: pd.DataFrame, pairs: Iterable[tuple[str, str]], *,
    rule: str = "extension", smoothing: str = "bdeu", ess: float = 1.0,
    cards: Mapping[str, int] | None = None,
) -> dict[tuple[str, str], np.ndarray]:
    """``P_hat(O | do(T))`` tables ``[t, o]`` of a learned graph fitted to ``data``."""
    if rule not in RULES:
        raise ValueError(f"cpdag rule must be one of {RULES}, got {rule!r}")
    pairs = list(pairs)
    if rule == "extension" or graph.is_dag():
        dags = [consistent_extension(graph)]
    else:
        try:
            dags = mec_members(graph)
        except NoExtension:  # no member: average over nothing; use the fallback extension
            dags = [consistent_extension(graph)]
    tables = {pair: 0.0 for pair in pairs}
    for dag in dags:
        for pair, table in bn.fit(dag, data, smoothing=smoothing, ess=ess, cards=cards).tables(pairs).items():
            tables[pair] = tables[pair] + table / len(dags)
    return tables
