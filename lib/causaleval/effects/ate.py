"""Average treatment effects of every ordered pair in many DAGs, for linear-Gaussian data.

Emezue et al. (2023; REFERENCES.md) estimate, for each DAG ``G`` of a posterior sample and
each ordered pair ``(T, Y)``, ``ATE = E[Y | do(T = 1)] - E[Y | do(T = 0)]`` with DoWhy's
back-door linear regression. For a linear model that is the coefficient of ``T`` in the
least-squares regression ``Y ~ 1 + T + Z`` over a valid back-door set ``Z`` (Pearl 2009,
Thm. 3.3.2). Here:

* **No directed path T -> Y in G**: the effect is exactly 0 (no regression).
* **Adjustment set**: the empty set when it is a valid back-door set, else a valid set of
  the smallest size: the minimum vertex cut between T and Y in the moral graph of
  ``A = An(T) | An(Y)`` (ancestors in the back-door graph, G without T's outgoing edges),
  using only non-descendants of T, that lies *closest to T* -- unique, so no tie-break is
  needed (van der Zander, Liskiewicz and Textor 2019 show that a smallest valid set lies in
  ``A``). ``Pa(T)`` is always valid, so the size is at most ``|Pa(T)|``. DoWhy's default
  (empty set, else the smallest sets) picks among equally small sets in an order that
  follows Python's hash seed (PITFALLS.md) and prefers sets with fewer instruments: where
  several smallest sets exist, our choice is a documented deviation. DoWhy also adds
  treatment x effect-modifier interaction terms when its graph names effect modifiers,
  which changes finite-sample estimates; the linear model has no interactions, and we add none.
* **Validity** of ``Z``: no node of ``Z`` descends from ``T``, and ``T`` and ``Y`` are
  d-separated by ``Z`` in the back-door graph; d-separation is checked in the moral graph
  of the ancestral set of ``{T, Y} | Z`` (Lauritzen et al. 1990).
* **Estimate**: with the centred cross-product matrix ``S = Xc' Xc`` of the data, the
  coefficient of ``T`` is the first entry of ``S[R, R]^{-1} S[R, Y]`` for ``R = (T, *Z)``
  (the intercept is absorbed by centring); when ``S[R, R]`` is singular (e.g. more columns
  than rows allow) the regression is solved by ``numpy.linalg.lstsq`` on ``[1, T, Z]``: the
  minimum-norm solution, as DoWhy's statsmodels OLS (pseudo-inverse) gives.

The posterior's many DAGs stay cheap: the adjustment sets of every pair of every DAG come from
one compiled call (:func:`causaleval.effects._backdoor_jit.adjustment_sets`, the same rule as
:func:`backdoor_set`, which stays as the reference it is tested against), and each regression
is solved once per ``(T, Y, Z)``; the missing regressions of a batch of DAGs are solved
together, one batched ``numpy.linalg.solve`` per set size.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from causaleval.effects._backdoor_jit import adjustment_sets
from causaleval.graphs import _acyclic
from causaleval.graphs.bitsets import bits

Key = tuple[int, int, tuple[int, ...]]


def _ancestors(parents: Sequence[int], start: int, removed: int = -1) -> int:
    """Bitmask of ``start`` and its ancestors, ignoring node ``removed`` (and its edges)."""
    seen = 1 << start
    frontier = seen
    while frontier:
        step = 0
        for v in bits(frontier):
            step |= parents[v]
        if removed >= 0:
            step &= ~(1 << removed)
        frontier = step & ~seen
        seen |= frontier
    return seen


def _moral(parents: Sequence[int], area: int) -> dict[int, int]:
    """Neighbour bitmasks of the moral graph of the (ancestral) node set ``area``."""
    nb = {v: 0 for v in bits(area)}
    for v in nb:
        pa = parents[v]
        nb[v] |= pa
        for p in bits(pa):
            nb[p] |= (1 << v) | (pa & ~(1 << p))
    return nb


def _connected(nb: dict[int, int], a: int, b: int, blocked: int) -> bool:
    seen = frontier = 1 << a
    while frontier:
        step = 0
        for v in bits(frontier):
            step |= nb[v]
        frontier = step & ~seen & ~blocked
        seen |= frontier
        if seen >> b & 1:
            return True
    return False


def separated(parents: Sequence[int], t: int, y: int, z: int) -> bool:
    """Are ``t`` and ``y`` d-separated by the node set ``z`` (bitmask) in the back-door
    graph of ``t`` (the DAG of ``parents`` without the edges out of ``t``)?"""
    bd = [p & ~(1 << t) for p in parents]
    area = 0
    for v in bits((1 << t) | (1 << y) | z):
        area |= _ancestors(bd, v)
    return not _connected(_moral(bd, area), t, y, z)


def _descendants(parents: Sequence[int], t: int) -> int:
    seen = 1 << t
    changed = True
    while changed:
        changed = False
        for v in range(len(parents)):
            if not seen >> v & 1 and parents[v] & seen:
                seen |= 1 << v
                changed = True
    return seen


def backdoor_set(parents: Sequence[int], t: int, y: int) -> tuple[int, ...] | None:
    """The adjustment set of ``(t, y)`` by the module's rule, or None without a directed
    path from ``t`` to ``y`` (the effect is then 0)."""
    if not _ancestors(parents, y) >> t & 1:
        return None
    bd = [p & ~(1 << t) for p in parents]
    area = _ancestors(bd, t) | _ancestors(bd, y)
    moral = _moral(bd, area)
    if not _connected(moral, t, y, 0):
        return ()
    if parents[t] & (parents[t] - 1) == 0 or all(moral[p] >> y & 1 for p in bits(parents[t])):
        # one parent, or each parent p of T gives the path T - p - Y, disjoint from the others:
        # the maximum flow is |Pa(T)|, so Pa(T) is a minimum cut, and the one closest to T
        return bits(parents[t])
    return _closest_min_cut(moral, t, y, area & ~_descendants(parents, t) & ~(1 << y))


def _closest_min_cut(moral: dict[int, int], t: int, y: int, allowed: int) -> tuple[int, ...]:
    """The minimum vertex cut between ``t`` and ``y`` in the moral graph, from the nodes
    ``allowed``, that lies closest to ``t``: each node split into in -> out with capacity 1
    (allowed) or unbounded, moral edges unbounded both ways; augmenting paths of a
    breadth-first search (Edmonds-Karp max flow), then the cut nodes are those whose in-copy
    but not out-copy is reachable from ``t``'s out-copy in the residual graph. That reachable
    set is the same for every maximum flow, so the cut is unique (Ford and Fulkerson 1962;
    Picard and Queyranne 1980). The search runs on bit masks, one breadth-first level at a time;
    only arcs that carry flow are stored."""
    through: dict[int, int] = {}  # v -> flow on in_v -> out_v
    carried: dict[tuple[int, int], int] = {}  # (v, w) -> flow on out_v -> in_w
    while True:
        levels = _residual_levels(moral, t, y, allowed, through, carried)
        seen_in = 0
        for level_in, _ in levels:
            seen_in |= level_in
        if not seen_in >> y & 1:
            break
        _augment(levels, moral, y, allowed, through, carried)
    seen_out = 0
    for level_in, level_out in levels:
        seen_out |= level_out
    cut = tuple(v for v in sorted(moral) if seen_in >> v & 1 and not seen_out >> v & 1)
    if not cut or len(cut) > len(moral):
        raise AssertionError(f"no valid back-door set for ({t}, {y}); Pa(T) should be one")
    return cut


def _residual_levels(moral: dict[int, int], t: int, y: int, allowed: int, through: dict[int, int],
                     carried: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """Breadth-first levels ``(in-copies, out-copies)`` of the residual graph from ``t``'s
    out-copy, up to the level that reaches ``y``'s in-copy (or all of them)."""
    flowing = saturated = 0
    for v, f in through.items():
        if f > 0:
            flowing |= 1 << v
            if allowed >> v & 1:
                saturated |= 1 << v
    back: dict[int, int] = {}  # w -> the v with flow on out_v -> in_w (residual in_w -> out_v)
    for (v, w), f in carried.items():
        if f > 0:
            back[w] = back.get(w, 0) | 1 << v
    levels = [(0, 1 << t)]
    seen_in, seen_out = 0, 1 << t
    while True:
        frontier_in, frontier_out = levels[-1]
        new_in = frontier_out & flowing  # out_v -> in_v against the flow
        for v in bits(frontier_out):
            new_in |= moral[v]
        new_out = frontier_in & ~saturated  # in_v -> out_v
        for w in bits(frontier_in):
            new_out |= back.get(w, 0)
        new_in &= ~seen_in
        new_out &= ~seen_out
        if not new_in and not new_out:
            return levels
        seen_in |= new_in
        seen_out |= new_out
        levels.append((new_in, new_out))
        if new_in >> y & 1:
            return levels


