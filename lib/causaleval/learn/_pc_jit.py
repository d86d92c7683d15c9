"""PC's level enumeration and orientation phase, compiled (numba), in causal-learn's order: the
tests of one level of the stable adjacency search (:func:`level_tests`); the unshielded triples,
triangles and kites (:func:`triples`, :func:`kites`); the colliders and Meek's rules on
causal-learn's endpoint matrix ``g`` (``g[a, b]`` is the mark at a's end of the edge a - b: -1
tail, 1 arrow, 0 none) with its ancestor matrix ``dpath`` (``dpath[j, i] = 1``: i is an ancestor
of j), updated as causal-learn's GeneralGraph updates them. :mod:`causaleval.learn.pc` calls them
(see its module notes for the rules).
"""

from __future__ import annotations

import numba
import numpy as np

from causaleval.learn._ges_jit import indices, next_combination


@numba.njit(cache=True)
def _directed(g: np.ndarray, i: int, j: int) -> bool:
    return g[i, j] == -1 and g[j, i] == 1


@numba.njit(cache=True)
def _undirected(g: np.ndarray, i: int, j: int) -> bool:
    return g[i, j] == -1 and g[j, i] == -1


@numba.njit(cache=True)
def _adjust(dpath: np.ndarray, i: int, j: int) -> None:
    """Record i -> j: j and everything under j gain i and i's ancestors (as causal-learn does)."""
    d = dpath.shape[0]
    row_i = dpath[i].copy()
    col_j = dpath[:, j].copy()
    dpath[j, i] = 1
    for k in range(d):
        if row_i[k] == 1:
            dpath[j, k] = 1
    for k in range(d):
        if col_j[k] == 1:
            dpath[k, i] = 1


@numba.njit(cache=True)
def _reconstitute(g: np.ndarray, dpath: np.ndarray) -> None:
    """Rebuild ``dpath`` from the directed edges, the pairs (i < j) taken in reverse order."""
    d = g.shape[0]
    dpath[:] = 0
    for v in range(d):
        dpath[v, v] = 1
    for i in range(d - 1, -1, -1):
        for j in range(d - 1, i, -1):
            if g[j, i] != 0:
                if _directed(g, i, j):
                    _adjust(dpath, i, j)
                elif _directed(g, j, i):
                    _adjust(dpath, j, i)


@numba.njit(cache=True)
def _orient(g: np.ndarray, dpath: np.ndarray, i: int, j: int) -> None:
    """Replace the edge i - j by i -> j (rebuilding ``dpath`` if it was directed)."""
    was_directed = _directed(g, i, j) or _directed(g, j, i)
    g[i, j] = 0
    g[j, i] = 0
    if was_directed:
        _reconstitute(g, dpath)
    g[i, j] = -1
    g[j, i] = 1
    _adjust(dpath, i, j)


@numba.njit(cache=True)
def colliders(g: np.ndarray, dpath: np.ndarray, candidates: np.ndarray) -> None:
    """``x -> y <- z`` for each row ``(x, y, z)`` of ``candidates`` (in order) unless ``y -> x``
    or ``y -> z`` is already oriented."""
    for r in range(candidates.shape[0]):
        x, y, z = candidates[r, 0], candidates[r, 1], candidates[r, 2]
        if not _directed(g, y, x) and not _directed(g, y, z):
            _orient(g, dpath, x, y)
            _orient(g, dpath, z, y)


@numba.njit(cache=True)
def meek(g: np.ndarray, dpath: np.ndarray, triples: np.ndarray, triangles: np.ndarray, kites: np.ndarray) -> None:
    """Rules 1-3 over the given triples, triangles and kites until a pass changes nothing; an
    orientation ``a -> b`` is skipped when ``dpath`` has b as an ancestor of a."""
    changed = True
    while changed:
        changed = False
        for r in range(triples.shape[0]):  # R1: i -> j - k  =>  j -> k
            i, j, k = triples[r, 0], triples[r, 1], triples[r, 2]
            if _directed(g, i, j) and _undirected(g, j, k) and dpath[j, k] != 1:
                _orient(g, dpath, j, k)
                changed = True
        for r in range(triangles.shape[0]):  # R2: i -> j -> k, i - k  =>  i -> k
            i, j, k = triangles[r, 0], triangles[r, 1], triangles[r, 2]
            if _directed(g, i, j) and _directed(g, j, k) and _undirected(g, i, k) and dpath[i, k] != 1:
                _orient(g, dpath, i, k)
                changed = True
        for r in range(kites.shape[0]):  # R3: i - j -> l, i - k -> l, i - l  =>  i -> l
            i, j, k, m = kites[r, 0], kites[r, 1], kites[r, 2], kites[r, 3]
            if (_undirected(g, i, j) and _undirected(g, i, k) and _directed(g, j, m) and _directed(g, k, m)
                    and _undirected(g, i, m) and dpath[i, m] != 1):
                _orient(g, dpath, i, m)
                changed = True


