"""Discrete Bayesian networks: smoothed fitting and exact interventional distributions.

A :class:`DiscreteBN` holds, for each node ``v`` with parents ``pa(v)`` (in a fixed
order), the table ``cpd[v][x_v, x_pa1, x_pa2, ...] = P(v = x_v | pa(v) = x_pa)`` (the
layout of pgmpy's ``TabularCPD.values``).

Fitting (:func:`fit`) counts ``N_ijk`` (node state k under parent configuration j) and
returns the posterior mean under a Dirichlet prior, ``(N_ijk + a) / (N_ij + r_i a)``:

* ``"bdeu"``: ``a = ess / (q_i r_i)`` (BDeu, equivalent sample size ``ess``; Heckerman,
  Geiger, Chickering 1995), as pgmpy's ``BayesianEstimator(prior_type="BDeu")``;
* ``"laplace"``: ``a = ess`` for every cell (``ess = 1`` is Laplace's rule);
* ``"mle"``: ``a = 0`` (a parent configuration never seen gets a uniform row).

Interventions (:meth:`DiscreteBN.interventional`) use the truncated factorization
(Pearl 2009, eq. 3.10): ``P(O | do(T = t)) = sum_{x \\ {o, t}} prod_{V != T} P(v | pa(v))``
with ``T`` clamped to ``t`` in its children's tables. Only ancestors of ``O`` in the
mutilated graph are summed over (the other factors sum to one), with one ``numpy.einsum``
that returns the whole table ``[t, o]`` at once. This answers every (T, O) pair, also
when O is an ancestor of T (then ``P(O | do(T)) = P(O)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph

SMOOTHING = ("bdeu", "laplace", "mle")


@dataclass(frozen=True)
class DiscreteBN:
    """Node order, parents, cardinalities and conditional probability tables."""

    nodes: tuple[str, ...]
    parents: Mapping[str, tuple[str, ...]]
    cards: Mapping[str, int]
    cpds: Mapping[str, np.ndarray]

    def __post_init__(self) -> None:
        for v in self.nodes:
            shape = (self.cards[v], *(self.cards[p] for p in self.parents[v]))
            if self.cpds[v].shape != shape:
                raise ValueError(f"CPD of {v!r} has shape {self.cpds[v].shape}, expected {shape} "
                                 f"(node, then parents {self.parents[v]})")
            if not np.allclose(self.cpds[v].sum(axis=0), 1.0):
                raise ValueError(f"CPD of {v!r} does not sum to 1 over the node's states")

    @property
    def graph(self) -> CausalGraph:
        return CausalGraph.from_edge_lists(
            list(self.nodes), directed=[(p, v) for v in self.nodes for p in self.parents[v]])

    def ancestors(self, node: str, cut: str | None = None) -> set[str]:
        """``node`` and its ancestors, not looking past ``cut`` (whose parents are ignored)."""
        seen, stack = {node}, [node]
        while stack:
            v = stack.pop()
            if v == cut:
                continue
            for p in self.parents[v]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen

    def marginal(self, outcome: str) -> np.ndarray:
        """``P(O)`` by summing the factorization over O's ancestors."""
        return self._contract(self.ancestors(outcome), outcome, None)

    def interventional(self, treatment: str, outcome: str) -> np.ndarray:
        """The table ``P(O = o | do(T = t))`` indexed ``[t, o]`` (truncated factorization)."""
        for v in (treatment, outcome):
            if v not in self.cards:
                raise ValueError(f"{v!r} is not a node of the network ({list(self.nodes)})")
        if treatment == outcome:
            raise ValueError(f"treatment and outcome are both {treatment!r}")
        relevant = self.ancestors(outcome, cut=treatment)
        if treatment not in relevant:  # T does not cause O: P(O | do(T = t)) = P(O)
            return np.tile(self.marginal(outcome), (self.cards[treatment], 1))
        return self._contract(relevant, outcome, treatment)

    def tables(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        """``{(T, O): P(O | do(T))}`` (tables ``[t, o]``) for every pair."""
        return {(t, o): self.interventional(t, o) for t, o in pairs}

    def _contract(self, relevant: set[str], outcome: str, treatment: str | None) -> np.ndarray:
        letters = {v: i for i, v in enumerate(sorted(relevant, key=self.nodes.index))}
        operands: list[Any] = []
        for v in letters:
            if v == treatment:
                continue
            operands += [self.cpds[v], [letters[v], *(letters[p] for p in self.parents[v])]]
        out = [letters[treatment], letters[outcome]] if treatment else [letters[outcome]]
        return np.einsum(*operands, out, optimize="greedy")

    def to_pgmpy(self):
        """The same network as a pgmpy ``DiscreteBayesianNetwork`` (states named 0..r-1)."""
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork

        model = DiscreteBayesianNetwork([(p, v) for v in self.nodes for p in self.parents[v]])
        model.add_nodes_from(self.nodes)
        for v in self.nodes:
            pa = list(self.parents[v])
            model.add_cpds(TabularCPD(
                v, self.cards[v], self.cpds[v].reshape(self.cards[v], -1),
                evidence=pa or None, evidence_card=[self.cards[p] for p in pa] or None,
                state_names={u: list(range(self.cards[u])) for u in [v, *pa]}))
        return model


def from_pgmpy(model: Any) -> DiscreteBN:
    """A pgmpy discrete network (states keep the network's own order, as in sampling).

    Every column is renormalized to sum to one: BIF files print probabilities to a few
    digits (Sachs' tables sum to 1 +- 1e-7), and exact answers need exact tables.
    """
    nodes = tuple(str(v) for v in nx.topological_sort(model))
    parents, cards, cpds = {}, {}, {}
    for v in nodes:
        cpd = model.get_cpds(v)
        parents[v] = tuple(str(p) for p in cpd.variables[1:])
        cards[v] = int(cpd.cardinality[0])
        table = np.asarray(cpd.values, dtype=float).reshape(tuple(int(c) for c in cpd.cardinality))
        cpds[v] = table / table.sum(axis=0, keepdims=True)
    return DiscreteBN(nodes, parents, cards, cpds)


def parents_of(dag: CausalGraph) -> dict[str, tuple[str, ...]]:
    """Each node's parents in the DAG, in node order."""
    directed = dag.directed_matrix()
    return {v: tuple(dag.nodes[i] for i in np.flatnonzero(directed[:, j])) for j, v in enumerate(dag.nodes)}


def fit(dag: CausalGraph, data: pd.DataFrame, *, smoothing: str = "bdeu", ess: float = 1.0,
        cards: Mapping[str, int] | None = None) -> DiscreteBN:
    """Fit the CPDs of ``dag`` to integer-coded ``data`` with Dirichlet smoothing.

    ``cards`` gives each variable's number of states (default: max code + 1 in ``data``;
    give it when a sample may miss a state).
    """
    if smoothing not in SMOOTHING:
        raise ValueError(f"smoothing must be one of {SMOOTHING}, got {smoothing!r}")
    if ess < 0 or (smoothing != "mle" and ess == 0):
        raise ValueError(f"ess must be positive for {smoothing} smoothing, got {ess}")
    dag.require_dag("fitting a Bayesian network")
    missing = [v for v in dag.nodes if v not in data.columns]
    if missing:
        raise ValueError(f"data lack columns {missing} of the graph's nodes")
    codes = {v: data[v].to_numpy() for v in dag.nodes}
    for v, x in codes.items():
        if not np.issubdtype(x.dtype, np.integer) or (len(x) and x.min() < 0):
            raise ValueError(f"column {v!r} must hold non-negative integer state codes")
    cards = {v: int(cards[v]) if cards and v in cards else int(codes[v].max()) + 1
             for v in dag.nodes}
    directed = dag.directed_matrix()
    order = [dag.nodes[i] for i in nx.lexicographical_topological_sort(
        nx.DiGraph(np.argwhere(directed).tolist()) if directed.any() else nx.DiGraph())]
    order += [v for v in dag.nodes if v not in order]
    parents, cpds = parents_of(dag), {}
    for v in order:
        pa = parents[v]
        shape = (cards[v], *(cards[p] for p in pa))
        flat = np.ravel_multi_index([codes[v], *(codes[p] for p in pa)], shape)
        counts = np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape).astype(float)
        q = int(np.prod(shape[1:]))
        alpha = {"bdeu": ess / (q * cards[v]), "laplace": ess, "mle": 0.0}[smoothing]
        counts += alpha
        totals = counts.sum(axis=0, keepdims=True)
        cpds[v] = np.divide(counts, totals, out=np.full(shape, 1.0 / cards[v]), where=totals > 0)
    return DiscreteBN(tuple(order), parents, cards, cpds)

