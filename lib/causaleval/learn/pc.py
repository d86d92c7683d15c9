"""PC-stable from sufficient statistics: causal-learn's CPDAG, computed from the correlation matrix
(Fisher z) or from contingency tables counted in bulk (chi-square, G-square).

PC (Spirtes, Glymour and Scheines 2000) with the order-independent ("stable") adjacency
search of Colombo and Maathuis (2014), unshielded colliders from separating sets and Meek's
(1995) rules, reproducing causal-learn's ``pc(data, alpha, test, stable=True, uc_rule=0,
uc_priority=2)`` for ``test`` in ``fisherz``, ``chisq``, ``gsq`` step for step, so that the
CPDAG is the same (:func:`pc_fisher_z`, :func:`pc_discrete`; one :func:`skeleton` takes the
test as a function of a batch of (pair, conditioning set) tests):

* **Fisher z** (Fisher 1924) for ``X _||_ Y | S``: the partial correlation from the inverse
  of the correlation submatrix on ``(min(X, Y), max(X, Y), sorted(S))`` (causal-learn's
  order, hence its rounding), ``r = -P[0, 1] / sqrt(|P[0, 0] P[1, 1]|)``, ``r`` clipped to
  ``+-(1 - eps)``, ``z = atanh(r)``, ``p = 2 (1 - Phi(sqrt(n - |S| - 3) |z|))``. All the
  tests of one level are solved as one batch of small matrices (:func:`fisher_z_pvalues`).
* **Chi-square and G-square** (Pearson 1900; Wilks 1938), causal-
  learn's ``cit.Chisq_or_Gsq``: each column re-coded to ``0 .. r - 1`` (its sorted distinct
  values) with cardinality ``r`` counted on the whole data; for ``X _||_ Y | S`` the table
  ``N[s, a, b]`` over the configurations ``s`` of ``sorted(S)`` (mixed radix, the first
  variable slowest), ``X = min``, ``Y = max``; per stratum ``E[s, a, b] = N[s, a, +] N[s, +, b]
  / N[s, +, +]``, statistic ``sum (N - E)^2 / E`` (chi-square) or ``2 sum N log(N / E)``
  (G-square; ``0 log 0 = 0``), cells with ``E = 0`` contributing 0, no continuity correction,
  no minimum expected count; degrees of freedom ``sum_s (|X| - 1 - #{a: N[s, a, +] = 0})
  (|Y| - 1 - #{b: N[s, +, b] = 0})`` over the non-empty strata, i.e. ``(r_s - 1)(c_s - 1)``
  with ``r_s``, ``c_s`` the levels of X and Y seen in stratum s; ``p = chi2.sf(statistic,
  dof)``. The tables of all tests of one level come from one ``np.bincount`` over mixed-
  radix codes of the data's distinct rows (weighted by multiplicity) or from popcounts of
  bit sets, whichever touches fewer words; the statistics are evaluated for the whole batch
  and summed as causal-learn sums them, so the p-values agree to the last bit
  (:class:`DiscreteTests`).
* **Stable adjacency search**: at level ``l`` every ordered pair ``(x, y)`` of adjacent
  nodes is tested given every ``l``-subset of ``adj(x) \\ {y}`` (adjacencies frozen for the
  level; causal-learn does not stop at the first independence), edges are removed at the
  end of the level (``p > alpha``), and the recorded separating information of ``{x, y}`` is
  the union of the elements of every separating set found from either side.
* **Colliders** (``uc_rule=0``, ``uc_priority=2``, "prioritise existing colliders"):
  unshielded triples ``x - y - z`` (``x < z``) in causal-learn's enumeration order; when
  ``y`` is in no separating set of ``{x, z}`` and neither ``y -> x`` nor ``y -> z`` is
  oriented yet, both edges point into ``y``.
* **Meek rules 1-3** repeated until nothing changes, over the triples, triangles and kites
  enumerated once before the loop, an orientation ``a -> b`` skipped when causal-learn's
  ancestor matrix (``dpath``; updated incrementally, so not always the full transitive
  closure; rebuilt when a directed edge is removed) says ``b`` is an ancestor of ``a``.

The enumeration of a level's tests and the whole orientation phase (triples, colliders, Meek's
rules, the ancestor matrix) are compiled (:mod:`causaleval.learn._pc_jit`); the tests stay NumPy.

Corner cases reproduced by default and documented:

* Fisher z (``small_sample="causallearn"``): ``n - |S| - 3 = 0`` gives ``z``-statistic 0,
  p = 1, so the edge is *removed* on no evidence; ``n - |S| - 3 < 0`` makes causal-learn fail
  (``math domain error``), here a ValueError naming n and |S|. ``small_sample="skip"`` is the
  corrected behaviour: a test with ``n - |S| - 3 <= 0`` has no defined statistic and
  separates nothing.
* Chi-square / G-square (``zero_dof="causallearn"``): **zero degrees of freedom give p = 1**,
  so the edge is removed on no evidence: X or Y constant within every non-empty stratum (S
  determines X, as asia's ``either``, a function of ``tub`` and ``lung``; a constant column; too few rows for S).
  ``zero_dof="skip"`` is the corrected behaviour: such a test separates nothing.
  **Empty strata** (configurations of S absent from the data) are dropped, contributing neither
  statistic nor degrees of freedom. **Cardinalities** are those of the whole data, and a
  level of X or Y absent from a stratum lowers that stratum's degrees of freedom (the
  ``- #{zero rows}`` terms), not the statistic. The values' **coding** does not matter (any
  finite numbers; floats and negative codes are ranked as causal-learn's ``np.unique``).
* Not reproduced: causal-learn indexes the configurations of S in int64 (``np.dot`` with
  the cumulative product of the cardinalities), which wraps when their product exceeds
  2**63 (e.g. 63 binary variables in S) and then merges distinct strata; here the strata
  stay distinct.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pandas as pd
from scipy.special import chdtrc
from scipy.stats import norm

from causaleval.graphs import CausalGraph
from causaleval.learn._pc_jit import colliders, kites, level_tests, meek, triples

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


#: ``zero_dof`` choices of the discrete tests: causal-learn's p = 1, or no test
ZERO_DOF = ("causallearn", "skip")
DISCRETE_TESTS = ("chisq", "gsq")

#: words (uint64) or counts held at once by one batch of discrete tests (~32 MB)
_BATCH = 1 << 22
#: larger dense tables (configurations of S times |X| |Y| cells) go through the per-test path
_DENSE_CELLS = 1 << 16


class DiscreteTests:
    """causal-learn's ``chisq`` / ``gsq`` (``cit.Chisq_or_Gsq``) p-values of many tests at once.

    ``data`` is an ``(n, d)`` array of finite numbers; each column is re-coded densely (its
    sorted distinct values become ``0 .. r - 1``, causal-learn's ``np.unique`` inverse) and its
    cardinality is ``r``, counted on the whole data. Calling the object with ``pairs[m] = (x, y)``
    (x < y) and ``sets[m]`` (sorted, one size k) returns the p-values (see the module doc for the
    statistic and its corner cases). Each distinct (pair, set) is tested once. The counts of a
    batch of tests with the same cardinalities come from one of two exact engines, whichever
    touches fewer words: ``np.bincount`` over mixed-radix codes of the data's distinct rows
    (weighted by their multiplicity), or bit sets (one bit per row for each value of each
    variable, a cell's count the popcount of ``stratum & (X = a) & (Y = b)``). A table of more
    than ``2**16`` cells and ``4 n`` (many states, large S) is counted test by test over its
    non-empty strata only (causal-learn's ``np.unique`` path), the strata in the same order.
    """

    def __init__(self, data: np.ndarray, g_square: bool = False, zero_dof: str = "causallearn"):
        if zero_dof not in ZERO_DOF:
            raise ValueError(f"zero_dof={zero_dof!r}: expected one of {ZERO_DOF}")
        data = np.asarray(data)
        self.n, self.d = data.shape
        self.codes = _dense_codes(data)
        self.cards = self.codes.max(axis=0) + 1 if self.n else np.ones(self.d, np.int64)
        self.g_square, self.zero_dof = g_square, zero_dof
        self.words = -(-self.n // 64)
        self._rows: tuple[np.ndarray, np.ndarray | None] | None = None
        if float(np.prod(self.cards.astype(float))) <= 4 * self.n + 65536:  # cheap: a presence table
            self._rows = _distinct_rows(self.codes, self.cards)
        self._bits: np.ndarray | None = None

    @property
    def rows(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The distinct rows ``(d, R)`` and their multiplicities (:func:`_distinct_rows`)."""
        if self._rows is None:
            self._rows = _distinct_rows(self.codes, self.cards)
        return self._rows

    @property
    def bits(self) -> np.ndarray:
        """``bits[v, a]``: the rows with ``X_v = a`` as packed bits, ``(d, max card, words)``."""
        if self._bits is None:
            onehot = self.codes.T[:, None, :] == np.arange(int(self.cards.max()))[None, :, None]
            packed = np.packbits(onehot, axis=2, bitorder="little")
            packed = np.pad(packed, ((0, 0), (0, 0), (0, self.words * 8 - packed.shape[2])))
            self._bits = np.ascontiguousarray(packed).view(np.uint64)
        return self._bits

    def __call__(self, pairs: np.ndarray, sets: np.ndarray) -> np.ndarray:
        keys = np.concatenate([pairs, sets], axis=1).astype(np.int64)
        unique, inverse = _unique_rows(keys, self.d)
        p = np.empty(len(unique))
        k = sets.shape[1]
        shape = self.cards[unique]  # (m, 2 + k): |X|, |Y|, |S_1|, ...
        if (self.cards == self.cards[0]).all():
            groups, group_of = shape[:1], np.zeros(len(unique), np.intp)
        else:
            groups, group_of = _unique_rows(shape, int(self.cards.max()) + 1)
        for g, card in enumerate(groups):
            members = np.flatnonzero(group_of == g)
            cx, cy, cs = int(card[0]), int(card[1]), [int(c) for c in card[2:]]
            strata = math.prod(cs)
            cells = strata * cx * cy
            x, y, s = unique[members, 0], unique[members, 1], unique[members, 2:]
            if cells > _DENSE_CELLS and cells > 4 * self.n:
                p[members] = [self._sparse_test(*row) for row in zip(x, y, s)]
                continue
            # cost (measured): bit sets ~4 units per cell and word (and their packing, once),
            # rows ~k + 6 per distinct row
            # (the distinct rows are found, an O(n log n) sort, only where they may pay)
            packing = 0 if self._bits is not None else self.d * int(self.cards.max()) * self.n // 8
            bit_cost = 4 * cells * self.words * len(members) + packing
            known = self._rows is not None or (bit_cost * 4 > self.n * (k + 6) * len(members)
                                               and bit_cost > 64 * self.n)  # the sort, amortized
            use_bits = bit_cost < (self.rows[0].shape[1] if known else self.n) * (k + 6) * len(members)
            counter = self._bit_counts if use_bits else self._row_counts
            per_test = cells * self.words if use_bits else max(cells, self.rows[0].shape[1])
            step = max(1, _BATCH // per_test)
            for lo in range(0, len(members), step):
                sl = slice(lo, lo + step)
                counts = counter(x[sl], y[sl], s[sl], cs, cx, cy)
                p[members[sl]] = self._pvalues(counts.reshape(-1, strata, cx, cy))
        return p[inverse]

    def _row_counts(self, x, y, s, cs, cx, cy) -> np.ndarray:
        """``(m, cells)`` counts by ``np.bincount`` over the distinct rows' mixed-radix codes
        ``((s_1 |S_2| + s_2) ... ) |X| |Y| + x |Y| + y`` (causal-learn's order of the cells)."""
        rows, weights = self.rows
        code = np.zeros((len(x), rows.shape[1]), dtype=np.int64)
        for j, c in enumerate(cs):
            code *= c
            code += rows[s[:, j]]
        code *= cx * cy
        code += rows[x] * cy + rows[y]
        cells = math.prod(cs) * cx * cy
        code += (np.arange(len(x), dtype=np.int64) * cells)[:, None]
        if weights is not None:
            weights = np.broadcast_to(weights, code.shape).reshape(-1)
        counts = np.bincount(code.reshape(-1), weights=weights, minlength=len(x) * cells)
        return counts.astype(np.int64).reshape(len(x), cells)

    def _bit_counts(self, x, y, s, cs, cx, cy) -> np.ndarray:
        """``(m, cells)`` counts as popcounts of ``stratum & (X = a) & (Y = b)`` bit sets."""
        bits = self.bits
        mask = (bits[x, :cx, None, :] & bits[y, None, :cy, :])[:, None]  # (m, 1, |X|, |Y|, words)
        for j, c in enumerate(cs):  # strata in mixed-radix order, the first variable slowest
            mask = (mask[:, :, None] & bits[s[:, j], :c][:, None, :, None, None, :]).reshape(
                len(x), -1, cx, cy, bits.shape[2])
        return np.bitwise_count(mask).sum(axis=-1, dtype=np.uint32).astype(np.int64).reshape(len(x), -1)

    def _sparse_test(self, x: int, y: int, s: np.ndarray) -> float:
        """One test on its non-empty strata only (causal-learn's ``np.unique`` path), for large
        conditioning sets; the strata sorted as their configurations (lexicographically)."""
        codes, w = self.rows
        _, stratum = np.unique(codes[s].T, axis=0, return_inverse=True)
        cx, cy = int(self.cards[x]), int(self.cards[y])
        k = int(stratum.max()) + 1
        flat = (stratum.reshape(-1) * cx + codes[x]) * cy + codes[y]
        counts = np.bincount(flat, weights=w, minlength=k * cx * cy).astype(np.int64)
        return float(self._pvalues(counts.reshape(1, k, cx, cy))[0])

    def _pvalues(self, counts: np.ndarray) -> np.ndarray:
        """p-values of ``(m, strata, |X|, |Y|)`` count tables, causal-learn's arithmetic."""
        sx, sy = counts.sum(axis=3), counts.sum(axis=2)
        sn = sx.sum(axis=2)
        seen = sn > 0  # causal-learn drops the empty strata
        all_seen = bool(seen.all())
        expected = sx[:, :, :, None] * sy[:, :, None, :] / (sn if all_seen else np.where(seen, sn, 1))[:, :, None, None]
        zero = expected == 0
        safe = np.where(zero, 1.0, expected)
        if self.g_square:
            ratio = counts / safe
            ratio[ratio == 0] = 1
            terms = counts * np.log(ratio)
        else:
            terms = (counts - expected) ** 2 / safe
        # causal-learn's (|X| - 1 - zero rows)(|Y| - 1 - zero columns) per non-empty stratum: a row of
        # E is zero exactly where the level of X is unseen in the stratum
        dof_strata = ((sx > 0).sum(axis=2) - 1) * ((sy > 0).sum(axis=2) - 1)
        # summed as causal-learn sums its (non-empty strata, |X|, |Y|) array (pairwise, row by row)
        if all_seen:
            dof = dof_strata.sum(axis=1)
            stat = terms.reshape(len(terms), -1).sum(axis=1)
        else:
            dof = np.where(seen, dof_strata, 0).sum(axis=1)
            stat = np.empty(len(counts))
            n_seen = seen.sum(axis=1)
            for k in np.unique(n_seen).tolist():
                rows = np.flatnonzero(n_seen == k)
                stat[rows] = terms[rows][seen[rows]].reshape(len(rows), -1).sum(axis=1)
        if self.g_square:
            stat = 2 * stat
        with np.errstate(invalid="ignore"):  # dof 0: no test, replaced below
            p = chdtrc(dof, stat)  # scipy.stats.chi2.sf(stat, dof) without its wrapper, the same bits
        return np.where(dof > 0, p, 1.0 if self.zero_dof == "causallearn" else np.nan)


def _dense_codes(data: np.ndarray) -> np.ndarray:
    """Per column ``np.unique(column, return_inverse=True)[1]`` (causal-learn's re-coding): the
    sorted distinct values become 0 .. r - 1; in one pass by a presence table when the values
    are integers of a modest range (state codes), else column by column."""
    n, d = data.shape
    if n == 0:
        return np.zeros((0, d), np.int64)
    columns = np.ascontiguousarray(data.T)
    ints = columns.astype(np.int64)
    lo = ints.min(axis=1)
    span = ints.max(axis=1) - lo
    if span.sum() < 4 * n * d + 1024 and (ints == columns).all():
        ints -= lo[:, None]
        offset = np.concatenate([[0], np.cumsum(span + 1)[:-1]])
        present = np.bincount((ints + offset[:, None]).reshape(-1), minlength=int(offset[-1] + span[-1] + 1)) > 0
        if present.all():  # already 0 .. r - 1 with every state seen
            return ints.T
        rank = np.cumsum(present) - 1
        return (rank[ints + offset[:, None]] - rank[offset][:, None]).T
    return np.stack([np.unique(data[:, j], return_inverse=True)[1].reshape(-1) for j in range(d)], axis=1)


def _unique_rows(rows: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` for non-negative integers below ``base``
    (one int64 key per row when ``base ** width`` fits)."""
    width = rows.shape[1]
    if width == 0:
        return rows[:1], np.zeros(len(rows), np.intp)
    if float(base) ** width >= 2.0 ** 62:
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    key = rows @ (base ** np.arange(width - 1, -1, -1, dtype=np.int64))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


def _distinct_rows(codes: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The distinct rows of ``codes`` in lexicographic order, transposed ``(d, R)``, and their
    multiplicities (None when every row is distinct: the counts are then unweighted)."""
    states = float(np.prod(cards.astype(float)))
    if states < 2.0 ** 62:
        radix = np.cumprod(np.concatenate([cards[1:], [1]])[::-1])[::-1].astype(np.int64)
        key = codes @ radix
        if states <= 4 * len(codes) + 65536:
            counts = np.bincount(key, minlength=int(states))
            key = np.flatnonzero(counts)
            weights = counts[key]
            rows = (key[:, None] // radix) % cards
        else:
            _, first, weights = np.unique(key, return_index=True, return_counts=True)
            rows = codes[first]
    else:
        rows, weights = np.unique(codes, axis=0, return_counts=True)
    if len(rows) == len(codes):
        return np.ascontiguousarray(rows.T), None
    return np.ascontiguousarray(rows.T), weights.astype(float)


#: a batch of tests: ``(pairs, sets) -> p-values``, pairs ``(x, y)`` with x < y, sets sorted
Test = Callable[[np.ndarray, np.ndarray], np.ndarray]


def skeleton(test: Test, d: int, alpha: float) -> tuple[np.ndarray, dict[tuple[int, int], set[int]]]:
    """Stable adjacency search over ``d`` variables with ``test`` (every test of a level in one
    call): the adjacency matrix and, per removed pair ``(x, y)`` (x < y), the union of its
    separating sets."""
    adj = ~np.eye(d, dtype=bool)
    sep: dict[tuple[int, int], set[int]] = {}
    if d >= 2:  # level 0, all pairs at once (empty separating sets)
        lo, hi = np.triu_indices(d, 1)
        p = test(np.stack([lo, hi], axis=1), np.empty((lo.size, 0), np.intp))
        for a, b in zip(lo[p > alpha].tolist(), hi[p > alpha].tolist()):
            adj[a, b] = adj[b, a] = False
            sep[(a, b)] = set()
    depth = 0
    while adj.sum(axis=1).max(initial=0) - 1 > depth:
        depth += 1
        pair_arr, set_arr = level_tests(adj, depth)  # every y in adj(x), every depth-subset of adj(x) - {y}
        if not len(pair_arr):
            continue
        independent = test(pair_arr, set_arr) > alpha
        removed: set[tuple[int, int]] = set()
        for row in np.flatnonzero(independent).tolist():  # NaN (no test) is never independent
            key = (int(pair_arr[row, 0]), int(pair_arr[row, 1]))
            removed.add(key)
            sep.setdefault(key, set()).update(set_arr[row].tolist())
        for a, b in removed:
            adj[a, b] = adj[b, a] = False
    return adj, sep


def orient(adj: np.ndarray, sep: dict[tuple[int, int], set[int]]) -> np.ndarray:
    """Colliders (``uc_sepset``, priority 2) then Meek's rules on causal-learn's endpoint matrix
    ``g`` (``g[a, b]``: the mark at a's end, -1 tail, 1 arrow) and its ancestor matrix ``dpath``
    (``dpath[j, i] = 1``: i is an ancestor of j), both compiled in causal-learn's order
    (:mod:`causaleval.learn._pc_jit`)."""
    g = np.where(adj, -1, 0).astype(np.int8)
    dpath = np.eye(adj.shape[0], dtype=np.int8)
    unshielded = triples(g, False)
    keep = [x < z and y not in sep.get((x, z), ()) for x, y, z in unshielded.tolist()]
    colliders(g, dpath, unshielded[np.array(keep, dtype=bool)])
    triangles = triples(g, True)
    meek(g, dpath, triples(g, False), triangles, kites(g, triangles))
    return g


def _cpdag(adj: np.ndarray, sep: dict[tuple[int, int], set[int]], columns, name: str) -> CausalGraph:
    g = orient(adj, sep)
    nodes = [SimpleNamespace(get_name=lambda c=str(c): c) for c in columns]
    return CausalGraph.from_causallearn(SimpleNamespace(graph=g, get_nodes=lambda: nodes), name=name)


def _checked(data: pd.DataFrame, alpha: float) -> np.ndarray:
    """The boundary of both PC entry points: ``alpha`` in (0, 1) and finite data, as floats."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r}: expected a significance level in (0, 1)")
    x = data.to_numpy(float)
    bad = [str(c) for c, ok in zip(data.columns, np.isfinite(x).all(axis=0)) if not ok]
    if bad:
        raise ValueError(f"PC data: missing or infinite values in columns {bad}; expected finite numbers")
    return x


def pc_fisher_z(data: pd.DataFrame, alpha: float, small_sample: str = "causallearn",
                name: str = "pc") -> CausalGraph:
    """PC-stable with Fisher z on continuous ``data`` -> CPDAG, causal-learn's (see module doc)."""
    if small_sample not in SMALL_SAMPLE:
        raise ValueError(f"small_sample={small_sample!r}: expected one of {SMALL_SAMPLE}")
    x = _checked(data, alpha)
    corr = np.atleast_2d(np.corrcoef(x.T))
    n = x.shape[0]
    adj, sep = skeleton(lambda pairs, sets: fisher_z_pvalues(corr, n, pairs, sets, small_sample),
                        x.shape[1], alpha)
    return _cpdag(adj, sep, data.columns, name)


def pc_discrete(data: pd.DataFrame, alpha: float, test: str = "chisq", zero_dof: str = "causallearn",
                name: str = "pc") -> CausalGraph:
    """PC-stable with causal-learn's ``chisq`` or ``gsq`` test on discrete ``data`` -> CPDAG,
    causal-learn's ``pc(data, alpha, test, stable=True, uc_rule=0, uc_priority=2)`` (see the
    module doc; :class:`DiscreteTests`)."""
    if test not in DISCRETE_TESTS:
        raise ValueError(f"test={test!r}: expected one of {DISCRETE_TESTS}")
    x = _checked(data, alpha)
    tests = DiscreteTests(x, g_square=test == "gsq", zero_dof=zero_dof)
    adj, sep = skeleton(tests, x.shape[1], alpha)
    return _cpdag(adj, sep, data.columns, name)
