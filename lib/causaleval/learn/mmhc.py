"""Max-Min Hill-Climbing (Tsamardinos, Brown, Aliferis 2006), fast on discrete data.

MMHC learns a skeleton with Max-Min Parents and Children (MMPC) and then hill-climbs
over DAGs restricted to it. pgmpy's ``MmhcEstimator`` does the same but adds every
variable in MMPC's forward phase (it never compares with the significance level there)
and tests every subset of them with a pandas group-by per test, so it is exponential in
the number of variables. Here:

* the conditional independence test counts a (stratum, x, y) table with one
  ``numpy.bincount`` and computes the statistic for all strata at once;
* the forward phase keeps, for each candidate, its minimum association over subsets of
  the current candidate set and updates it only with the subsets that contain the newly
  added variable (Tsamardinos et al. 2006, Sec. 3.1);
* the search is pgmpy's ``HillClimbSearch`` with BDeu (equivalent sample size 10) and a
  tabu list of 10, as in ``MmhcEstimator``, forbidden every edge outside the skeleton; the
  score is pgmpy's ``BDeu`` with its counts taken by ``numpy.bincount`` instead of a pandas
  group-by (:class:`CountedBDeu`, the same score bit for bit);
* ``log p`` is ``scipy.stats.chi2.logsf`` computed by its own special functions
  (:func:`chi2_logsf`, the same bits without its per-call argument handling).

The tests match pgmpy's ``chi_square`` (Pearson, the default) exactly: within each stratum
of the conditioning set, only the levels of X and Y seen there count, the stratum's
degrees of freedom are ``(r_x - 1)(r_y - 1)``, and a 2 x 2 stratum gets Yates' continuity
correction (``scipy.stats.chi2_contingency``'s default). ``g_test`` is the likelihood-
ratio version (no continuity correction). Association is ``-log p`` (from
``chi2.logsf``, so strong dependences do not all tie at p = 0); a pair counts as
independent when ``p >= alpha``. A test with zero degrees of freedom (X or Y constant
in every stratum, as when Z determines X) carries no information: it neither separates
nor lowers an association (pgmpy gets a NaN p-value there, which separates nothing).
"""

from __future__ import annotations

import itertools
import warnings
from math import lgamma
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special

from causaleval.graphs import CausalGraph

if TYPE_CHECKING:
    from pgmpy.structure_score import BaseStructureScore, BDeu

TESTS = ("chi_square", "g_test")


#: the most states a variable may take: a test counts a (stratum, x, y) table of up to
#: n * MAX_STATES**2 cells
MAX_STATES = 256


def state_codes(data: pd.DataFrame) -> np.ndarray:
    """The boundary of the tests: ``data``'s non-negative integer codes, re-coded densely per
    column (the sorted distinct codes become 0..r-1; already dense codes are unchanged, and
    since only the levels seen count, gaps never changed a test), as an ``int64`` matrix.

    Refuses a negative code and a column of more than :data:`MAX_STATES` states, naming the
    column (a code of 1e9 would otherwise size every table by it)."""
    codes = data.to_numpy(dtype=np.int64)
    if len(codes) == 0:
        raise ValueError(f"mmhc data: found 0 rows of columns {list(map(str, data.columns))}; expected at least one")
    for j, name in enumerate(data.columns):
        column = codes[:, j]
        if column.min() < 0:
            raise ValueError(f"mmhc data: column {str(name)!r} holds the negative code {int(column.min())}; "
                             "expected state codes 0, 1, ...")
        levels, dense = np.unique(column, return_inverse=True)
        if len(levels) > MAX_STATES:
            raise ValueError(f"mmhc data: column {str(name)!r} takes {len(levels)} distinct states; expected at "
                             f"most {MAX_STATES} (a discrete variable, not a continuous one)")
        codes[:, j] = dense.reshape(-1)
    return codes


class DiscreteData:
    """Integer codes (columns 0..k-1 of an ``int64`` matrix, :func:`state_codes`) with each
    variable's cardinality."""

    def __init__(self, data: pd.DataFrame):
        self.names = [str(c) for c in data.columns]
        self.codes = state_codes(data)
        self.cards = self.codes.max(axis=0) + 1

    def configurations(self, columns: tuple[int, ...]) -> np.ndarray:
        """Each row's configuration of ``columns``, numbered 0, 1, ... over the configurations
        seen, in lexicographic order (``numpy.unique``'s inverse of their mixed-radix index, by
        one ``numpy.bincount`` where the radix product is small)."""
        index = np.ravel_multi_index(self.codes[:, list(columns)].T, self.cards[list(columns)])
        size = int(np.prod(self.cards[list(columns)], dtype=float))
        if size > 4 * len(index) + 1024:
            return np.unique(index, return_inverse=True)[1].reshape(-1)
        return (np.cumsum(np.bincount(index, minlength=size) > 0) - 1)[index]

    def ci_test(self, x: int, y: int, zs: tuple[int, ...], test: str = "chi_square") -> tuple[float, int, float]:
        """``(statistic, dof, log p)`` of X independent of Y given Z (see the module notes)."""
        cx, cy = int(self.cards[x]), int(self.cards[y])
        if zs:
            stratum = self.configurations(zs)
        else:
            stratum = np.zeros(len(self.codes), dtype=np.int64)
        n_strata = int(stratum.max()) + 1
        flat = (stratum * cx + self.codes[:, x]) * cy + self.codes[:, y]
        table = np.bincount(flat, minlength=n_strata * cx * cy).reshape(n_strata, cx, cy).astype(float)
        return _stratified_statistic(table, test)


