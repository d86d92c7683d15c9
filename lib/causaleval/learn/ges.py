"""Greedy Equivalence Search (Chickering 2002), fast, with causal-learn's operators and scores.

D. M. Chickering, "Optimal structure identification with greedy search", Journal of
Machine Learning Research 3:507-554, 2002 (doi:10.1162/153244303321897717). GES searches
over CPDAGs: a forward phase applies the best valid ``Insert(X, Y, T)`` while it raises the
score, then a backward phase the best valid ``Delete(X, Y, H)``; after each operator the
PDAG is turned back into the CPDAG of its class (causal-learn extends it to a DAG, Dor and
Tarsi 1992, and takes that DAG's CPDAG; a consistent extension has the PDAG's skeleton and
v-structures, so the kit closes those under Meek's rules directly:
:func:`causaleval.graphs.conversions.compelled_edges`).

This is a transcription of causal-learn 0.1.4.8's ``ges`` (``search/ScoreBased/GES.py``
with ``utils/GESUtils.py``) that returns the **same CPDAG**:

* operators are scanned in causal-learn's order: ``X`` then ``Y`` by column index, then
  ``T`` (or ``H``) over the subsets of the sorted candidates, smallest first, each size in
  ``itertools.combinations`` order; the first operator with the strictly largest score
  change wins (start value ``-1e7``); a phase stops when ``(score + change) - score <= 0``;
* Insert(X, Y, T) is valid iff ``NA_YX | T`` is a clique and every semi-directed path from
  Y to X meets ``NA_YX | T`` (Chickering's Theorem 15; here a reachability search that
  avoids those nodes, equivalent to causal-learn's path enumeration); Delete(X, Y, H) is
  valid iff ``NA_YX - H`` is a clique (Theorem 17);
* local scores equal causal-learn's bit for bit, so score-equivalent ties (X -> Y against
  Y -> X) fall the same way.

Speed (``benchmarks/bench_ges.py``, ``benchmarks/bench_ges_gaussian.py``): each step scores
all Inserts in bulk (see :class:`_Search`), the score changes of a (node, parents) row are
kept across steps, the Gaussian scores compute a row's missing entries in one stacked
``inv`` (the same floats as one at a time), and the enumeration of valid operators, the choice
among their changes and the CPDAG completion are compiled (:mod:`causaleval.learn._ges_jit`,
:mod:`causaleval.graphs._closure_jit`).

Scores (higher is better), each cached by (node, sorted parent tuple) for the whole search
(the bootstrap's sufficient statistics: counts for BDeu, the covariance matrix for BIC and BGe):

* ``bdeu`` (causal-learn's ``local_score_BDeu`` with its defaults, sample prior
  ``alpha = 1`` and structure prior ``s = 1``): for node i with ``r_i`` states (the number of
  *distinct values seen* in its column) and parents with ``q_i`` joint configurations
  (the product of their ``r``), with ``v = p - 1``::

      |Pa| log(s / v) + (v - |Pa|) log(1 - s / v)
        + sum_j [ lgamma(alpha / q_i) - lgamma(N_ij + alpha / q_i)
                  + sum_k ( lgamma(N_ijk + alpha / (r_i q_i)) - lgamma(alpha / (r_i q_i)) ) ]

  (Heckerman, Geiger and Chickering 1995, eq. 28 with the structure prior above). Counts
  come from one ``numpy.bincount`` over a mixed-radix index of the parent configuration;
  the sums run in causal-learn's order (configurations sorted, counts within one
  descending; without parents, states sorted) and use ``math.lgamma``, so the floats are
  identical. A node with one state scores only its structure prior term (its data terms
  cancel). The structure prior needs ``p >= 3`` variables (``log(1 - 1/1)`` otherwise).
* ``bic`` (causal-learn's ``local_score_BIC`` as its GES evaluates it, from the covariance
  matrix with ``ddof = 0``): ``-n/2 (1 + log sigma^2) - lambda (|Pa| + 1) log n``, with
  ``sigma^2`` the residual variance of the linear regression of i on its parents and
  ``lambda = 0.5`` the usual BIC penalty (Schwarz 1978), for continuous data.
* ``bge`` (no causal-learn counterpart): the Bayesian Gaussian equivalent score, the log
  marginal likelihood under a normal-Wishart prior (Geiger and Heckerman, "Parameter priors
  for directed acyclic graphical models and the characterization of several probability
  distributions", Annals of Statistics 30(5), 2002, doi:10.1214/aos/1035844981), in the
  corrected form of Kuipers, Moffa and Heckerman ("Addendum on the scoring of Gaussian
  directed acyclic graphical models", Annals of Statistics 42(4), 2014,
  doi:10.1214/14-AOS1217) with their defaults ``alpha_mu = 1``, ``alpha_w = p + alpha_mu + 1``,
  ``T = t I``, ``t = alpha_mu (alpha_w - p - 1) / (alpha_mu + 1)`` and prior mean 0 (as
  their R package BiDAG). With ``R = T + sum_n (x_n - xbar)(x_n - xbar)' +
  N alpha_mu / (N + alpha_mu) xbar xbar'``, a node with ``k`` parents ``P`` (``Y = {i} | P``)::

      -N/2 log pi + 1/2 log(alpha_mu / (N + alpha_mu)) + lgamma((N + a) / 2) - lgamma(a / 2)
        + (a + k)/2 log t - (N + a)/2 (log|R_YY| - log|R_PP|) - 1/2 log|R_PP|,
      a = alpha_w - p + k + 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causaleval.graphs import ARROW, CIRCLE, CausalGraph
from causaleval.graphs.bitsets import bits, row_masks
from causaleval.graphs.conversions import compelled_edges
from causaleval.learn._ges_jit import best_changes, delete_candidates, insert_candidates

SCORES = ("bdeu", "bic", "bge")
START = -1e7  # causal-learn's initial best score change; only larger changes are kept


class LocalScore:
    """A decomposable score's local term, cached by ``(node, sorted parents)``.

    ``computed`` counts evaluations, ``served`` the calls answered from the cache.
    """

    def __init__(self) -> None:
        self.cache: dict[tuple[int, tuple[int, ...]], float] = {}
        self.computed = 0
        self.served = 0

    def __call__(self, node: int, parents: tuple[int, ...]) -> float:
        key = (node, parents)
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = self.compute(node, parents)
            self.computed += 1
        else:
            self.served += 1
        return value

    def compute(self, node: int, parents: tuple[int, ...]) -> float:
        raise NotImplementedError

    def scores(self, keys: list[tuple[int, tuple[int, ...]]]) -> list[float]:
        """The local scores of ``keys`` (node, sorted parents) through the cache; the missing
        ones are computed in one :meth:`batch` per node and parent-set size."""
        missing = list(dict.fromkeys(key for key in keys if key not in self.cache))
        groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        for node, parents in missing:
            groups.setdefault((node, len(parents)), []).append(parents)
        for (node, _), sets in groups.items():
            for parents, value in zip(sets, self.batch(node, sets)):
                self.cache[(node, parents)] = value
        self.computed += len(missing)
        self.served += len(keys) - len(missing)
        return [self.cache[key] for key in keys]

    def row(self, node: int, parents: tuple[int, ...], extra: list[int]) -> np.ndarray:
        """``[S(node, parents + (x,)) for x in extra]``, parents sorted, the ``extra`` distinct
        and not among ``parents``: :meth:`scores` for keys that cannot repeat, so one batch."""
        keys = [(node, tuple(sorted((*parents, x)))) for x in extra]
        cache = self.cache
        missing = [key[1] for key in keys if key not in cache]
        if missing:
            cache.update(zip(((node, m) for m in missing), self.batch(node, missing)))
        self.computed += len(missing)
        self.served += len(keys) - len(missing)
        return np.array([cache[key] for key in keys])

    def batch(self, node: int, parent_sets: list[tuple[int, ...]]) -> list[float]:
        """Local scores of ``node`` with each of ``parent_sets`` (all of one size)."""
        return [self.compute(node, parents) for parents in parent_sets]


class BDeuScore(LocalScore):
    """BDeu on integer state codes, equal to causal-learn's ``local_score_BDeu`` (see module)."""

    def __init__(self, codes: np.ndarray, sample_prior: float = 1, structure_prior: float = 1):
        super().__init__()
        n, p = codes.shape
        dense = [np.unique(codes[:, v], return_inverse=True) for v in range(p)]
        self.codes = np.stack([inverse.reshape(-1) for _, inverse in dense]).astype(np.int64)  # (p, n)
        self.cards = [len(states) for states, _ in dense]
        self.n = n
        self.sample_prior = sample_prior
        v = p - 1
        self.prior = [k * np.log(structure_prior / v) + (v - k) * np.log(1 - (structure_prior / v))
                      for k in range(p)]

    def compute(self, node: int, parents: tuple[int, ...]) -> float:
        r, cards, codes = self.cards[node], self.cards, self.codes
        if not parents:  # causal-learn: np.unique counts, states in sorted order
            counts, n_ij, q = np.bincount(codes[node], minlength=r)[None, :], [self.n], 1
        else:
            config = codes[parents[0]]  # first parent most significant: sorted = lexicographic
            size = q = cards[parents[0]]
            for parent in parents[1:]:
                config = config * cards[parent] + codes[parent]
                size *= cards[parent]
                q *= cards[parent]
                if size > self.n:
                    _, config = np.unique(config, return_inverse=True)
                    size = int(config.max()) + 1
            table = np.bincount(config * r + codes[node], minlength=size * r).reshape(size, r)
            n_ij = table.sum(axis=1)
            if not n_ij.all():  # causal-learn's group-by visits observed configurations only
                table, n_ij = table[n_ij > 0], n_ij[n_ij > 0]
            table.sort(axis=1)
            counts, n_ij = table[:, ::-1], n_ij.tolist()  # value_counts: descending
        a_ij, a_ijk = self.sample_prior / q, self.sample_prior / (r * q)
        lgamma_ijk = np.array([math.lgamma(c + a_ijk) for c in counts.ravel().tolist()])
        data_terms = lgamma_ijk.reshape(counts.shape) - math.lgamma(a_ijk)  # an unseen cell: 0.0
        second = np.cumsum(data_terms, axis=1)[:, -1]  # sequential sums, as causal-learn's loop
        lgamma_a_ij = math.lgamma(a_ij)
        total = self.prior[len(parents)]
        for n_j, second_j in zip(n_ij, second.tolist()):
            total += (lgamma_a_ij - math.lgamma(n_j + a_ij)) + second_j
        return float(total)


