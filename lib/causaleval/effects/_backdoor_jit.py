"""The adjustment sets of :func:`causaleval.effects.ate.backdoor_set`, compiled: every ordered
pair of every DAG of a stack in one call.

Same rule, same sets (``tests/test_ate.py`` compares them with the bit-mask reference on random
DAGs): no directed path ``T -> Y`` gives no set; else, in the back-door graph (the DAG without
``T``'s outgoing edges) and the moral graph of ``A = An(T) | An(Y)``, the empty set when ``T``
and ``Y`` are not connected, ``Pa(T)`` when ``T`` has one parent or every parent of ``T`` is a
moral neighbour of ``Y``, else the minimum vertex cut between them closest to ``T`` among the
non-descendants of ``T`` (Edmonds-Karp on the node-split graph: ``in_v = v``, ``out_v = d + v``,
capacity 1 through an allowed node, ``d + 1`` standing for infinity elsewhere; the cut is the set
of nodes whose in-copy, but not out-copy, the source reaches in the final residual graph, which
is the same for every maximum flow). Boolean arrays, not bit masks, so any number of nodes.
"""

from __future__ import annotations

import numba
import numpy as np

from causaleval.graphs._closure_jit import reach


@numba.njit(cache=True)
def _closest_cut(moral: np.ndarray, area: np.ndarray, allowed: np.ndarray, t: int, y: int, out: np.ndarray) -> None:
    """Write the minimum vertex cut closest to ``t`` into ``out`` (module notes)."""
    d = moral.shape[0]
    inf = d + 1
    cap = np.zeros((2 * d, 2 * d), np.int64)
    for v in range(d):
        if area[v]:
            cap[v, d + v] = 1 if allowed[v] else inf
            for w in range(d):
                if moral[v, w]:
                    cap[d + v, w] = inf
    source, sink = d + t, y
    prev = np.empty(2 * d, np.int64)
    queue = np.empty(2 * d, np.int64)
    while True:
        prev[:] = -1
        prev[source] = source
        queue[0] = source
        head, tail = 0, 1
        while head < tail and prev[sink] < 0:
            u = queue[head]
            head += 1
            for w in range(2 * d):
                if cap[u, w] > 0 and prev[w] < 0:
                    prev[w] = u
                    queue[tail] = w
                    tail += 1
        if prev[sink] < 0:
            break
        w = sink
        while w != source:
            u = prev[w]
            cap[u, w] -= 1
            cap[w, u] += 1
            w = u
    for v in range(d):
        out[v] = area[v] and prev[v] >= 0 and prev[d + v] < 0


@numba.njit(cache=True)
def adjustment_sets(dags: np.ndarray, ts: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(path[k, p], sets[k, p, d])``: for DAG ``k`` (``dags[k, i, j]``: i -> j) and pair
    ``(ts[p], ys[p])``, whether a directed path ``T -> Y`` exists and, if so, the adjustment set."""
    k, d = dags.shape[0], dags.shape[1]
    n_pairs = ts.shape[0]
    path = np.zeros((k, n_pairs), np.bool_)
    sets = np.zeros((k, n_pairs, d), np.bool_)
    none = np.zeros(d, np.bool_)
    at_t = np.zeros(d, np.bool_)
    seen = np.empty(d, np.bool_)
    stack = np.empty(d, np.int64)
    for g in range(k):
        pa = dags[g]
        up = pa.T  # up[v, p]: p is a parent of v
        anc = np.zeros((d, d), np.bool_)  # anc[v]: v and its ancestors
        for v in range(d):
            reach(up, v, none, anc[v], stack)
        for q in range(n_pairs):
            t, y = ts[q], ys[q]
            if not anc[y, t]:
                continue
            path[g, q] = True
            bd = pa.copy()
            bd[t, :] = False
            at_t[:] = False
            at_t[t] = True
            area = anc[t] | reach(up, y, at_t, seen, stack)  # An(Y) in the back-door graph, and T
            moral = np.zeros((d, d), np.bool_)
            for v in range(d):
                if area[v]:
                    for p in range(d):
                        if bd[p, v]:
                            moral[p, v] = moral[v, p] = True
                            for r in range(p + 1, d):
                                if bd[r, v]:
                                    moral[p, r] = moral[r, p] = True
            if not reach(moral, t, none, seen, stack)[y]:
                continue  # the empty set
            n_parents, adjacent = 0, True
            for p in range(d):
                if pa[p, t]:
                    n_parents += 1
                    adjacent = adjacent and moral[p, y]
            if n_parents == 1 or adjacent:
                sets[g, q] = pa[:, t]
                continue
            allowed = area.copy()
            for v in range(d):
                if anc[v, t]:  # v descends from t (t itself included)
                    allowed[v] = False
            allowed[y] = False
            _closest_cut(moral, area, allowed, t, y, sets[g, q])
    return path, sets
