"""The structural half of a GES forward step, compiled (numba): which ``Insert`` operators are
valid, in causal-learn's order, and which of their score changes is best. The scores themselves
stay with :class:`causaleval.learn.ges.LocalScore` (NumPy and LAPACK: the floats must be the
ones causal-learn computes). See :class:`causaleval.learn.ges._Search` for the rule.
"""

from __future__ import annotations

import numba
import numpy as np

from causaleval.graphs._closure_jit import reach


@numba.njit(cache=True)
def _grow(a: np.ndarray, size: int) -> np.ndarray:
    if size < a.shape[0]:
        return a
    bigger = np.zeros((2 * a.shape[0],) + a.shape[1:], a.dtype)
    bigger[:a.shape[0]] = a
    return bigger


@numba.njit(cache=True)
def insert_candidates(d: np.ndarray, u: np.ndarray) -> tuple:
    """The valid Inserts of the CPDAG ``d`` (directed, ``d[a, b]``: a -> b) plus ``u``
    (undirected, symmetric): ``(valid0, ys, zs, xs)``.

    ``valid0[x, y]``: Insert(X, Y, {}) with ``NA_YX`` empty is valid (X and Y apart, no
    neighbour of Y adjacent to X, no semi-directed path from Y to X). Row ``c`` of the others is
    Y = ``ys[c]`` with a non-empty clique ``Z = zs[c]`` of Y's neighbours, for Y ascending and Z
    by size, then in ``itertools.combinations`` order of the sorted neighbours; ``xs[c]`` marks
    the X apart from Y whose neighbours among Y's lie in Z and that no semi-directed path from Y
    reaches without passing Z (rows without such an X are left out)."""
    p = d.shape[0]
    adj = d | d.T | u
    semi = d | u
    valid0 = np.zeros((p, p), np.bool_)
    none = np.zeros(p, np.bool_)
    seen = np.empty(p, np.bool_)
    stack = np.empty(p, np.int64)
    for y in range(p):
        reach(semi, y, none, seen, stack)
        for x in range(p):
            if x != y and not adj[x, y] and not seen[x]:
                na = False
                for k in range(p):
                    if adj[x, k] and u[y, k]:
                        na = True
                        break
                valid0[x, y] = not na
    ys = np.zeros(16, np.int64)
    zs = np.zeros((16, p), np.bool_)
    xs = np.zeros((16, p), np.bool_)
    m = 0
    members = np.empty(p, np.int64)
    comb = np.empty(p, np.int64)
    z = np.empty(p, np.bool_)
    for y in range(p):
        k = indices(u[y], members)
        for size in range(1, k + 1):
            for i in range(size):
                comb[i] = i
            while True:
                z[:] = False
                for i in range(size):
                    z[members[comb[i]]] = True
                if _clique(adj, members, comb, size):
                    reach(semi, y, z, seen, stack)
                    found = False
                    for x in range(p):
                        if x == y or adj[x, y] or seen[x]:
                            continue
                        inside = True
                        for v in range(p):
                            if u[y, v] and not z[v] and adj[x, v]:
                                inside = False
                                break
                        if inside:
                            if not found:
                                ys, zs, xs = _grow(ys, m), _grow(zs, m), _grow(xs, m)
                                ys[m] = y
                                zs[m] = z
                                xs[m] = False
                                found = True
                            xs[m, x] = True
                    if found:
                        m += 1
                if not next_combination(comb, size, k):
                    break
    return valid0, ys[:m], zs[:m], xs[:m]


@numba.njit(cache=True)
def indices(row: np.ndarray, out: np.ndarray) -> int:
    """Write the positions of the true entries of ``row``, ascending, into ``out``; return their count."""
    k = 0
    for v in range(row.shape[0]):
        if row[v]:
            out[k] = v
            k += 1
    return k