class BICScore(LocalScore):
    """Linear-Gaussian BIC, equal to causal-learn's ``local_score_BIC_from_cov``."""

    def __init__(self, values: np.ndarray, lambda_value: float = 0.5):
        super().__init__()
        self.cov = np.cov(values.T, ddof=0)
        self.n = values.shape[0]
        self.lambda_value = lambda_value

    def compute(self, node: int, parents: tuple[int, ...]) -> float:
        cov, pa = self.cov, list(parents)
        sigma = cov[node, node]
        if pa:
            y_x = cov[np.ix_([node], pa)]
            x_x = cov[np.ix_(pa, pa)]
            try:
                x_x_inv = np.linalg.inv(x_x)
            except np.linalg.LinAlgError:
                x_x_inv = np.linalg.pinv(x_x)
            sigma = float((cov[node, node] - y_x @ x_x_inv @ y_x.T).item())
        return float(self._score(sigma, len(pa)))

    def batch(self, node: int, parent_sets: list[tuple[int, ...]]) -> list[float]:
        """:meth:`compute` for many parent sets of one size, with stacked ``inv`` and ``@``
        (the same LAPACK and BLAS calls per matrix, so the same floats; checked in the tests)."""
        pa = np.array(parent_sets, dtype=np.intp)
        cov = self.cov
        y_x = cov[node][pa][:, None, :]
        try:
            x_x_inv = np.linalg.inv(cov[pa[:, :, None], pa[:, None, :]])
        except np.linalg.LinAlgError:  # a singular one among them: pinv, one at a time
            return super().batch(node, parent_sets)
        sigmas = cov[node, node] - (y_x @ x_x_inv @ y_x.transpose(0, 2, 1))[:, 0, 0]
        return self._score(sigmas, pa.shape[1]).tolist()

    def _score(self, sigma: float | np.ndarray, k: int) -> float | np.ndarray:
        sigma = np.where(sigma <= 0, np.finfo(float).eps, sigma)
        likelihood = -0.5 * self.n * (1 + np.log(sigma))
        penalty = self.lambda_value * (k + 1) * np.log(self.n)
        return likelihood - penalty