def _stratified_statistic(table: np.ndarray, test: str) -> tuple[float, int, float]:
    rows, cols = table.sum(axis=2), table.sum(axis=1)
    total = rows.sum(axis=1)
    r = (rows > 0).sum(axis=1)
    c = (cols > 0).sum(axis=1)
    dof_stratum = (r - 1) * (c - 1)
    expected = rows[:, :, None] * cols[:, None, :] / np.maximum(total, 1)[:, None, None]
    seen = expected > 0
    if test == "chi_square":
        observed = table
        yates = (dof_stratum == 1)[:, None, None]
        if yates.any():
            diff = expected - table
            observed = np.where(yates, table + np.sign(diff) * np.minimum(0.5, np.abs(diff)), table)
        terms = np.where(seen, (observed - expected) ** 2 / np.where(seen, expected, 1), 0.0)
    elif test == "g_test":
        ratio = np.where((table > 0) & seen, table / np.where(seen, expected, 1), 1.0)
        terms = 2.0 * table * np.log(ratio)
    else:
        raise ValueError(f"unknown test {test!r}; expected one of {TESTS}")
    active = dof_stratum > 0
    statistic = float(terms[active].sum())
    dof = int(dof_stratum[active].sum())
    if dof == 0:
        return 0.0, 0, float("nan")
    return statistic, dof, chi2_logsf(statistic, dof)


def chi2_logsf(statistic: float, dof: int) -> float:
    """``scipy.stats.chi2.logsf(statistic, dof)`` bit for bit, as scipy computes it for
    ``dof >= 1``: 0 at ``statistic <= 0``; above the median ``2 gammaincinv(dof / 2, 1 / 2)``
    ``log(chdtrc(dof, statistic))``, else ``log1p(-chdtr(dof, statistic))`` (scipy's
    ``rv_continuous._logsf``); ``-inf`` at infinity. Called directly, it skips scipy's
    argument handling, which took a quarter of an MMHC run."""
    if np.isnan(statistic):
        return float("nan")
    if statistic <= 0:
        return 0.0
    if np.isinf(statistic):
        return float("-inf")
    x = np.array([statistic])
    with np.errstate(divide="ignore"):
        if statistic > 2 * special.gammaincinv(dof / 2, 0.5):
            return float(np.log(special.chdtrc(dof, x))[0])
        return float(np.log1p(-special.chdtr(dof, x))[0])


def mmpc_skeleton(data: DiscreteData, alpha: float = 0.01, test: str = "chi_square",
                  max_cond: int | None = None) -> np.ndarray:
    """Symmetric boolean adjacency: X - T when X is in MMPC(T) and T in MMPC(X).

    ``max_cond`` bounds the size of conditioning sets (None: all subsets, as the paper).
    """
    k = len(data.names)
    log_alpha = np.log(alpha)
    pc = [_mmpc(data, t, log_alpha, test, max_cond) for t in range(k)]
    adjacency = np.zeros((k, k), dtype=bool)
    for t in range(k):
        for x in pc[t]:
            if t in pc[x]:
                adjacency[t, x] = adjacency[x, t] = True
    return adjacency


def _mmpc(data: DiscreteData, target: int, log_alpha: float, test: str, max_cond: int | None) -> list[int]:
    def assoc(x: int, zs: tuple[int, ...]) -> float:
        _, dof, log_p = data.ci_test(x, target, zs, test)
        if dof == 0:  # no stratum varies in both: the test says nothing (deterministic nodes)
            return np.inf
        return 0.0 if log_p >= log_alpha else -log_p

    def subsets(items: list[int]):
        top = len(items) if max_cond is None else min(max_cond, len(items))
        for size in range(top + 1):
            yield from itertools.combinations(items, size)

    candidates = [x for x in range(len(data.names)) if x != target]
    min_assoc = {x: assoc(x, ()) for x in candidates}
    cpc: list[int] = []
    while True:  # forward: add the candidate with the largest minimum association
        live = [x for x in candidates if x not in cpc and min_assoc[x] > 0]
        if not live:
            break
        best = min(live, key=lambda x: (-min_assoc[x], x))
        cpc.append(best)
        for x in live:
            if x == best:
                continue
            for zs in subsets(cpc[:-1]):
                if max_cond is not None and len(zs) + 1 > max_cond:
                    continue
                min_assoc[x] = min(min_assoc[x], assoc(x, tuple(sorted((*zs, best)))))
                if min_assoc[x] == 0:
                    break
    for x in list(cpc):  # backward: drop what some subset of the others separates
        others = [z for z in cpc if z != x]
        if any(assoc(x, zs) == 0 for zs in subsets(others)):
            cpc.remove(x)
    return cpc