def _augment(levels: list[tuple[int, int]], moral: dict[int, int], y: int, allowed: int,
             through: dict[int, int], carried: dict[tuple[int, int], int]) -> None:
    """Push one unit along a shortest residual path to ``y``'s in-copy, walking the levels back."""
    side, node = "in", y
    for k in range(len(levels) - 1, 0, -1):
        prev_in, prev_out = levels[k - 1]
        if side == "in":  # from out_v over a moral arc, or from out_node against its own flow
            forward = prev_out & moral[node]
            if forward:
                v = (forward & -forward).bit_length() - 1
                carried[(v, node)] = carried.get((v, node), 0) + 1
                side, node = "out", v
            else:
                through[node] -= 1
                side = "out"
        else:  # from in_node through the node, or from in_w against the flow on out_node -> in_w
            if prev_in >> node & 1 and (not allowed >> node & 1 or through.get(node, 0) < 1):
                through[node] = through.get(node, 0) + 1
                side = "in"
            else:
                w = next(w for w in bits(prev_in) if carried.get((node, w), 0) > 0)
                carried[(node, w)] -= 1
                side, node = "in", w


def smallest_backdoor_sets(parents: Sequence[int], t: int, y: int) -> list[tuple[int, ...]]:
    """Every valid back-door set of the smallest size among the non-descendants of ``t`` in
    ``An(T) | An(Y)`` of the back-door graph, by exhaustive search (exponential: for tests)."""
    bd = [p & ~(1 << t) for p in parents]
    area = _ancestors(bd, t) | _ancestors(bd, y)
    candidates = bits(area & ~_descendants(parents, t) & ~(1 << y) & ~(1 << t))
    for size in range(len(candidates) + 1):
        found = [z for z in itertools.combinations(candidates, size)
                 if separated(parents, t, y, sum(1 << v for v in z))]
        if found:
            return found
    return []