class BGeScore(LocalScore):
    """The BGe score (see the module notes for the formula and its references)."""

    def __init__(self, values: np.ndarray, alpha_mu: float = 1.0):
        super().__init__()
        n, p = values.shape
        self.alpha_w = p + alpha_mu + 1
        self.t = alpha_mu * (self.alpha_w - p - 1) / (alpha_mu + 1)
        mean = values.mean(axis=0)
        centred = values - mean
        self.r = self.t * np.eye(p) + centred.T @ centred + (n * alpha_mu / (n + alpha_mu)) * np.outer(mean, mean)
        self.n, self.p = n, p
        self.constant = -n / 2 * math.log(math.pi) + 0.5 * math.log(alpha_mu / (n + alpha_mu))

    def _logdet(self, nodes: list[int]) -> float:
        if not nodes:
            return 0.0
        index = np.array(nodes)
        return float(np.linalg.slogdet(self.r[index[:, None], index])[1])

    def compute(self, node: int, parents: tuple[int, ...]) -> float:
        family, given = self._logdet([node, *parents]), self._logdet(list(parents))
        return float(self._score(family, given, len(parents)))

    def batch(self, node: int, parent_sets: list[tuple[int, ...]]) -> list[float]:
        """:meth:`compute` for many parent sets of one size, with stacked ``slogdet`` (the same
        LAPACK calls per matrix, so the same floats; checked in the tests)."""
        pa = np.array(parent_sets, dtype=np.intp)
        family_nodes = np.concatenate([np.full((len(pa), 1), node), pa], axis=1)
        family = np.linalg.slogdet(self.r[family_nodes[:, :, None], family_nodes[:, None, :]])[1]
        given = np.linalg.slogdet(self.r[pa[:, :, None], pa[:, None, :]])[1]
        return self._score(family, given, pa.shape[1]).tolist()

    def terms(self, k: int) -> tuple[float, float]:
        """The parts of a family's score that depend only on its number of parents ``k``:
        ``base_k = constant + lgamma((n + a) / 2) - lgamma(a / 2) + (a + k) / 2 log t`` and
        ``c_k = (n + a) / 2``, with ``a = alpha_w - p + k + 1``, so that ``S = base_k - c_k (family -
        given) - given / 2`` (the log determinants of ``R`` on the family and on the parents; MC3's
        compiled chain, :mod:`causaleval.bayes._mc3_jit`, scores by them)."""
        n, a = self.n, self.alpha_w - self.p + k + 1
        base = self.constant + math.lgamma((n + a) / 2) - math.lgamma(a / 2) + (a + k) / 2 * math.log(self.t)
        return base, (n + a) / 2

    def _score(self, family, given, k: int):
        base, coef = self.terms(k)
        return base - coef * (family - given) - given / 2


