"""Input checks shared by the metrics: every refusal names the argument and what was expected.

Numbers (:func:`vector`, :func:`vectors`, :func:`binary`) and graphs (:func:`graph_pair`,
:func:`require_class`): the one place where a structural metric's graphs are checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causaleval.graphs import CLASS_TEXT, CausalGraph, GraphBatch, GraphClass, GraphError, GraphLike, as_batch


def vector(values: Any, name: str) -> np.ndarray:
    """A finite 1-D float array, or a ValueError naming ``name``."""
    a = np.asarray(values, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of numbers, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name}: empty; expected at least one value")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise ValueError(f"{name}: {bad.size} missing or infinite values (first at position {bad[0]})")
    return a


def vectors(**named: Any) -> list[np.ndarray]:
    """Several :func:`vector` s of one common length."""
    arrays = {name: vector(v, name) for name, v in named.items()}
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"mismatched lengths: {', '.join(f'{n}={k}' for n, k in lengths.items())}")
    return list(arrays.values())


def binary(values: Any, name: str) -> np.ndarray:
    """A 1-D array of 0/1 (or booleans) as int."""
    a = vector(values, name)
    if not np.isin(a, (0, 1)).all():
        raise ValueError(f"{name}: expected only 0 and 1, got {sorted(set(np.unique(a)) - {0.0, 1.0})[:5]}")
    return a.astype(int)


# ---------------------------------------------------------------- graphs (structural metrics)
#: the graph classes a structural metric accepts (see :class:`causaleval.graphs.GraphClass`)
ANY_GRAPH = frozenset(GraphClass)
DAGS = frozenset({GraphClass.DAG})
CPDAGS = frozenset({GraphClass.DAG, GraphClass.PDAG})


def scored_nodes(metric: str, nodes: tuple[str, ...], graph: str) -> None:
    """Refuse a truth with fewer than two nodes: every structural metric scores the N(N-1)
    ordered node pairs, so none is defined there (nCED would divide by 0, gadjid panics)."""
    if len(nodes) < 2:
        raise GraphError(f"{metric}: truth graph {graph!r} has {len(nodes)} node(s) {list(nodes)}; structural "
                         "metrics score the N(N-1) ordered pairs of nodes and need at least 2 nodes")


def graph_pair(metric: str, truth: GraphLike, learned: GraphLike,
               accepts: frozenset[GraphClass] = ANY_GRAPH) -> tuple[GraphBatch, GraphBatch, bool]:
    """``(truth, learned, single)``: both sides as batches on the truth's node order, checked
    for everything ``metric`` relies on, each refusal a :class:`GraphError` naming the graph:

    * each side is a CausalGraph, a GraphBatch or a list of CausalGraphs;
    * the truth has at least two nodes (:func:`scored_nodes`);
    * the node sets are equal (graphs are aligned by name);
    * there is one truth, or one per learned graph;
    * every graph is of a class in ``accepts`` (:func:`require_class`).

    ``single`` says the learned side was one CausalGraph (the metric then returns a float).
    """
    try:
        t = as_batch(truth)
    except GraphError as err:
        raise GraphError(f"{metric}: truth: {err}") from None
    scored_nodes(metric, t.nodes, t.names[0])
    try:
        lb = as_batch(learned, t.nodes)
    except GraphError as err:
        raise GraphError(f"{metric}: learned graph vs truth {t.names[0]!r}: {err}") from None
    if len(t) not in (1, len(lb)):
        raise GraphError(f"{metric}: {len(t)} truth graphs for {len(lb)} learned graphs (expected 1 or equal)")
    require_class(t, accepts, "truth", metric)
    require_class(lb, accepts, "learned", metric)
    return t, lb, isinstance(learned, CausalGraph)


def require_class(batch: GraphBatch, accepts: frozenset[GraphClass], role: str, metric: str) -> None:
    """Refuse a batch holding a graph whose class is not in ``accepts``, naming the first such
    graph, its class and the edge or cycle that puts it there. Reads the batch's cached
    :attr:`~causaleval.graphs.GraphBatch.classes`, so a batch is classified once."""
    if accepts == ANY_GRAPH:
        return
    bad = ~np.isin(batch.classes, [int(c) for c in accepts])
    if bad.any():
        g = batch[int(np.flatnonzero(bad)[0])]
        share = f" ({int(bad.sum())} of the {len(batch)} {role} graphs fail)" if len(batch) > 1 else ""
        wanted = " or ".join(CLASS_TEXT[c] for c in sorted(accepts))
        raise GraphError(f"{role} graph {g.name!r}: {metric} needs {wanted}, but it is "
                         f"{CLASS_TEXT[g.graph_class]}: it has {g.witness()}{share}")
