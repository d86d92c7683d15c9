"""Greedy Equivalence Search (Chickering 2002), fast, with causal-learn's operators and scores.

D. M. Chickering, "Optimal structure identification with greedy search", Journal of
Machine Learning Research 3:507-554, 2002 (doi:10.1162/153244303321897717). GES searches
over CPDAGs: a forward phase applies the best valid ``Insert(X, Y, T)`` while it raises the
score, then a backward phase the best valid ``Delete(X, Y, H)``; after each operator the
PDAG is extended to a DAG (Dor and Tarsi 1992) and turned back into its CPDAG.

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

Scores (higher is better), each cached by (node, sorted parent tuple) for the whole search:

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

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causaleval.graphs.extensions import consistent_extension
from causaleval.graphs import ARROW, CIRCLE, CausalGraph, to_cpdag

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
        if sigma <= 0:
            sigma = np.finfo(float).eps
        likelihood = -0.5 * self.n * (1 + np.log(sigma))
        penalty = self.lambda_value * (len(pa) + 1) * np.log(self.n)
        return float(likelihood - penalty)


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
        return float(np.linalg.slogdet(self.r[np.ix_(nodes, nodes)])[1]) if nodes else 0.0

    def compute(self, node: int, parents: tuple[int, ...]) -> float:
        n, k = self.n, len(parents)
        a = self.alpha_w - self.p + k + 1
        family, given = self._logdet([node, *parents]), self._logdet(list(parents))
        return (self.constant + math.lgamma((n + a) / 2) - math.lgamma(a / 2) + (a + k) / 2 * math.log(self.t)
                - (n + a) / 2 * (family - given) - given / 2)


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
    missing = [str(c) for c in data.columns if data[c].isna().any()]
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
    not_numeric = [str(c) for c in data.columns
                   if not pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c])]
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


def _subsets(candidates: Sequence[int]):
    """All subsets of the sorted candidates, smallest first (causal-learn's ``Combinatorial``)."""
    for size in range(len(candidates) + 1):
        yield from itertools.combinations(candidates, size)


class _Search:
    """The state of one GES run: a CPDAG as directed (``d[a, b]``: a -> b) and undirected masks."""

    def __init__(self, p: int, local: Callable[[int, tuple[int, ...]], float]):
        self.p = p
        self.local = local
        self.d = np.zeros((p, p), dtype=bool)
        self.u = np.zeros((p, p), dtype=bool)
        self.inserts: list[tuple[int, int, tuple[int, ...]]] = []
        self.deletes: list[tuple[int, int, tuple[int, ...]]] = []
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
        d, u = self.d, self.u
        self.nbrs = [set(np.flatnonzero(u[v]).tolist()) for v in range(self.p)]
        self.pa = [set(np.flatnonzero(d[:, v]).tolist()) for v in range(self.p)]
        children = [set(np.flatnonzero(d[v]).tolist()) for v in range(self.p)]
        self.adj = [self.nbrs[v] | self.pa[v] | children[v] for v in range(self.p)]
        self.semi = [children[v] | self.nbrs[v] for v in range(self.p)]  # semi-directed successors
        self.reach = [self._reachable(v, set()) for v in range(self.p)]

    def _clique(self, nodes: set[int]) -> bool:
        return all(b in self.adj[a] for a, b in itertools.combinations(nodes, 2))

    def _reachable(self, start: int, blockers: set[int]) -> set[int]:
        """``start`` and the nodes a semi-directed path from it reaches with no node of
        ``blockers`` before its end."""
        seen, stack = {start}, [start]
        while stack:
            for w in self.semi[stack.pop()]:
                if w not in seen:
                    seen.add(w)
                    if w not in blockers:
                        stack.append(w)
        return seen

    def _blocked(self, start: int, target: int, blockers: set[int]) -> bool:
        """Every semi-directed path from ``start`` to ``target`` passes through ``blockers``."""
        return target not in self.reach[start] or target not in self._reachable(start, blockers)

    def _scores(self, y: int, without_x: set[int], x: int) -> tuple[float, float]:
        """Local scores of y with parents ``without_x | {x}`` and ``without_x``."""
        return self.local(y, tuple(sorted(without_x | {x}))), self.local(y, tuple(sorted(without_x)))

    def _best_insert(self) -> tuple[float, tuple | None]:
        best, op = START, None
        for x in range(self.p):
            for y in range(self.p):
                if x == y or y in self.adj[x]:
                    continue
                na = self.nbrs[y] & self.adj[x]
                for t in _subsets(sorted(self.nbrs[y] - self.adj[x])):
                    nat = na | set(t)
                    if not self._clique(nat) or not self._blocked(y, x, nat):
                        continue
                    with_x, without_x = self._scores(y, nat | self.pa[y], x)
                    change = with_x - without_x
                    if change > best:
                        best, op = change, (x, y, t)
        return best, op

    def _best_delete(self) -> tuple[float, tuple | None]:
        best, op = START, None
        for x in range(self.p):
            for y in range(self.p):
                if not (y in self.nbrs[x] or x in self.pa[y]):
                    continue
                na = self.nbrs[y] & self.adj[x]
                for h in _subsets(sorted(na)):
                    rest = na - set(h)
                    if not self._clique(rest):
                        continue
                    with_x, without_x = self._scores(y, (rest | self.pa[y]) - {x}, x)
                    change = without_x - with_x
                    if change > best:
                        best, op = change, (x, y, h)
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
        """Replace the PDAG by the CPDAG of its consistent extension."""
        nodes = tuple(str(v) for v in range(self.p))
        dag = consistent_extension(CausalGraph(nodes, self.matrix(), "GES step"), fallback=False)
        cpdag = to_cpdag(dag)
        self.d = cpdag.directed_matrix().astype(bool)
        self.u = cpdag.undirected_matrix().astype(bool)