@dataclass(frozen=True)
class GESResult:
    """The CPDAG, its score, the operators applied and the local-score cache counts."""

    graph: CausalGraph
    score: float
    inserts: tuple[tuple[str, str, tuple[str, ...]], ...]
    deletes: tuple[tuple[str, str, tuple[str, ...]], ...]
    computed: int  # local scores evaluated
    served: int  # local scores answered from the cache


def ges(data: pd.DataFrame, *, score: str = "bdeu", lambda_value: float = 0.5) -> GESResult:
    """GES on ``data`` (columns = variables) with the ``bdeu``, ``bic`` or ``bge`` score
    (module notes). ``bdeu`` takes integer state codes, the others numeric columns;
    ``lambda_value`` is BIC's penalty factor.
    """
    local = _local_score(data, score, lambda_value)
    names = [str(c) for c in data.columns]
    search = _Search(len(names), local)
    search.run()

    def named(ops: list[tuple[int, int, tuple[int, ...]]]) -> tuple:
        return tuple((names[x], names[y], tuple(names[v] for v in vs)) for x, y, vs in ops)

    return GESResult(CausalGraph(tuple(names), search.matrix(), name="ges"), float(search.score),
                     named(search.inserts), named(search.deletes), local.computed, local.served)


#: the fewest rows for which a score says anything about the structure
MIN_ROWS = {"bdeu": 2, "bic": 3, "bge": 3}
MIN_ROWS_WHY = {
    "bdeu": "with one row every column is constant",
    "bic": "with two rows any two columns are perfectly correlated, every regression fits exactly "
           "and its log residual variance is undefined",
    "bge": "with two rows any two columns are perfectly correlated, so the data cannot tell structures apart",
}


