"""PC-stable from sufficient statistics: causal-learn's CPDAG, computed from the correlation matrix.

PC (Spirtes, Glymour and Scheines 2000) with the order-independent ("stable") adjacency
search of Colombo and Maathuis (2014), unshielded colliders from separating sets and Meek's
(1995) rules, reproducing causal-learn's ``pc(data, alpha, "fisherz", stable=True,
uc_rule=0, uc_priority=2)`` step for step, so that the CPDAG is the same:

* **Fisher z** (Fisher 1924) for ``X _||_ Y | S``: the partial correlation from the inverse
  of the correlation submatrix on ``(min(X, Y), max(X, Y), sorted(S))`` (causal-learn's
  order, hence its rounding), ``r = -P[0, 1] / sqrt(|P[0, 0] P[1, 1]|)``, ``r`` clipped to
  ``+-(1 - eps)``, ``z = atanh(r)``, ``p = 2 (1 - Phi(sqrt(n - |S| - 3) |z|))``. All the
  tests of one level are solved as one batch of small matrices (:func:`fisher_z_pvalues`).
* **Stable adjacency search**: at level ``l`` every ordered pair ``(x, y)`` of adjacent
  nodes is tested given every ``l``-subset of ``adj(x) \\ {y}`` (adjacencies frozen for the
  level; causal-learn does not stop at the first independence), edges are removed at the
  end of the level, and the recorded separating information of ``{x, y}`` is the union of
  the elements of every separating set found from either side.
* **Colliders** (``uc_rule=0``, ``uc_priority=2``, "prioritise existing colliders"):
  unshielded triples ``x - y - z`` (``x < z``) in causal-learn's enumeration order; when
  ``y`` is in no separating set of ``{x, z}`` and neither ``y -> x`` nor ``y -> z`` is
  oriented yet, both edges point into ``y``.
* **Meek rules 1-3** repeated until nothing changes, over the triples, triangles and kites
  enumerated once before the loop, an orientation ``a -> b`` skipped when causal-learn's
  ancestor matrix (``dpath``; updated incrementally, so not always the full transitive
  closure; rebuilt when a directed edge is removed) says ``b`` is an ancestor of ``a``.

Corner cases reproduced by default (``small_sample="causallearn"``) and documented:
``n - |S| - 3 = 0`` gives ``z``-statistic 0, p = 1, so the edge is *removed* on no
evidence; ``n - |S| - 3 < 0`` makes causal-learn fail (``math domain error``), here a
ValueError naming n and |S|. ``small_sample="skip"`` is the corrected behaviour: a test
with ``n - |S| - 3 <= 0`` has no defined statistic and separates nothing.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pandas as pd
from scipy.stats import norm

from causaleval.graphs import CausalGraph

SMALL_SAMPLE = ("causallearn", "skip")


def fisher_z_pvalues(corr: np.ndarray, n: int, pairs: np.ndarray, sets: np.ndarray,
                     small_sample: str = "causallearn") -> np.ndarray:
    """Fisher z p-values of ``pairs[m] = (x, y)`` (x < y) given ``sets[m]`` (sorted, one size k).

    ``corr`` is the correlation matrix (``np.corrcoef``), ``n`` the number of rows. Returns
    NaN where ``small_sample="skip"`` and ``n - k - 3 <= 0`` (no test).
    """
    m, k = sets.shape
    dof = n - k - 3
    if dof < 0 and small_sample == "causallearn":
        raise ValueError(f"Fisher z with n={n} rows and a conditioning set of size {k}: "
                         f"n - |S| - 3 = {dof} < 0 (causal-learn fails here); use small_sample='skip'")
    if dof <= 0 and small_sample == "skip":
        return np.full(m, np.nan)
    idx = np.concatenate([pairs, sets], axis=1)
    sub = corr[idx[:, :, None], idx[:, None, :]]
    try:
        inv = np.linalg.inv(sub)
    except np.linalg.LinAlgError as err:
        raise ValueError("Fisher z: the data's correlation matrix is singular on a conditioning "
                         "set (collinear columns); expected linearly independent columns") from err
    r = -inv[:, 0, 1] / np.sqrt(np.abs(inv[:, 0, 0] * inv[:, 1, 1]))
    r = np.where(np.abs(r) >= 1, (1.0 - np.finfo(float).eps) * np.sign(r), r)
    z = 0.5 * np.log((1 + r) / (1 - r))
    stat = np.sqrt(float(dof)) * np.abs(z)
    return 2 * (1 - norm.cdf(np.abs(stat)))


@lru_cache(maxsize=None)
def _combinations(m: int, k: int) -> np.ndarray:
    """The k-subsets of range(m) in itertools order, one per row."""
    return np.array(list(combinations(range(m), k)), dtype=np.intp).reshape(-1, k)


def skeleton(corr: np.ndarray, n: int, alpha: float, small_sample: str = "causallearn"
             ) -> tuple[np.ndarray, dict[tuple[int, int], set[int]]]:
    """Stable adjacency search: the adjacency matrix and, per removed pair ``(x, y)`` (x < y),
    the union of its separating sets."""
    d = corr.shape[0]
    adj = ~np.eye(d, dtype=bool)
    sep: dict[tuple[int, int], set[int]] = {}
    if d >= 2:  # level 0, all pairs at once (empty separating sets)
        lo, hi = np.triu_indices(d, 1)
        p = fisher_z_pvalues(corr, n, np.stack([lo, hi], axis=1), np.empty((lo.size, 0), np.intp),
                             small_sample)
        for a, b in zip(lo[p > alpha].tolist(), hi[p > alpha].tolist()):
            adj[a, b] = adj[b, a] = False
            sep[(a, b)] = set()
    depth = 0
    while adj.sum(axis=1).max(initial=0) - 1 > depth:
        depth += 1
        pairs, sets = [], []
        for x in range(d):
            nbrs = np.flatnonzero(adj[x])
            for y in nbrs.tolist():
                others = nbrs[nbrs != y]
                if others.size < depth:
                    continue
                chosen = others[_combinations(others.size, depth)]
                sets.append(chosen)
                pairs.append(np.broadcast_to([min(x, y), max(x, y)], (len(chosen), 2)))
        if not sets:
            continue
        pair_arr, set_arr = np.concatenate(pairs), np.concatenate(sets)
        independent = fisher_z_pvalues(corr, n, pair_arr, set_arr, small_sample) > alpha
        removed: set[tuple[int, int]] = set()
        for row in np.flatnonzero(independent).tolist():  # NaN (no test) is never independent
            key = (int(pair_arr[row, 0]), int(pair_arr[row, 1]))
            removed.add(key)
            sep.setdefault(key, set()).update(set_arr[row].tolist())
        for a, b in removed:
            adj[a, b] = adj[b, a] = False
    return adj, sep


class _Pattern:
    """causal-learn's endpoint matrix ``g[a, b]`` (endpoint at a's end: -1 tail, 1 arrow) with
    its ancestor matrix ``dpath`` (``dpath[j, i] = 1``: i is an ancestor of j) kept as
    causal-learn's GeneralGraph keeps it."""

    def __init__(self, adj: np.ndarray):
        self.g = np.where(adj, -1, 0).astype(np.int8)
        self.d = adj.shape[0]
        self.dpath = np.eye(self.d, dtype=np.int8)

    def directed(self, i: int, j: int) -> bool:
        return self.g[i, j] == -1 and self.g[j, i] == 1

    def undirected(self, i: int, j: int) -> bool:
        return self.g[i, j] == -1 and self.g[j, i] == -1

    def _adjust(self, i: int, j: int) -> None:
        row_i = self.dpath[i].copy()
        col_j = self.dpath[:, j].copy()
        self.dpath[j, i] = 1
        self.dpath[j, row_i == 1] = 1
        self.dpath[col_j == 1, i] = 1

    def _reconstitute(self) -> None:
        self.dpath = np.eye(self.d, dtype=np.int8)
        edges = [(i, j) for i in range(self.d) for j in range(i + 1, self.d) if self.g[j, i] != 0]
        for i, j in reversed(edges):
            if self.directed(i, j):
                self._adjust(i, j)
            elif self.directed(j, i):
                self._adjust(j, i)

    def orient(self, i: int, j: int) -> None:
        """Remove the edge i - j (rebuilding dpath if it was directed) and add i -> j."""
        was_directed = self.directed(i, j) or self.directed(j, i)
        self.g[i, j] = self.g[j, i] = 0
        if was_directed:
            self._reconstitute()
        self.g[i, j], self.g[j, i] = -1, 1
        self._adjust(i, j)

    def adjacency_list(self) -> list[tuple[int, int]]:
        """causal-learn's ``find_adj``: tails then arrowheads, each in (row, column) order."""
        out = []
        for code in (-1, 1):
            rows, cols = np.nonzero(self.g == code)
            out.extend(zip(cols.tolist(), rows.tolist()))
        return out