@numba.njit(cache=True)
def _n_choose(m: int, k: int) -> int:
    out = 1
    for i in range(k):
        out = out * (m - i) // (i + 1)
    return out


@numba.njit(cache=True)
def level_tests(adj: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The tests of level ``depth`` of the stable adjacency search, in causal-learn's order:
    for each x, its sorted neighbours ``nbrs``; for each position i of a (depth + 1)-subset of
    ``nbrs`` (``itertools.combinations`` order, i outer, subsets inner), y = the subset's i-th
    member and S = the others. Rows of ``pairs`` are ``(min(x, y), max(x, y))``, of ``sets`` S."""
    d = adj.shape[0]
    total = 0
    for x in range(d):
        m = 0
        for v in range(d):
            m += adj[x, v]
        if m > depth:
            total += (depth + 1) * _n_choose(m, depth + 1)
    pairs = np.empty((total, 2), np.int64)
    sets = np.empty((total, depth), np.int64)
    nbrs = np.empty(d, np.int64)
    comb = np.empty(depth + 1, np.int64)
    row = 0
    for x in range(d):
        m = indices(adj[x], nbrs)
        if m <= depth:
            continue
        for i in range(depth + 1):
            for c in range(depth + 1):
                comb[c] = c
            while True:
                y = nbrs[comb[i]]
                pairs[row, 0] = min(x, y)
                pairs[row, 1] = max(x, y)
                col = 0
                for c in range(depth + 1):
                    if c != i:
                        sets[row, col] = nbrs[comb[c]]
                        col += 1
                row += 1
                if not next_combination(comb, depth + 1, m):
                    break
    return pairs, sets


@numba.njit(cache=True)
def triples(g: np.ndarray, shielded: bool) -> np.ndarray:
    """causal-learn's unshielded triples (``shielded=False``) or triangles ``(a, b, c)``, in its
    order: over its adjacency list (``find_adj``: the (column, row) of every tail mark ``g == -1``
    in row-major order, then of every arrow mark ``g == 1``), each ``(a, b)`` followed by every
    ``(b, c)`` of the list with ``c != a`` and a, c adjacent iff ``shielded``."""
    d = g.shape[0]
    first = np.empty(d * d, np.int64)
    second = np.empty(d * d, np.int64)
    n = 0
    for code in (-1, 1):
        for r in range(d):
            for c in range(d):
                if g[r, c] == code:
                    first[n] = c
                    second[n] = r
                    n += 1
    out = np.empty((16, 3), np.int64)
    m = 0
    for p in range(n):
        a, b = first[p], second[p]
        for q in range(n):
            if first[q] == b:
                c = second[q]
                if c != a and (g[a, c] != 0) == shielded:
                    if m == out.shape[0]:
                        bigger = np.empty((2 * m, 3), np.int64)
                        bigger[:m] = out
                        out = bigger
                    out[m, 0], out[m, 1], out[m, 2] = a, b, c
                    m += 1
    return out[:m]


@numba.njit(cache=True)
def kites(g: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """``(i, j, k, l)`` for triangles ``(i, j, l)`` and ``(i, k, l)`` with ``j < k`` and j, k not
    adjacent: the first triangle in order, then the second in order (causal-learn's kites)."""
    t = triangles.shape[0]
    out = np.empty((16, 4), np.int64)
    m = 0
    for r in range(t):
        i, j, l = triangles[r, 0], triangles[r, 1], triangles[r, 2]
        for q in range(t):
            if triangles[q, 0] == i and triangles[q, 2] == l:
                k = triangles[q, 1]
                if j < k and g[j, k] == 0:
                    if m == out.shape[0]:
                        bigger = np.empty((2 * m, 4), np.int64)
                        bigger[:m] = out
                        out = bigger
                    out[m, 0], out[m, 1], out[m, 2], out[m, 3] = i, j, k, l
                    m += 1
    return out[:m]
