"""Marks and graph classes: the {-1, 0, 1} marks of Rehak et al. (2024, Sec. 3.1), the errors every
refusal raises, and the class of a mark matrix (:func:`classify`: DAG, PDAG, with a directed cycle,
or mixed), vectorized over a stack with bitset reachability."""

from __future__ import annotations

from enum import IntEnum

import numpy as np

ARROW, NONE, CIRCLE = 1, 0, -1


class GraphError(ValueError):
    """A graph, edge string or node name the kit cannot take. The message names the graph
    and the culprit (edge string, node, matrix entry, or graph of a batch) and says what
    was expected."""


class GraphClass(IntEnum):
    """What a mark matrix is, as the metrics need to know it (see :func:`classify`)."""

    DAG = 0  #: directed edges only, no directed cycle
    PDAG = 1  #: directed and undirected edges, no directed cycle (CPDAGs among them)
    CYCLIC = 2  #: directed and undirected edges only, with a directed cycle
    MIXED = 3  #: some bidirected or circle-marked edge (a MAG, PAG or ADMG)


CLASS_TEXT = {
    GraphClass.DAG: "a DAG",
    GraphClass.PDAG: "a CPDAG/PDAG (directed and undirected edges, no directed cycle)",
    GraphClass.CYCLIC: "a directed or partially directed graph with a directed cycle",
    GraphClass.MIXED: "a graph with bidirected or circle-marked edges (a MAG or PAG)",
}

#: the graph classes a learner declares (and a metric accepts), by name
GRAPH_CLASSES = ("DAG", "CPDAG", "PAG", "MAG")

def classify(m: np.ndarray) -> np.ndarray:
    """The :class:`GraphClass` code (int8) of every graph of a (B, N, N) mark stack.

    Vectorized over the batch, with the costly checks only where needed: a graph with no
    -1 entry is a DAG iff its arrowheads (entries 1) have no directed cycle, because a
    bidirected edge is a cycle of two arrowheads; only graphs with -1 entries or a cycle
    are tested for bidirected edges and for circle marks without a matching circle
    (``o->``, ``o-``), which make them MIXED.
    """
    b = len(m)
    circles = (m.reshape(b, -1).min(axis=1) < 0) if m.size else np.zeros(b, bool)
    cyclic = ~_acyclic(m == ARROW if circles.any() else m)  # no -1 entry: nonzero means arrowhead
    codes = np.where(cyclic, GraphClass.CYCLIC, np.where(circles, GraphClass.PDAG, GraphClass.DAG)).astype(np.int8)
    check = np.flatnonzero(circles | cyclic)
    if check.size:
        s = m[check]
        t = np.swapaxes(s, 1, 2)
        odd = ((s == ARROW) & (t == ARROW)) | ((s == CIRCLE) & (t != CIRCLE))
        codes[check[odd.reshape(len(check), -1).any(axis=1)]] = GraphClass.MIXED
    return codes


def _bitsets(x: np.ndarray) -> np.ndarray:
    """(..., N) booleans as (..., ceil(N / 64)) uint64 bit sets: bit k of word w is entry 64 w + k.

    Rows are padded to whole bytes and packed as one flat array (``np.packbits`` along a
    short last axis is ten times slower), then padded to whole words."""
    n = x.shape[-1]
    if n % 8:
        x = _pad_last(x, 8 * -(-n // 8))
    p = np.packbits(x.reshape(-1), bitorder="little").reshape(x.shape[:-1] + (-1,))
    return _pad_last(p, 8 * -(-n // 64)).view("<u8")


def _pad_last(x: np.ndarray, size: int) -> np.ndarray:
    """``x`` with its last axis zero-padded to ``size``."""
    if x.shape[-1] == size:
        return x
    out = np.zeros(x.shape[:-1] + (size,), x.dtype)
    out[..., :x.shape[-1]] = x
    return out


def _acyclic(d: np.ndarray) -> np.ndarray:
    """Whether each graph of a (B, N, N) stack (``d[b, i, j]`` nonzero: an arrow i -> j) has
    no directed cycle, vectorized over the batch.

    Peels sinks round by round: every node none of whose children remains is removed. A
    DAG always has a sink, so it loses all its nodes; the nodes of a cycle never become
    sinks. Children and remaining nodes are 64-bit bit sets, so a round costs
    B * N * N / 64 word operations, and a graph leaves the loop once empty or once a
    round removes nothing.
    """
    b, n = d.shape[:2]
    acyclic = np.ones(b, bool)
    if n == 0:
        return acyclic
    children = np.ascontiguousarray(np.moveaxis(_bitsets(d), 2, 0))  # (words, B, N): word-major
    remaining = _bitsets(np.ones((b, n), bool))
    todo = np.arange(b)
    while todo.size:
        # a remaining node stays iff it has a remaining child (a removed node has none left)
        stays = (children[0] & remaining[:, None, 0]) != 0
        for w in range(1, len(children)):  # word by word: no reduction over a short axis
            stays |= (children[w] & remaining[:, None, w]) != 0
        after = _bitsets(stays)
        left, progressed = _any_word(after), _any_word(after ^ remaining)
        acyclic[todo[left & ~progressed]] = False
        going = left & progressed
        if not going.all():
            todo, children, after = todo[going], children[:, going], after[going]
        remaining = after
    return acyclic


def _any_word(x: np.ndarray) -> np.ndarray:
    """Per row of a (B, W) word array, whether any bit is set."""
    acc = x[:, 0].copy()
    for w in range(1, x.shape[1]):
        acc |= x[:, w]
    return acc != 0


def _is_acyclic(d: np.ndarray) -> bool:
    """:func:`_acyclic` of one boolean adjacency matrix."""
    return bool(_acyclic(d[None])[0])


def _directed_cycle(d: np.ndarray) -> list[int]:
    """One directed cycle of a boolean adjacency matrix as node indices, its first node
    repeated at the end: peel sinks, then walk along remaining children until a node repeats."""
    alive = np.ones(len(d), bool)
    while (sinks := alive & ~(d & alive).any(axis=1)).any():
        alive &= ~sinks
    path: list[int] = []
    v = int(np.flatnonzero(alive)[0])
    while v not in path:
        path.append(v)
        v = int(np.flatnonzero(d[v] & alive)[0])
    return path[path.index(v):] + [v]