def _triples(pat: _Pattern, shielded: bool) -> list[tuple[int, int, int]]:
    """causal-learn's unshielded triples (``shielded=False``) or triangles, in its order."""
    adj = pat.adjacency_list()
    by_first: dict[int, list[int]] = {}
    for pos, (a, _) in enumerate(adj):
        by_first.setdefault(a, []).append(pos)
    out = []
    for a, b in adj:
        for pos in by_first.get(b, []):
            c = adj[pos][1]
            if c != a and (pat.g[a, c] != 0) == shielded:
                out.append((a, b, c))
    return out


def _kites(triangles: list[tuple[int, int, int]], pat: _Pattern) -> list[tuple[int, int, int, int]]:
    groups: dict[tuple[int, int], list[int]] = {}
    for t in triangles:
        groups.setdefault((t[0], t[2]), []).append(t[1])
    out = []
    for i, j, l in triangles:
        for k in groups[(i, l)]:
            if j < k and pat.g[j, k] == 0:
                out.append((i, j, k, l))
    return out


def orient(adj: np.ndarray, sep: dict[tuple[int, int], set[int]]) -> np.ndarray:
    """Colliders (``uc_sepset``, priority 2) then Meek's rules; causal-learn's endpoint matrix."""
    pat = _Pattern(adj)
    for x, y, z in _triples(pat, shielded=False):
        if x < z and y not in sep.get((x, z), set()):
            if not pat.directed(y, x) and not pat.directed(y, z):
                pat.orient(x, y)
                pat.orient(z, y)
    ut = _triples(pat, shielded=False)
    tri = _triples(pat, shielded=True)
    kites = _kites(tri, pat)
    rules = [(ut, lambda i, j, k: pat.directed(i, j) and pat.undirected(j, k), (1, 2)),
             (tri, lambda i, j, k: pat.directed(i, j) and pat.directed(j, k) and pat.undirected(i, k), (0, 2)),
             (kites, lambda i, j, k, l: pat.undirected(i, j) and pat.undirected(i, k) and pat.directed(j, l)
              and pat.directed(k, l) and pat.undirected(i, l), (0, 3))]
    changed = True
    while changed:
        changed = False
        for found, applies, (a, b) in rules:
            for t in found:
                if applies(*t):
                    if pat.dpath[t[a], t[b]] == 1:  # t[b] is an ancestor of t[a]
                        continue
                    pat.orient(t[a], t[b])
                    changed = True
    return pat.g


def pc_fisher_z(data: pd.DataFrame, alpha: float, small_sample: str = "causallearn",
                name: str = "pc") -> CausalGraph:
    """PC-stable with Fisher z on continuous ``data`` -> CPDAG, causal-learn's (see module doc)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r}: expected a significance level in (0, 1)")
    if small_sample not in SMALL_SAMPLE:
        raise ValueError(f"small_sample={small_sample!r}: expected one of {SMALL_SAMPLE}")
    x = data.to_numpy(float)
    bad = [str(c) for c, ok in zip(data.columns, np.isfinite(x).all(axis=0)) if not ok]
    if bad:
        raise ValueError(f"PC data: missing or infinite values in columns {bad}; expected finite numbers")
    corr = np.atleast_2d(np.corrcoef(x.T))
    adj, sep = skeleton(corr, x.shape[0], alpha, small_sample)
    g = orient(adj, sep)
    nodes = [SimpleNamespace(get_name=lambda c=str(c): c) for c in data.columns]
    return CausalGraph.from_causallearn(SimpleNamespace(graph=g, get_nodes=lambda: nodes), name=name)
