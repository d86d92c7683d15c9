"""Ground truth from factorial experiments: the consistent model (Gentzel et al. 2019, supp. Sec. 2).

Which treatments cause which outcomes is decided on the full factorial data with the
Friedman test, blocked by subject, or another reading of the paper's test (:func:`related_pairs`). The consistent DAG
(:func:`consistent_dag`) has the biasing covariate as the only parent of every treatment
and an edge T -> O for each related pair; fitted to data it estimates every
``P(O | do(T = t))`` consistently when the covariate does not also drive the outcomes
(``covariate_to_outcomes=True`` adds C -> O edges for when it does). The same
distributions are also read off the factorial data directly
(:func:`factorial_interventional`), so the two can be compared. Supplement Sec. 5 alters
the consistent model: :func:`over_specified` and :func:`under_specified`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from causaleval.datasets.factorial import FactorialData, assignment_probabilities
from causaleval.graphs import CausalGraph


def friedman(blocks: np.ndarray) -> tuple[float, float]:
    """Friedman's chi-square test of ``k >= 2`` related samples (rows are blocks).

    Within each block the ``k`` responses are ranked (ties get average ranks); with rank
    sums ``R_j`` over ``n`` blocks, ``Q = (12 / (n k (k+1)) sum_j R_j^2 - 3 n (k+1)) / C``,
    ``C = 1 - sum(t^3 - t) / (n k (k^2 - 1))`` over tie groups ``t``; ``p = P(chi2_{k-1} > Q)``
    (Friedman 1937; the statistic of ``scipy.stats.friedmanchisquare``, which needs k >= 3).
    When every block is one tie, nothing differs: ``Q = 0, p = 1``.
    """
    blocks = np.asarray(blocks, dtype=float)
    if blocks.ndim != 2 or blocks.shape[1] < 2 or blocks.shape[0] < 1:
        raise ValueError(f"need an (n blocks, k >= 2 groups) array, got shape {blocks.shape}")
    if np.isnan(blocks).any():
        raise ValueError("blocks hold missing values; every block needs all k responses")
    n, k = blocks.shape
    ranks = stats.rankdata(blocks, axis=1)
    ordered = np.sort(blocks, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)  # where a tie group begins, within each block
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    counts = np.bincount(np.cumsum(starts.ravel()))[1:].astype(float)
    ties = float((counts**3 - counts).sum())
    correction = 1.0 - ties / (n * k * (k * k - 1))
    if correction <= 0:
        return 0.0, 1.0
    q = (12.0 / (n * k * (k + 1)) * (ranks.sum(axis=0) ** 2).sum() - 3.0 * n * (k + 1)) / correction
    return float(q), float(stats.chi2.sf(q, k - 1))


#: tests of "are T and O causally related" on the factorial data (the supplement's Sec. 2 names "the
#: Friedman test for blocked difference in means, allowing for correction of subject variability"):
#: ``friedman`` blocks by subject (each subject's mean at each level of T, the kit's reading);
#: ``friedman_cells`` blocks by subject and the levels of the other treatments (each cell's mean
#: over trials); ``paired_t`` is a paired t-test of the subjects' means (the blocked difference in
#: means, without ranks)
RELATEDNESS_TESTS = ("friedman", "friedman_cells", "paired_t")


def related_pairs(data: FactorialData, alpha: float = 0.05, test: str = "friedman") -> pd.DataFrame:
    """A test of every (treatment, outcome) pair (:data:`RELATEDNESS_TESTS`), blocked by subject.

    With ``friedman`` each subject's response at treatment level ``l`` is its mean outcome over
    all its finished runs with ``T = l`` (all levels of the other treatments, all trials).
    Returns one row per pair: ``treatment, outcome, statistic, p_value, related``
    (``p_value < alpha``).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if test not in RELATEDNESS_TESTS:
        raise ValueError(f"test={test!r}: expected one of {', '.join(RELATEDNESS_TESTS)}")
    frame = data.ok()
    rows = []
    for t in data.treatments:
        keys = [data.subject] + ([u for u in data.treatments if u != t] if test == "friedman_cells" else [])
        means = frame.groupby([*keys, t])[list(data.outcomes)].mean()
        for o in data.outcomes:
            blocks = means[o].unstack(t).dropna().to_numpy(dtype=float)
            statistic, p = friedman(blocks) if test != "paired_t" else _paired_t(blocks)
            rows.append({"treatment": t, "outcome": o, "statistic": statistic, "p_value": p,
                         "related": p < alpha})
    return pd.DataFrame(rows)