class LinearATE:
    """ATEs of ordered pairs over many DAGs on one data set (rows x variables).

    ``solved`` counts the regressions actually solved, ``requested`` the (DAG, pair)
    effects asked for.
    """

    def __init__(self, data: np.ndarray):
        x = np.asarray(data, dtype=float)
        if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
            raise ValueError(f"LinearATE needs a rows x variables matrix with at least 2 of each, got shape {x.shape}")
        if not np.isfinite(x).all():
            raise ValueError("LinearATE data: infinite or missing values in columns "
                             f"{np.flatnonzero(~np.isfinite(x).all(axis=0)).tolist()}")
        self.data = x
        centred = x - x.mean(axis=0)
        self.cross = centred.T @ centred
        self.n, self.d = x.shape
        self.values: dict[Key, float] = {}
        self.solved = self.requested = 0

    def pairs(self) -> list[tuple[int, int]]:
        """Every ordered pair ``(T, Y)``, ``T != Y``, in row-major order."""
        return [(t, y) for t in range(self.d) for y in range(self.d) if t != y]

    def effects(self, dags: np.ndarray, pairs: Sequence[tuple[int, int]] | None = None) -> np.ndarray:
        """``(k, len(pairs))`` ATEs of the ``k`` DAGs (a ``k x d x d`` 0/1 stack)."""
        dags = np.asarray(dags, dtype=bool)
        if dags.ndim != 3 or dags.shape[1:] != (self.d, self.d):
            raise ValueError(f"effects: expected a k x {self.d} x {self.d} stack of DAGs, got shape {dags.shape}")
        cyclic = np.flatnonzero(~_acyclic(dags))
        if len(cyclic):
            raise ValueError(f"effects: graph {int(cyclic[0])} of the stack has a directed cycle; expected DAGs")
        pairs = self.pairs() if pairs is None else [tuple(p) for p in pairs]
        bad = [p for p in pairs if len(p) != 2 or p[0] == p[1] or not all(0 <= int(v) < self.d for v in p)]
        if bad:
            raise ValueError(f"effects: pair {bad[0]!r} is not (T, Y) with T != Y in 0..{self.d - 1}")
        ts, ys = (np.array([p[i] for p in pairs], dtype=np.int64).reshape(-1) for i in (0, 1))
        path, sets = adjustment_sets(np.ascontiguousarray(dags), ts, ys)
        self.requested += len(dags) * len(pairs)
        out = np.zeros(path.shape)
        which = np.flatnonzero(path.ravel())
        if len(which):
            q = which % len(pairs)
            rows = np.column_stack([ts[q], ys[q], np.packbits(sets.reshape(-1, self.d)[which], axis=1)])
            unique, inverse = np.unique(rows, axis=0, return_inverse=True)
            keys = [(int(t), int(y), tuple(np.flatnonzero(z).tolist()))
                    for t, y, z in zip(unique[:, 0], unique[:, 1], np.unpackbits(unique[:, 2:].astype(np.uint8),
                                                                                  axis=1, count=self.d))]
            self._solve({k for k in keys if k not in self.values})
            np.put(out, which, np.array([self.values[k] for k in keys])[inverse.reshape(-1)])
        return out

    def _solve(self, missing: set[Key]) -> None:
        by_size: dict[int, list[Key]] = {}
        for key in sorted(missing):
            by_size.setdefault(len(key[2]), []).append(key)
        for size, keys in by_size.items():
            cols = np.array([[t, *z] for t, _, z in keys])
            outcome = np.array([y for _, y, _ in keys])
            a = self.cross[cols[:, :, None], cols[:, None, :]]
            b = self.cross[cols, outcome[:, None]]
            try:
                if size + 1 >= self.n - 1:  # S[R, R] has rank at most n - 1
                    raise np.linalg.LinAlgError
                coef = np.linalg.solve(a, b[..., None])[:, 0, 0]
            except np.linalg.LinAlgError:  # each key on its own, so a key's value never depends on its batch
                coef = np.array([self._solve_one(key, ak, bk) for key, ak, bk in zip(keys, a, b)])
            self.values.update(zip(keys, coef.tolist()))
            self.solved += len(keys)

    def _solve_one(self, key: Key, a: np.ndarray, b: np.ndarray) -> float:
        """One regression: ``S[R, R]^{-1} S[R, Y]`` when ``S[R, R]`` can have full rank and
        does, else :func:`lstsq_effect` (minimum norm over the intercept and the slopes)."""
        t, y, z = key
        if len(z) + 1 < self.n - 1:
            try:
                return float(np.linalg.solve(a, b)[0])
            except np.linalg.LinAlgError:
                pass
        return lstsq_effect(self.data, t, y, z)


def lstsq_effect(data: np.ndarray, t: int, y: int, z: Sequence[int]) -> float:
    """The coefficient of ``t`` in ``numpy.linalg.lstsq`` of ``y`` on ``[1, t, *z]``: the
    naive per-(DAG, pair) estimate that :class:`LinearATE` must reproduce."""
    x = np.column_stack([np.ones(len(data)), data[:, [t, *z]]])
    return float(np.linalg.lstsq(x, data[:, y], rcond=None)[0][1])
