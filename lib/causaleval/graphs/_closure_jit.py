"""Compiled closures on boolean adjacency matrices (numba): Meek's orientation rules and
reachability. They run once or more per step of a GES search and per pair of a posterior's DAGs,
thousands of times per bootstrap, where NumPy's per-call overhead, not the arithmetic, was the cost.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def meek_closure(directed: np.ndarray, adjacent: np.ndarray) -> np.ndarray:
    """:func:`causaleval.graphs.conversions.compelled_edges`, round for round: the v-structures
    of ``directed``, then rounds that apply R1-R3 to every undirected edge at once from the
    previous round's orientations, until a round orients nothing."""
    n = directed.shape[0]
    apart = ~adjacent
    for i in range(n):
        apart[i, i] = False
    c = np.zeros((n, n), np.bool_)
    for i in range(n):
        for j in range(n):
            if directed[i, j]:
                for k in range(n):
                    if apart[i, k] and directed[k, j]:
                        c[i, j] = True
                        break
    undirected = np.empty((n, n), np.bool_)
    new = np.empty((n, n), np.bool_)
    while True:
        for i in range(n):
            for j in range(n):
                undirected[i, j] = adjacent[i, j] and not c[i, j] and not c[j, i]
        if not undirected.any():
            return c
        new[:] = False
        for i in range(n):
            for j in range(n):
                if not undirected[i, j]:
                    continue
                for k in range(n):
                    # R1: k -> i - j, k and j apart;  R2: i -> k -> j
                    if (c[k, i] and apart[k, j]) or (c[i, k] and c[k, j]):
                        new[i, j] = True
                        break
                if new[i, j]:
                    continue
                for k1 in range(n):  # R3: i - k1 -> j and i - k2 -> j, k1 and k2 apart
                    if undirected[i, k1] and c[k1, j]:
                        for k2 in range(n):
                            if apart[k1, k2] and undirected[i, k2] and c[k2, j]:
                                new[i, j] = True
                                break
                    if new[i, j]:
                        break
        if not new.any():
            return c
        c |= new


@numba.njit(cache=True)
def reach(step: np.ndarray, start: int, blockers: np.ndarray, seen: np.ndarray, stack: np.ndarray) -> np.ndarray:
    """``start`` and the nodes a path along ``step`` (``step[v, w]``: v to w) reaches with no
    node of ``blockers`` before its end (a blocker is reached, not passed), written into ``seen``
    (``stack``: scratch of the same length; both passed in so that loops allocate nothing)."""
    n = step.shape[0]
    seen[:] = False
    seen[start] = True
    stack[0] = start
    top = 1
    while top:
        top -= 1
        v = stack[top]
        for w in range(n):
            if step[v, w] and not seen[w]:
                seen[w] = True
                if not blockers[w]:
                    stack[top] = w
                    top += 1
    return seen
