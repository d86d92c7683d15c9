"""Conversions between graph classes: a DAG's CPDAG (v-structures plus Meek's rules R1-R3) and the
latent projection of a DAG onto observed variables, which gives the MAG (Richardson and Spirtes
2002)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from causaleval.graphs._closure_jit import meek_closure
from causaleval.graphs.core import CausalGraph
from causaleval.graphs.marks import ARROW, CIRCLE, NONE, GraphError

def to_cpdag(dag: CausalGraph) -> CausalGraph:
    """The CPDAG (essential graph) of a DAG's Markov equivalence class (:func:`compelled_edges`)."""
    dag.require_dag("to_cpdag")
    d = dag.directed_matrix().astype(bool)
    adj = d | d.T
    compelled = compelled_edges(d, adj)
    m = np.where(compelled, ARROW, 0)
    m = np.where(adj & ~compelled & ~compelled.T, CIRCLE, m).astype(np.int8)
    return CausalGraph(dag.nodes, m, f"CPDAG({dag.name})")


def compelled_edges(directed: np.ndarray, adjacent: np.ndarray) -> np.ndarray:
    """``c[i, j]``: the edge i -> j is oriented in the CPDAG of the class of ``directed``.

    ``directed`` holds the directed edges of a DAG, or of a PDAG that has a consistent extension
    (whose v-structures are then exactly the PDAG's, so the class is the same); ``adjacent`` is the
    symmetric skeleton. Keeps the skeleton, orients the v-structures ``a -> c <- b`` (a, b
    non-adjacent) and closes under Meek's (1995, "Causal inference and causal explanation with
    background knowledge", UAI) rules R1-R3, which suffice when starting from the v-structures
    of a DAG; every other edge stays undirected. Each round applies every rule to every
    undirected edge at once; the rules are sound, so the fixpoint is the same as one edge at a
    time. Compiled (:func:`causaleval.graphs._closure_jit.meek_closure`): GES calls it after
    every operator.

    * R1: ``k -> i - j``, k and j non-adjacent  =>  ``i -> j``
    * R2: ``i -> k -> j`` and ``i - j``  =>  ``i -> j``
    * R3: ``i - k1 -> j``, ``i - k2 -> j``, k1 and k2 non-adjacent, ``i - j``  =>  ``i -> j``
    """
    return meek_closure(np.ascontiguousarray(directed, dtype=bool), np.ascontiguousarray(adjacent, dtype=bool))


def latent_projection(dag: CausalGraph, latent: Iterable[str], name: str | None = None) -> CausalGraph:
    """The MAG over the observed variables of a DAG with the given latent variables.

    Richardson and Spirtes (2002, Ancestral graph Markov models, Sec. 4.2.1), no
    selection variables: observed a, b are adjacent iff there is an inducing path
    between them relative to the latents, which holds iff they are d-connected given
    ``Z = (An({a, b}) & O) \\ {a, b}`` (their Theorem 4.2 / Lemma used by ``dag2mag``).
    The edge is ``a -> b`` if a is an ancestor of b in the DAG, ``b -> a`` if b is one
    of a, and ``a <-> b`` otherwise.
    """
    import networkx as nx

    dag.require_dag("latent_projection")
    if isinstance(latent, str):
        raise GraphError(f"graph {dag.name!r}: latent variables given as one string {latent!r}; "
                         "expected a list of node names")
    latent = list(latent)
    for v in latent:
        dag.index(v)
    observed = [v for v in dag.nodes if v not in set(latent)]
    g = nx.DiGraph(dag.directed_edges())
    g.add_nodes_from(dag.nodes)
    anc = {v: nx.ancestors(g, v) for v in dag.nodes}
    obs = set(observed)
    m = np.zeros((len(observed), len(observed)), dtype=np.int8)
    for x, a in enumerate(observed):
        for y in range(x + 1, len(observed)):
            b = observed[y]
            z = ((anc[a] | anc[b]) & obs) - {a, b}
            if nx.is_d_separator(g, {a}, {b}, z):
                continue
            a_anc_b, b_anc_a = a in anc[b], b in anc[a]
            m[x, y] = ARROW if not b_anc_a else NONE
            m[y, x] = ARROW if not a_anc_b else NONE
    return CausalGraph(tuple(observed), m, name or f"MAG({dag.name}; latent {', '.join(latent)})")


# ---------------------------------------------------------------------- helpers