def _local_score(data: pd.DataFrame, score: str, lambda_value: float) -> LocalScore:
    """The boundary: check ``data`` for ``score`` and build the local score."""
    if score not in SCORES:
        raise ValueError(f"GES score {score!r} unknown; expected one of {', '.join(SCORES)}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"GES needs a pandas DataFrame (one column per variable), got {type(data).__name__}")
    if data.shape[1] < 2 or data.shape[0] < 1:
        raise ValueError(f"GES needs at least two variable columns and one row, got shape {data.shape}")
    if data.shape[0] < MIN_ROWS[score]:
        raise ValueError(f"GES with the {score} score: found {data.shape[0]} rows, expected at least "
                         f"{MIN_ROWS[score]} ({MIN_ROWS_WHY[score]})")
    missing = [str(c) for c in data.columns[data.isna().to_numpy().any(axis=0)]]
    if missing:
        raise ValueError(f"GES data: missing values in columns {missing}")
    if score == "bdeu":
        for c in data.columns:
            column = data[c]
            if not pd.api.types.is_integer_dtype(column) or pd.api.types.is_bool_dtype(column):
                raise ValueError(f"GES data: column {str(c)!r} holds {column.dtype} values "
                                 f"({_example(column)}); the BDeu score needs integer state codes")
        if data.shape[1] < 3:
            raise ValueError(f"GES with BDeu needs at least 3 variables (the structure prior "
                             f"log(1 - 1/(p - 1)) is undefined for p = 2), got columns {list(map(str, data.columns))}")
        return BDeuScore(data.to_numpy(dtype=np.int64))
    not_numeric = [str(c) for c, t in data.dtypes.items()
                   if not pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)]
    if not_numeric:
        raise ValueError(f"GES data: columns {not_numeric} are not numeric; the {score} score needs real values")
    values = data.to_numpy(dtype=float)
    if not np.isfinite(values).all():
        bad = [str(c) for c, ok in zip(data.columns, np.isfinite(values).all(axis=0)) if not ok]
        raise ValueError(f"GES data: infinite values in columns {bad}")
    if score == "bge":
        return BGeScore(values)
    if not lambda_value > 0:
        raise ValueError(f"GES: lambda_value must be positive, got {lambda_value}")
    return BICScore(values, lambda_value)


def _example(column: pd.Series) -> str:
    """The first value of a column that is not a whole number (else its first value), with its row."""
    numeric = pd.to_numeric(column, errors="coerce").astype(float)
    fractional = np.flatnonzero(~(numeric == np.floor(numeric)))
    k = int(fractional[0]) if len(fractional) else 0
    value = column.iloc[k]
    return f"e.g. {getattr(value, 'item', lambda: value)()!r} in row {k}"


