"""Members of a (C)PDAG's Markov equivalence class.

* :func:`consistent_extension`: one consistent extension (Dor and Tarsi 1992): repeatedly take
  the last node, in node order, that has no outgoing directed edge and whose undirected
  neighbours are adjacent to all its other neighbours; point its undirected edges into it and
  remove it. Deterministic. A PDAG with no consistent extension (PC can return one) falls back
  to an orientation along a topological order.
* :func:`mec_members`: every member of the class (every acyclic orientation of the undirected
  edges that adds no v-structure); exponential in the size of the largest connected set of
  undirected edges (capped at ``2^MAX_UNDIRECTED`` candidate members in all).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from causaleval.graphs.core import CausalGraph
from causaleval.graphs.marks import _is_acyclic

MAX_UNDIRECTED = 16


class NoExtension(ValueError):
    """A PDAG whose orientations conflict: no DAG of its class exists."""


class TooManyOrientations(ValueError):
    """A PDAG with more undirected edges than the enumeration limit."""


def consistent_extension(graph: CausalGraph, fallback: bool = True) -> CausalGraph:
    """A DAG in the class of the (C)PDAG ``graph`` (Dor and Tarsi 1992).

    PC can return a PDAG without a consistent extension (orientation conflicts, which
    causal-learn writes as bidirected edges, here read as undirected). With ``fallback``
    such a graph keeps its directed edges (but any that would close a directed cycle,
    taken in node order) and has its other edges pointed along a topological order of
    them (ties by node order), as pcalg's ``pdag2dag`` does when it cannot keep the
    v-structures; without it, the graph is an error.
    """
    m = graph.matrix
    bidirected = (m == 1) & (m.T == 1)
    directed = graph.directed_matrix().copy()
    undirected = graph.undirected_matrix() | bidirected
    if not undirected.any() and _is_acyclic(directed):
        graph.require_dag("an interventional estimate")  # refuses circle marks (PAGs)
        return graph
    try:
        return _dor_tarsi(graph, directed, undirected.copy())
    except NoExtension:
        if not fallback:
            raise
    directed, loose = _acyclic_part(directed)
    undirected = undirected | loose | loose.T
    order = _topological_order(directed)
    rank = np.argsort(order)
    result = directed.copy()
    for i, j in zip(*np.nonzero(np.triu(undirected))):
        result[(i, j) if rank[i] < rank[j] else (j, i)] = True
    return CausalGraph.from_adjacency(result.astype(np.int8), graph.nodes, name=graph.name)


def _acyclic_part(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep directed edges in (row, column) order unless one closes a cycle; the ones
    left out are returned separately (to be oriented like undirected edges)."""
    kept = np.zeros_like(d)
    loose = np.zeros_like(d)
    for i, j in zip(*np.nonzero(d)):
        kept[i, j] = True
        if not _is_acyclic(kept):
            kept[i, j] = False
            loose[i, j] = True
    return kept, loose


def _topological_order(d: np.ndarray) -> list[int]:
    """Kahn's algorithm taking the lowest-numbered ready node first."""
    indegree = d.sum(axis=0).astype(int)
    ready = sorted(np.flatnonzero(indegree == 0).tolist())
    order = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for w in np.flatnonzero(d[v]):
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(int(w))
                ready.sort()
    return order


def _dor_tarsi(graph: CausalGraph, directed: np.ndarray, undirected: np.ndarray) -> CausalGraph:
    result = directed.copy()
    alive = list(range(graph.n))
    while alive:
        pick = None
        for x in reversed(alive):
            if directed[x, alive].any():
                continue
            neighbours = [y for y in alive if undirected[x, y]]
            adjacent = [y for y in alive if y != x and (directed[x, y] or directed[y, x] or undirected[x, y])]
            if all(y == z or directed[y, z] or directed[z, y] or undirected[y, z]
                   for y in neighbours for z in adjacent):
                pick = x
                break
        if pick is None:
            raise NoExtension(f"graph {graph.name!r} has no consistent DAG extension "
                              "(its orientations conflict)")
        for y in alive:
            if undirected[pick, y]:
                result[y, pick] = True
        alive.remove(pick)
        undirected[pick, :] = undirected[:, pick] = False
        directed[pick, :] = directed[:, pick] = False
    return CausalGraph.from_adjacency(result.astype(np.int8), graph.nodes, name=graph.name)


def mec_members(graph: CausalGraph, limit: int = MAX_UNDIRECTED) -> list[CausalGraph]:
    """Every DAG orienting ``graph``'s undirected edges without a cycle or a new v-structure.

    The undirected edges fall into connected components; a v-structure or cycle made by
    orienting one component's edges involves only that component's edges, so each
    component's valid orientations are enumerated on their own (``2^k`` for a component
    of ``k`` edges, at most ``limit``), and their combinations, at most ``2^limit`` of them,
    are checked once more as a whole (for PDAGs that are not CPDAGs)."""
    directed = graph.directed_matrix()
    skeleton = graph.skeleton()
    base_v = _v_structures(directed, skeleton)  # a v-structure needs non-adjacent ends
    components = _components([(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(graph.undirected_matrix())))])
    largest = max(map(len, components), default=0)
    if largest > limit:
        raise TooManyOrientations(f"graph {graph.name!r} has {largest} undirected edges in one component; "
                                  f"enumerating 2^{largest} orientations is past the limit of {limit}")
    options = []
    for edges in components:
        valid = []
        for flips in itertools.product((False, True), repeat=len(edges)):
            oriented = [(j, i) if flip else (i, j) for (i, j), flip in zip(edges, flips)]
            d = directed.copy()
            d[tuple(np.array(oriented).T)] = True
            if _is_acyclic(d) and _v_structures(d, skeleton) == base_v:
                valid.append(oriented)
        options.append(valid)
    total = math.prod(map(len, options))
    if total > 2 ** limit:
        raise TooManyOrientations(f"graph {graph.name!r}: its components combine into {total:,} candidate "
                                  f"members, past the limit of 2^{limit}")
    members = []
    for choice in itertools.product(*options):
        d = directed.copy()
        for oriented in choice:
            d[tuple(np.array(oriented).T)] = True
        if _is_acyclic(d) and _v_structures(d, skeleton) == base_v:
            members.append(CausalGraph.from_adjacency(d.astype(np.int8), graph.nodes, name=graph.name))
    if not members:
        raise NoExtension(f"graph {graph.name!r} has no consistent DAG extension")
    return members


def _components(edges: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The edges grouped by the connected components they form (in order of first edge)."""
    root: dict[int, int] = {}

    def find(v: int) -> int:
        while root.setdefault(v, v) != v:
            v = root[v]
        return v

    for i, j in edges:
        root[find(i)] = find(j)
    groups: dict[int, list[tuple[int, int]]] = {}
    for i, j in edges:
        groups.setdefault(find(i), []).append((i, j))
    return list(groups.values())


def _v_structures(d: np.ndarray, adjacent: np.ndarray | None = None) -> set[tuple[int, int, int]]:
    """Triples ``(a, c, b)`` with ``a -> c <- b`` in ``d`` and a, b not adjacent (in
    ``adjacent``, default the skeleton of ``d``; a PDAG's undirected edges count)."""
    adjacent = d | d.T if adjacent is None else adjacent
    found = set()
    for c in range(len(d)):
        parents = np.flatnonzero(d[:, c])
        for a, b in itertools.combinations(parents, 2):
            if not adjacent[a, b]:
                found.add((int(a), c, int(b)))
    return found