def _paired_t(blocks: np.ndarray) -> tuple[float, float]:
    """Paired t-test of a two-level treatment's block means; no difference at all gives t = 0, p = 1."""
    if blocks.shape[1] != 2:
        raise ValueError(f"the paired t-test needs a two-level treatment, got {blocks.shape[1]} levels")
    diff = blocks[:, 1] - blocks[:, 0]
    if len(diff) < 2 or not diff.any():
        return 0.0, 1.0
    if np.all(diff == diff[0]):  # a constant non-zero difference: no variance, certain
        return float(np.inf), 0.0
    result = stats.ttest_rel(blocks[:, 1], blocks[:, 0])
    return float(result.statistic), float(result.pvalue)


def consistent_dag(data: FactorialData, biasing_covariate: str, related: pd.DataFrame,
                   covariate_to_outcomes: bool = False) -> CausalGraph:
    """C -> every treatment, T -> O for every related pair (and C -> every outcome if asked)."""
    if biasing_covariate not in data.covariates:
        raise ValueError(f"{data.name}: {biasing_covariate!r} is not a covariate ({list(data.covariates)})")
    nodes = [biasing_covariate, *data.treatments, *data.outcomes]
    edges = [(biasing_covariate, t) for t in data.treatments]
    edges += [(r.treatment, r.outcome) for r in related.itertuples() if r.related]
    if covariate_to_outcomes:
        edges += [(biasing_covariate, o) for o in data.outcomes]
    return CausalGraph.from_edge_lists(nodes, directed=edges, name=f"consistent {data.name}")


def factorial_interventional(data: FactorialData, treatment: str, outcome: str, *,
                             card: int | None = None, biasing_covariate: str | None = None,
                             beta: float = 0.0) -> np.ndarray:
    """``P(O = o | do(T = t))`` read off the factorial data, as a table ``[t, o]``.

    Every subject was run under every cell, so the interventional distribution is a
    weighted share of runs: ``P(o | do(t)) = sum_runs w 1[T = t, O = o] / sum_runs w 1[T = t]``.
    The other treatments are distributed as under Algorithm 1 with ``biasing_covariate``
    and ``beta`` (``w`` = the product over the other treatments of the subject's
    assignment probabilities), which is the distribution a model fitted to
    pseudo-observational data estimates; ``beta = 0`` (the default) weighs every cell
    equally. Runs of one subject in one cell (trials) share their cell's weight.
    ``O`` must be integer coded (see ``discretize``).
    """

    frame = data.ok()
    card = card or int(frame[outcome].max()) + 1
    subject_codes, _ = pd.factorize(frame[data.subject], sort=True)
    others = [j for j, t in enumerate(data.treatments) if t != treatment]
    levels = frame[list(data.treatments)].to_numpy(dtype=np.int64)
    if biasing_covariate is None or beta == 0:
        weight = np.ones(len(frame))
    else:
        p = assignment_probabilities(data, biasing_covariate, beta)[subject_codes][:, others]
        weight = np.where(levels[:, others] == 1, p, 1 - p).prod(axis=1)
    runs_in_cell = frame.groupby([data.subject, *data.treatments])[data.subject].transform("size")
    weight = weight / runs_in_cell.to_numpy()
    codes = frame[outcome].to_numpy(dtype=np.int64)
    table = np.zeros((len(data.levels[treatment]), card))
    for i, level in enumerate(data.levels[treatment]):
        at = frame[treatment].to_numpy() == level
        table[i] = np.bincount(codes[at], weights=weight[at], minlength=card)[:card]
    return table / table.sum(axis=1, keepdims=True)


def over_specified(dag: CausalGraph, treatment: str, outcomes: Sequence[str]) -> CausalGraph:
    """``dag`` with an edge ``treatment -> O`` into every outcome O (Gentzel et al. 2019, supp. Sec. 5:
    "one of the treatment variables had a directed edge into every outcome"). Edges already
    there stay; an outcome that is an ancestor of ``treatment`` would close a cycle and raises."""
    dag.require_dag("over-specification")
    t = dag.index(treatment)
    m = dag.matrix.copy()
    for o in outcomes:
        j = dag.index(o)
        if j == t:
            raise ValueError(f"graph {dag.name!r}: {treatment!r} is listed among its own outcomes")
        if m[j, t] != 0:
            raise ValueError(f"graph {dag.name!r}: {o!r} -> {treatment!r} exists, so an edge "
                             f"{treatment!r} -> {o!r} would close a cycle")
        m[t, j] = 1
    altered = CausalGraph(dag.nodes, m, f"{dag.name}, {treatment} over-specified")
    altered.require_dag("over-specification")
    return altered


def under_specified(dag: CausalGraph, treatment: str) -> CausalGraph:
    """``dag`` without any edge out of ``treatment`` (Gentzel et al. 2019, supp. Sec. 5: "one of the
    treatment variables had no outgoing edges"); its incoming edges stay."""
    dag.require_dag("under-specification")
    t = dag.index(treatment)
    m = dag.matrix.copy()
    m[t, :] = np.where(dag.directed_matrix()[t], 0, m[t, :])
    return CausalGraph(dag.nodes, m, f"{dag.name}, {treatment} under-specified")