class _Search:
    """The state of one GES run: a CPDAG as directed (``d[a, b]``: a -> b) and undirected masks.

    The forward phase scores every operator of a step in bulk. For a non-adjacent pair (X, Y)
    an Insert(X, Y, T) adds ``Z = NA_YX | T``, a subset of Y's neighbours that contains
    ``NA_YX``; it is valid iff Z is a clique and no semi-directed path from Y reaches X without
    meeting Z. So for each Y and each clique Z of its neighbours (the empty one for all Y at
    once), the changes ``S(Y, Pa_Y | Z | {X}) - S(Y, Pa_Y | Z)`` of every X come from one row of
    the local score (:meth:`LocalScore.row`), and validity from one reachability search that
    avoids Z. Taking Z by size, then in ``combinations`` order, visits each X's T in
    causal-learn's order (T = Z - NA_YX, and equal-size sets sharing NA_YX sort as their
    differences do); a change replaces the pair's best only when strictly larger, and the
    first pair in (X, Y) order with the largest change wins, so the operator is causal-learn's.
    The enumeration of valid operators and the choice among their changes are compiled
    (:mod:`causaleval.learn._ges_jit`); the rows of score changes are kept across steps here,
    and the Z = {} rows of the current parents also as one matrix (``base``).
    """

    def __init__(self, p: int, local: LocalScore):
        self.p = p
        self.local = local
        self.d = np.zeros((p, p), dtype=bool)
        self.u = np.zeros((p, p), dtype=bool)
        self.inserts: list[tuple[int, int, tuple[int, ...]]] = []
        self.deletes: list[tuple[int, int, tuple[int, ...]]] = []
        self.rows: dict[tuple[int, int], np.ndarray] = {}
        self.base = np.full((p, p), np.nan)  # [x, y]: the row of Y's current parents (Z = {})
        self.base_parents = [-1] * p
        self.score = 0
        for v in range(p):
            self.score = self.score + local(v, ())

    def run(self) -> None:
        while self._step(self._best_insert, self._insert, self.inserts):
            pass
        while self._step(self._best_delete, self._delete, self.deletes):
            pass

    def _step(self, best: Callable, apply: Callable, log: list) -> bool:
        self._neighbourhoods()
        change, op = best()
        if op is None:
            return False
        new = self.score + change
        if new - self.score <= 0:
            return False
        apply(*op)
        log.append(op)
        self.score = new
        self._complete()
        return True

    def _neighbourhoods(self) -> None:
        masks = row_masks(np.concatenate([self.d.T, self.d | self.d.T | self.u]))
        self.pa, self.adj = masks[:self.p], masks[self.p:]

    def _row(self, y: int, parents: int) -> np.ndarray:
        """``row[x] = S(y, parents | {x}) - S(y, parents)`` where computed so far (nan elsewhere)."""
        row = self.rows.get((y, parents))
        if row is None:
            row = self.rows[(y, parents)] = np.full(self.p, np.nan)
        return row

    def _fill(self, y: int, parents: int, row: np.ndarray, xs: np.ndarray) -> None:
        """Compute the entries ``xs`` of ``row`` (never y or a member of ``parents``)."""
        pa = bits(parents)
        row[xs] = self.local.row(y, pa, xs.tolist()) - self.local(y, pa)

    def _best_insert(self) -> tuple[float, tuple | None]:
        p = self.p
        valid0, ys, zs, xs = insert_candidates(self.d, self.u)
        if self.base_parents != self.pa:  # the Z = {} changes of each Y: its row of the current parents
            for y in range(p):
                if self.base_parents[y] != self.pa[y]:
                    self.base[:, y] = self._row(y, self.pa[y])
            self.base_parents = list(self.pa)
        missing = valid0 & np.isnan(self.base)
        for y in np.flatnonzero(missing.any(axis=0)).tolist():
            row = self._row(y, self.pa[y])
            self._fill(y, self.pa[y], row, np.flatnonzero(missing[:, y]))
            self.base[:, y] = row
        z_masks = row_masks(zs)
        keys = [(y, self.pa[y] | z) for y, z in zip(ys.tolist(), z_masks)]
        rows = [self._row(*key) for key in keys]
        values = np.array(rows).reshape(xs.shape)
        unknown = xs & np.isnan(values)
        for c in np.flatnonzero(unknown.any(axis=1)).tolist():
            self._fill(*keys[c], rows[c], np.flatnonzero(unknown[c]))
            values[c] = rows[c]
        best, chosen = best_changes(self.base, valid0, ys, xs, values)
        flat = int(np.argmax(best))
        if not best.flat[flat] > START:
            return START, None
        x, y = divmod(flat, p)
        c = int(chosen[x, y])
        return float(best[x, y]), (x, y, bits(z_masks[c] & ~self.adj[x]) if c >= 0 else ())

    def _best_delete(self) -> tuple[float, tuple | None]:
        best, op = START, None
        xs, ys, hs, ws = delete_candidates(self.d, self.u)
        ops = list(zip(xs.tolist(), ys.tolist(), row_masks(hs), row_masks(ws)))
        keys = [key for x, y, _, w in ops for key in ((y, bits(w)), (y, bits(w | 1 << x)))]
        values = self.local.scores(keys)
        for k, (x, y, h, _) in enumerate(ops):
            change = values[2 * k] - values[2 * k + 1]
            if change > best:
                best, op = change, (x, y, bits(h))
        return best, op

    def _set_directed(self, a: int, b: int) -> None:
        self.u[a, b] = self.u[b, a] = self.d[b, a] = False
        self.d[a, b] = True

    def _insert(self, x: int, y: int, t: tuple[int, ...]) -> None:
        """X -> Y, and every T - Y becomes T -> Y."""
        for v in (x, *t):
            self._set_directed(v, y)

    def _delete(self, x: int, y: int, h: tuple[int, ...]) -> None:
        """Remove the edge X - Y (or X -> Y); every Y - H and X - H becomes Y -> H, X -> H."""
        self.u[x, y] = self.u[y, x] = self.d[x, y] = self.d[y, x] = False
        for v in h:
            self._set_directed(y, v)
            self._set_directed(x, v)

    def matrix(self) -> np.ndarray:
        return np.where(self.d, ARROW, 0) + np.where(self.u, CIRCLE, 0)

    def _complete(self) -> None:
        """Replace the PDAG by its CPDAG: a valid operator leaves a PDAG with a consistent
        extension, whose class is fixed by the skeleton and the PDAG's v-structures."""
        adjacent = self.d | self.d.T | self.u
        self.d = compelled_edges(self.d, adjacent)
        self.u = adjacent & ~self.d & ~self.d.T