@numba.njit(cache=True)
def next_combination(comb: np.ndarray, size: int, k: int) -> bool:
    """Advance ``comb[:size]`` to the next ``size``-subset of ``range(k)`` in lexicographic
    (``itertools.combinations``) order; False after the last."""
    i = size - 1
    while i >= 0 and comb[i] == k - size + i:
        i -= 1
    if i < 0:
        return False
    comb[i] += 1
    for j in range(i + 1, size):
        comb[j] = comb[j - 1] + 1
    return True


@numba.njit(cache=True)
def _clique(adj: np.ndarray, members: np.ndarray, comb: np.ndarray, size: int) -> bool:
    for i in range(size):
        for j in range(i + 1, size):
            if not adj[members[comb[i]], members[comb[j]]]:
                return False
    return True


@numba.njit(cache=True)
def best_changes(base: np.ndarray, valid0: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                 values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(best, chosen)``: ``best[x, y]`` the largest score change of an Insert(X, Y, .) and
    ``chosen[x, y]`` the candidate row that gave it (-1: Z empty), scanning ``base`` (Z empty,
    where ``valid0``) and then the candidate rows in order; a later one replaces only a strictly
    larger change (``values[c, x]``: candidate ``c``'s change for X)."""
    p = base.shape[0]
    best = np.where(valid0, base, -np.inf)
    chosen = np.full((p, p), -1, np.int64)
    for c in range(ys.shape[0]):
        y = ys[c]
        for x in range(p):
            if xs[c, x] and values[c, x] > best[x, y]:
                best[x, y] = values[c, x]
                chosen[x, y] = c
    return best, chosen


@numba.njit(cache=True)
def delete_candidates(d: np.ndarray, u: np.ndarray) -> tuple:
    """The valid Deletes of the CPDAG ``d`` plus ``u``, in causal-learn's order: ``(xs, ys,
    hs, ws)``, row ``c`` being Delete(X, Y, H) with X = ``xs[c]``, Y = ``ys[c]`` (X - Y or
    X -> Y), H = ``hs[c]`` and the parents Y keeps, ``ws[c] = (NA_YX - H) | Pa_Y - {X}``. X, then
    Y ascending; H over the subsets of ``NA_YX`` (Y's neighbours adjacent to X) by size, then in
    ``itertools.combinations`` order; valid iff ``NA_YX - H`` is a clique."""
    p = d.shape[0]
    adj = d | d.T | u
    xs = np.zeros(16, np.int64)
    ys = np.zeros(16, np.int64)
    hs = np.zeros((16, p), np.bool_)
    ws = np.zeros((16, p), np.bool_)
    m = 0
    members = np.empty(p, np.int64)
    comb = np.empty(p, np.int64)
    rest = np.empty(p, np.bool_)
    for x in range(p):
        for y in range(p):
            if not (u[x, y] or d[x, y]):
                continue
            k = indices(u[y] & adj[x], members)
            for size in range(k + 1):
                for i in range(size):
                    comb[i] = i
                while True:
                    rest[:] = False
                    for i in range(k):
                        rest[members[i]] = True
                    for i in range(size):
                        rest[members[comb[i]]] = False
                    if _is_clique(adj, rest):
                        xs, ys, hs, ws = _grow(xs, m), _grow(ys, m), _grow(hs, m), _grow(ws, m)
                        xs[m], ys[m] = x, y
                        hs[m] = False
                        for i in range(size):
                            hs[m, members[comb[i]]] = True
                        for v in range(p):
                            ws[m, v] = (rest[v] or d[v, y]) and v != x
                        m += 1
                    if not next_combination(comb, size, k):
                        break
    return xs[:m], ys[:m], hs[:m], ws[:m]


@numba.njit(cache=True)
def _is_clique(adj: np.ndarray, nodes: np.ndarray) -> bool:
    p = nodes.shape[0]
    for a in range(p):
        if nodes[a]:
            for b in range(a + 1, p):
                if nodes[b] and not adj[a, b]:
                    return False
    return True