def counted_bdeu(data: DiscreteData, frame: pd.DataFrame, ess: float) -> BDeu:
    """pgmpy's ``BDeu(frame, equivalent_sample_size=ess)`` (see :class:`CountedBDeu`)."""
    from pgmpy.structure_score import BDeu

    class CountedBDeu(BDeu):
        """pgmpy's BDeu (Heckerman, Geiger and Chickering 1995) on ``frame``, whose columns are
        ``0..k-1`` and whose codes ``data`` holds densely re-coded, with the counts
        ``N_ijk`` of each child state ``k`` and observed parent configuration ``j`` taken by one
        ``numpy.bincount``:

            BDeu(X_i, Pa_i) = sum_j [lgamma(a / q_i) - lgamma(N_ij + a / q_i)]
                              + sum_jk [lgamma(N_ijk + a / (q_i r_i)) - lgamma(a / (q_i r_i))]

        with ``a`` the equivalent sample size, ``q_i`` the parent configurations and ``r_i``
        the child's states. The terms are pgmpy's ``BDeu._local_score``, in its order and on a
        table of the layout pandas 2.3's ``groupby(...).size().unstack(parents)`` gives it:
        the observed configurations in the order they first appear among the (child state,
        configuration) pairs sorted lexicographically (those seen with the child's first state,
        then those first seen with its second, ...); column-major where every cell is seen,
        row-major where pandas filled an unseen one with 0. So each score is pgmpy's bit for
        bit, and the search takes the same steps (tests/test_mmhc.py compares both)."""

        def _local_score(self, variable: int, parents: tuple[int, ...]) -> float:
            r = int(data.cards[variable])
            child = data.codes[:, variable]
            if parents:
                configuration = data.configurations(parents)
                observed = int(configuration.max()) + 1
                counts = np.bincount(child * observed + configuration, minlength=r * observed).reshape(r, observed)
                if len(parents) > 1:  # pandas unstacks several levels in order of first appearance
                    counts = counts[:, np.argsort(np.argmax(counts > 0, axis=0), kind="stable")]
                counts = np.ascontiguousarray(counts, dtype=float) if (counts == 0).any() else np.asfortranarray(counts)
            else:
                counts = np.bincount(child, minlength=r).reshape(r, 1)
            num_parents_states = np.prod([int(data.cards[p]) for p in parents])
            counts_size = num_parents_states * r
            log_gamma_counts = np.zeros_like(counts, dtype=float)
            alpha = self.equivalent_sample_size / num_parents_states
            beta = self.equivalent_sample_size / counts_size
            special.gammaln(counts + beta, out=log_gamma_counts)
            log_gamma_conds = np.sum(counts, axis=0, dtype=float)
            special.gammaln(log_gamma_conds + alpha, out=log_gamma_conds)
            gamma_counts_adj = (num_parents_states - counts.shape[1]) * r * special.gammaln(beta)
            gamma_conds_adj = (num_parents_states - counts.shape[1]) * special.gammaln(alpha)
            return ((np.sum(log_gamma_counts) + gamma_counts_adj) - (np.sum(log_gamma_conds) + gamma_conds_adj)
                    + num_parents_states * lgamma(alpha) - counts_size * lgamma(beta))

    return CountedBDeu(frame, equivalent_sample_size=ess)


def climb(frame: pd.DataFrame, skeleton: np.ndarray, score: BaseStructureScore,
          tabu_length: int = 10) -> list[tuple[int, int]]:
    """pgmpy's ``HillClimbSearch`` on ``frame`` (columns ``0..k-1``) scored by ``score``, with
    a tabu list of ``tabu_length`` and every edge outside the symmetric ``skeleton``
    forbidden -> the DAG's edges ``(parent, child)``, sorted."""
    from pgmpy.causal_discovery import ExpertKnowledge, HillClimbSearch

    k = frame.shape[1]
    forbidden = [(i, j) for i in range(k) for j in range(k) if i != j and not skeleton[i, j]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = HillClimbSearch(
            scoring_method=score, tabu_length=tabu_length,
            expert_knowledge=ExpertKnowledge(forbidden_edges=forbidden), return_type="dag",
            show_progress=False)
        search.fit(frame)
    return sorted((int(u), int(v)) for u, v in search.causal_graph_.edges())


def mmhc(data: pd.DataFrame, alpha: float = 0.01, test: str = "chi_square", ess: float = 10.0,
         tabu_length: int = 10, max_cond: int | None = None) -> CausalGraph:
    """MMPC skeleton, then pgmpy's hill climbing with BDeu restricted to it -> a DAG."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {TESTS}")
    discrete = DiscreteData(data)
    skeleton = mmpc_skeleton(discrete, alpha, test, max_cond)
    frame = data.set_axis(range(len(discrete.names)), axis=1)  # integer labels: hash-seed independent ties
    edges = climb(frame, skeleton, counted_bdeu(discrete, frame, ess), tabu_length)
    return CausalGraph.from_edge_lists(discrete.names, [(discrete.names[u], discrete.names[v]) for u, v in edges],
                                       name="mmhc")
