"""Structural metrics of a learned graph against a ground truth (Rehak et al. (2024), Secs. 2.2 and 3).

Every function takes ``truth`` first, then ``learned`` (as gadjid does); either may be
a :class:`CausalGraph`, a list of them or a :class:`GraphBatch`. Graphs are aligned by
node name (mismatched node sets raise a ValueError) and a batch is scored in one
vectorized numpy pass. A single learned graph gives a float, a batch a 1-D array.

Counting. Rehak et al. (2024) treats each ordered pair (i, j), i != j, as one "edge"
``e_ij`` of the {-1, 0, 1} matrix, so TP + FP + FN + TN = N(N-1) (Table 3 remark):

* ``counting="directed"`` (the paper's starred columns): an entry is positive iff it
  is 1 (an arrowhead); -1 entries (undirected / circle ends) count as absent.
* ``counting="undirected"`` (undirected-aware): an entry is positive iff it is
  nonzero, so an undirected edge ``a - b`` claims both ``a -> b`` and ``b -> a``.

Undefined ratios: precision and F1 with a zero denominator are 0 (scikit-learn's
``zero_division=0``); TPR, FPR and the AUCs are NaN when the truth has no positive or
no negative entries.

Inputs are checked in one place, :func:`causaleval.metrics._checks.graph_pair`: graphs
with fewer than two nodes have no ordered pair to score and are refused by every metric
here (none of them is defined there); metrics defined on a graph class only (SHD for
DAGs, SHD for CPDAGs, SID) refuse other classes, naming the graph and its offending edge
or directed cycle. A batch's classes are computed once and cached on the batch.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from causaleval.graphs import CausalGraph, GraphBatch, GraphClass, GraphError, GraphLike, to_cpdag
from causaleval.metrics._checks import ANY_GRAPH, CPDAGS, DAGS, graph_pair, require_class, scored_nodes

COUNTINGS = ("directed", "undirected")


class KOutsideRecommendedRange(UserWarning):
    """nCED's k is valid in [0, 1] but Rehak et al. (2024, Sec. 3.3) recommends 0 < k < 0.5."""


class Confusion(NamedTuple):
    """Counts over the N(N-1) ordered pairs; each field is an array (one per learned graph)."""

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray


def _pair(truth: GraphLike, learned: GraphLike, metric: str = "structural metric",
          accepts: frozenset[GraphClass] = ANY_GRAPH) -> tuple[np.ndarray, np.ndarray, bool]:
    """(truth matrices, learned matrices, single) aligned to the truth's node order, checked
    by :func:`~causaleval.metrics._checks.graph_pair` for ``metric``.

    The truth is one graph (broadcast over the batch) or a batch of the same length.
    """
    t, lb, single = graph_pair(metric, truth, learned, accepts)
    return t.matrices, lb.matrices, single


def _out(values: np.ndarray, single: bool) -> float | np.ndarray:
    return float(values[0]) if single else values


def _ratio(num: np.ndarray, den: np.ndarray, zero: float) -> np.ndarray:
    num, den = np.asarray(num, float), np.asarray(den, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), zero)


def _confusion(t: np.ndarray, m: np.ndarray, counting: str) -> Confusion:
    if counting == "directed":
        pt, pl = t == 1, m == 1
    elif counting == "undirected":
        pt, pl = t != 0, m != 0
    else:
        raise ValueError(f"counting must be one of {COUNTINGS}, got {counting!r}")
    n = m.shape[-1]
    pt = np.broadcast_to(pt, pl.shape)
    tp = np.count_nonzero(pt & pl, axis=(1, 2))
    fp = np.count_nonzero(~pt & pl, axis=(1, 2))
    fn = np.count_nonzero(pt & ~pl, axis=(1, 2))
    tn = n * (n - 1) - tp - fp - fn  # the diagonal is never positive
    return Confusion(tp, fp, fn, tn)


def confusion(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> Confusion:
    """TP, FP, FN, TN over ordered pairs (Rehak et al. 2024, Sec. 2.2), arrays over the batch."""
    t, m, _ = _pair(truth, learned, "confusion")
    return _confusion(t, m, counting)


def tpr(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """True positive rate (= recall), eq. (2): TPR = TP / (TP + FN)."""
    t, m, single = _pair(truth, learned, "tpr")
    c = _confusion(t, m, counting)
    return _out(_ratio(c.tp, c.tp + c.fn, np.nan), single)


recall = tpr


def fpr(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """False positive rate, eq. (3): FPR = FP / (FP + TN)."""
    t, m, single = _pair(truth, learned, "fpr")
    c = _confusion(t, m, counting)
    return _out(_ratio(c.fp, c.fp + c.tn, np.nan), single)


def precision(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """Precision = TP / (TP + FP); 0 when the learned graph claims no edge."""
    t, m, single = _pair(truth, learned, "precision")
    c = _confusion(t, m, counting)
    return _out(_ratio(c.tp, c.tp + c.fp, 0.0), single)


def f1(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """F1 score, eq. (1): F1 = 2 TP / (2 TP + FP + FN)."""
    t, m, single = _pair(truth, learned, "f1")
    c = _confusion(t, m, counting)
    return _out(_ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, 0.0), single)


def roc_auc(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """ROC AUC through the empty graph (0, 0), the learned graph (FPR, TPR) and the
    complete graph (1, 1) (Rehak et al. 2024, Sec. 2.2), by the trapezoid rule:

        ROC AUC = (1 + TPR - FPR) / 2.

    Equal to scikit-learn's ``roc_auc_score`` on the flattened entries with the
    learned 0/1 entries as scores.
    """
    t, m, single = _pair(truth, learned, "roc_auc")
    c = _confusion(t, m, counting)
    r, f = _ratio(c.tp, c.tp + c.fn, np.nan), _ratio(c.fp, c.fp + c.tn, np.nan)
    return _out((1 + r - f) / 2, single)


def prc_auc(truth: GraphLike, learned: GraphLike, counting: str = "directed") -> float | np.ndarray:
    """Precision-recall AUC through the empty, the learned and the complete graph
    (Rehak et al. 2024, Sec. 2.2), with the step-wise (average precision) rule:

        PRC AUC = R * P + (1 - R) * pi,   pi = (TP + FN) / N(N-1),

    where R, P are the learned graph's recall and precision and pi is the precision of
    the complete graph. This equals scikit-learn's ``average_precision_score`` on the
    flattened entries with the learned 0/1 entries as scores. Computed from the paper's own
    TPR and F1 columns it comes close to its Table 2 PRC AUC values, within rounding in 2 of
    6 rows (notebook 01 checks the paper against itself).
    """
    t, m, single = _pair(truth, learned, "prc_auc")
    c = _confusion(t, m, counting)
    total = c.tp + c.fp + c.fn + c.tn
    r = _ratio(c.tp, c.tp + c.fn, np.nan)
    p = _ratio(c.tp, c.tp + c.fp, 0.0)
    prevalence = _ratio(c.tp + c.fn, total, np.nan)
    auc = r * p + (1 - r) * prevalence
    return _out(np.where(prevalence > 0, auc, np.nan), single)


def shd_dag(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """Structural Hamming distance for DAGs, eq. (4): SHD = FN + FP (directed counting).

    Over ordered pairs, so a reversed edge costs 2 (one FN, one FP), as in cdt's
    ``SHD(double_for_anticausal=True)``; gadjid's ``shd`` counts it once. Both graphs must
    be DAGs: undirected, bidirected or circle-marked edges and directed cycles are refused
    (use :func:`shd_cpdag`, :func:`shd_pairs` or :func:`nced`). The check runs once per
    batch (its classes are cached), so repeated scoring of a batch stays one pass.
    """
    t, m, single = _pair(truth, learned, "shd_dag", DAGS)
    return _out(_count_differences(t, m).astype(float), single)


_HIGH = np.uint64(0x8080808080808080)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


def _words(t: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Both (B, N, N) int8 stacks as (B, N*N/8) uint64 words, or None when N*N is not a
    multiple of 8 (the callers then count entry by entry)."""
    b = len(m)
    try:
        x = np.ascontiguousarray(np.broadcast_to(t, m.shape)).reshape(b, -1).view(np.uint64)
        return x, np.ascontiguousarray(m).reshape(b, -1).view(np.uint64)
    except ValueError:
        return None


def _popcount(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words).sum(axis=1, dtype=np.int64)


def _by_chunks(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``fn`` over slices of about 2^16 words, so its temporaries stay in the CPU cache."""
    step = max(1, (1 << 16) // x.shape[1])
    return np.concatenate([fn(x[i:i + step], y[i:i + step]) for i in range(0, len(x), step)])


def _differ_words(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    z = x ^ y
    return _popcount((((z & _LOW7) + _LOW7) | z) & _HIGH)


def _soft_words(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return _popcount(y & ~x & _HIGH)


def _count_differences(t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per graph, the entries where the two {-1, 0, 1} matrices differ, eight at a time:
    the xor of two words has a nonzero byte exactly where the entries differ, and
    ``((x & 0x7f..) + 0x7f..) | x`` sets each such byte's high bit (SWAR)."""
    words = _words(t, m)
    if words is None:
        return np.count_nonzero(np.broadcast_to(t, m.shape) != m, axis=(1, 2))
    return _by_chunks(_differ_words, *words)


def _count_soft(t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per graph, the entries that are -1 in ``m`` but not in ``t`` (the sign bit of an
    int8 entry is set only for -1)."""
    words = _words(t, m)
    if words is None:
        return np.count_nonzero((m < 0) & ~(np.broadcast_to(t, m.shape) < 0), axis=(1, 2))
    return _by_chunks(_soft_words, *words)


def shd_cpdag(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """SHD between CPDAGs, eq. (5): undirected FN + undirected FP + FN + FP.

    A DAG is first turned into its CPDAG (:func:`causaleval.graphs.to_cpdag`); a graph
    with directed and undirected edges only (e.g. PC's output) is taken as the CPDAG it
    is. Our reading of eq. (5), entry by entry over ordered pairs: FN/FP count the
    entries that are 1 in one CPDAG and not in the other, undirected FN/FP the entries
    that are -1 in one and not in the other. So a missing directed edge costs 1, a
    missing undirected edge 2, a reversed edge 2, and ``a -> b`` for ``a - b`` costs 3.
    PAGs and MAGs have no CPDAG, and a graph with a directed cycle is neither a DAG nor a
    CPDAG: both are refused with a :class:`~causaleval.graphs.GraphError`.
    """
    tb, lb, single = graph_pair("shd_cpdag", truth, learned, CPDAGS)
    t, m = _cpdags(tb, "truth"), _cpdags(lb, "learned")
    directed = np.count_nonzero((t == 1) != (m == 1), axis=(1, 2))
    undirected = np.count_nonzero((t == -1) != (m == -1), axis=(1, 2))
    return _out((directed + undirected).astype(float), single)


def _check_k(k: float) -> float:
    if isinstance(k, bool) or not isinstance(k, (int, float, np.integer, np.floating)):
        raise TypeError(f"k must be a number in [0, 1] (the weight of a reversed or undirected end, Rehak et al. "
                        f"2024, Sec. 3.3), got {k!r} of type {type(k).__name__}")
    k = float(k)
    if not 0.0 <= k <= 1.0:
        raise ValueError(f"k must lie in [0, 1] for nCED to stay normalized (Rehak et al. 2024, Sec. 3.3), got {k}")
    if not 0.0 < k < 0.5:
        warnings.warn(
            f"k={k} lies outside 0 < k < 0.5, the range Rehak et al. (2024, Sec. 3.3) recommends "
            "so that an undirected graph scores better than the empty graph",
            KOutsideRecommendedRange,
            stacklevel=3,
        )
    return k


def ced(truth: GraphLike, learned: GraphLike, k: float = 0.2) -> float | np.ndarray:
    """Causal edit distance, eqs. (6)-(7): CED = sum over i != j of f(e_ij, e*_ij) with

        f = 0 if e_ij = e*_ij;  k if e_ij != e*_ij and e_ij = -1;  1 otherwise,

    where e is the learned graph's entry and e* the truth's.
    """
    k = _check_k(k)
    t, m, single = _pair(truth, learned, "ced")
    return _out(_ced(t, m, k), single)


def nced(truth: GraphLike, learned: GraphLike, k: float = 0.2) -> float | np.ndarray:
    """Normalized causal edit distance, eq. (8): nCED = CED / (N (N - 1)), in [0, 1]
    (N >= 2 is checked, so the denominator is positive)."""
    k = _check_k(k)
    t, m, single = _pair(truth, learned, "nced")
    n = m.shape[-1]
    return _out(_ced(t, m, k) / (n * (n - 1)), single)


def _ced(t: np.ndarray, m: np.ndarray, k: float) -> np.ndarray:
    soft = _count_soft(t, m)  # learned -1 where the truth differs: cost k each
    return k * soft + (_count_differences(t, m) - soft)


def sid(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """Structural intervention distance (Peters and Buehlmann 2015) through gadjid.

    Counts the ordered pairs (i, j) whose interventional distribution P(j | do(i)) the
    learned DAG would get wrong by adjusting for its parents of i. Both graphs must be
    DAGs with at least two nodes: gadjid's ``sid`` accepts nothing else and panics (a
    ``BaseException``) on other input, so both are checked first.
    """
    tb, lb, single = graph_pair("sid", truth, learned, DAGS)
    t = np.broadcast_to(tb.matrices, lb.matrices.shape)
    out = [_gadjid_sid(t[b], lb.matrices[b]) for b in range(len(lb))]
    return _out(np.asarray(out, dtype=float), single)


def _gadjid_sid(truth: np.ndarray, learned: np.ndarray) -> int:
    """gadjid's SID of two checked DAG mark matrices (its input: int8, 1 for ``i -> j``).
    A Rust panic, should one still happen, becomes a RuntimeError (``except Exception``
    would miss it)."""
    import gadjid

    t, g = (np.ascontiguousarray(x == 1, dtype=np.int8) for x in (truth, learned))
    try:
        return gadjid.sid(t, g, edge_direction="from row to column")[1]
    except BaseException as err:
        if type(err).__name__ != "PanicException":
            raise
        raise RuntimeError(f"gadjid's sid panicked on two checked DAGs ({err}); please report it") from None


def _cpdags(batch: GraphBatch, role: str = "input") -> np.ndarray:
    """The CPDAG matrix of every graph in the batch (a DAG's CPDAG, a CPDAG/PDAG as it is),
    converting each distinct graph once; other classes are refused (:func:`require_class`)."""
    require_class(batch, CPDAGS, role, "SHD between CPDAGs")
    n = len(batch.nodes)
    uniq, first, inverse = np.unique(batch.matrices.reshape(len(batch), -1), axis=0,
                                     return_index=True, return_inverse=True)
    converted = np.stack([to_cpdag(CausalGraph(batch.nodes, u.reshape(n, n), batch.names[f])).matrix
                          if batch.classes[f] == GraphClass.DAG else u.reshape(n, n)
                          for u, f in zip(uniq, first)])
    return converted[inverse.ravel()]


# ---------------------------------------------------------------- Cheng et al. 2022 survey (Sec. III.A)
def shd_pairs(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """SHD as edit count, eq. (13) of Cheng et al. (2022): ``SHD = A + D + I`` (edges added, deleted,
    wrongly oriented), one per unordered node pair whose edge differs in presence, direction
    or kind; a reversed edge costs 1 (gadjid's ``shd``, Tsamardinos et al. 2006). The graphs
    are compared as given; pass CPDAGs to compare equivalence classes."""
    t, m, single = _pair(truth, learned, "shd_pairs")
    return _out(_pairs_differing(t, m), single)


def _pairs_differing(t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per learned graph, the unordered node pairs whose two marks differ from the truth's."""
    t = np.broadcast_to(t, m.shape)
    differs = (t != m) | (np.swapaxes(t, 1, 2) != np.swapaxes(m, 1, 2))
    return np.triu(differs, k=1).sum(axis=(1, 2)).astype(float)


def _adjacency(m: np.ndarray) -> np.ndarray:
    """``B[i, j] = 1`` when the graph has a mark at j on an edge between i and j
    (``i -> j``, ``i - j``, ``i <-> j``): the adjacency matrix of a DAG, symmetric for undirected edges."""
    return (m != 0).astype(float)


def frobenius(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """Eq. (14) of Cheng et al. (2022): ``sqrt(trace((B_true - B_hat)^T (B_true - B_hat)))`` over adjacency matrices."""
    t, m, single = _pair(truth, learned, "frobenius")
    d = _adjacency(m) - _adjacency(t)
    return _out(np.sqrt((d**2).sum(axis=(1, 2))), single)


def adjacency_mse(truth: GraphLike, learned: GraphLike, per: str = "entries") -> float | np.ndarray:
    """Eq. (18) of Cheng et al. (2022): ``(1/|T|) sum (T - A)^2`` over the adjacency matrices. ``per="entries"``
    divides by the N^2 entries (the formula's ``|T|``, scikit-learn's ``mean_squared_error``);
    ``per="nodes"`` by N, as the survey's text says ("divided by the total number of nodes")."""
    if per not in ("entries", "nodes"):
        raise ValueError(f"per must be 'entries' or 'nodes', got {per!r}")
    t, m, single = _pair(truth, learned, "adjacency_mse")
    n = m.shape[-1]
    total = ((_adjacency(m) - _adjacency(t)) ** 2).sum(axis=(1, 2))
    return _out(total / (n * n if per == "entries" else n), single)


def _edge_scores(truth: CausalGraph, scores: Any, counting: str) -> tuple[np.ndarray, np.ndarray]:
    """(0/1 truth, scores) over the N(N-1) ordered pairs, scores aligned to the truth's nodes."""
    import pandas as pd

    if not isinstance(truth, CausalGraph):
        raise GraphError(f"edge scores: the truth must be a CausalGraph, got a {type(truth).__name__}")
    scored_nodes("edge score AUC", truth.nodes, truth.name)
    if isinstance(scores, pd.DataFrame):
        missing = sorted(set(truth.nodes) - set(scores.index) | set(truth.nodes) - set(scores.columns))
        if missing:
            raise ValueError(f"edge scores: no rows or columns for nodes {missing} of graph {truth.name!r}")
        scores = scores.loc[list(truth.nodes), list(truth.nodes)].to_numpy(float)
    if isinstance(scores, (dict, str, bytes)) or not hasattr(scores, "__len__"):
        raise ValueError(f"edge scores for graph {truth.name!r}: got a {type(scores).__name__}; expected a "
                         f"{truth.n}x{truth.n} matrix (an array in the graph's node order, or a DataFrame "
                         "labelled by the nodes)")
    try:
        s = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"edge scores for graph {truth.name!r}: not a matrix of numbers ({err})") from None
    if s.shape != (truth.n, truth.n):
        raise ValueError(f"edge scores of shape {s.shape} for graph {truth.name!r} with {truth.n} nodes")
    if not np.isfinite(s).all():
        raise ValueError("edge scores hold missing or infinite values")
    if counting not in COUNTINGS:
        raise ValueError(f"counting must be one of {COUNTINGS}, got {counting!r}")
    pos = truth.matrix == 1 if counting == "directed" else truth.matrix != 0
    off = ~np.eye(truth.n, dtype=bool)
    return pos[off].astype(int), s[off]


def edge_roc_auc(truth: CausalGraph, scores: Any, counting: str = "directed") -> float:
    """Area under the ROC curve (recall against FPR) of edge scores (e.g. bootstrap edge
    frequencies, ``scores[i, j]`` for ``i -> j``) over the N(N-1) ordered pairs (Cheng et al. (2022),
    Sec. III.A item 7): the Mann-Whitney probability that a true edge outscores a non-edge,
    ties counting one half."""
    y, s = _edge_scores(truth, scores, counting)
    pos, neg = int(y.sum()), int(len(y) - y.sum())
    if pos == 0 or neg == 0:
        return float("nan")
    from scipy.stats import rankdata

    ranks = rankdata(s)
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def edge_pr_auc(truth: CausalGraph, scores: Any, counting: str = "directed") -> float:
    """Area under the precision-recall curve of edge scores (Cheng et al. 2022, Sec. III.A item 8),
    as average precision: ``sum_k (R_k - R_{k-1}) P_k`` over the distinct score thresholds
    from the highest."""
    y, s = _edge_scores(truth, scores, counting)
    if y.sum() == 0:
        return float("nan")
    order = np.argsort(-s, kind="stable")
    y, s = y[order], s[order]
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]  # end of each tie group
    tp = np.cumsum(y)[last]
    precision_k = tp / (last + 1)
    recall_k = tp / y.sum()
    return float(np.sum(np.diff(np.r_[0.0, recall_k]) * precision_k))


# ---------------------------------------------------------------- SHD between CPDAGs, one error per node pair
def shd_cpdag_pairs(truth: GraphLike, learned: GraphLike) -> float | np.ndarray:
    """SHD between CPDAGs as Tsamardinos et al. (2006, Rehak et al.'s reference [31] for eq. 5)
    count it: both graphs are turned into CPDAGs as in :func:`shd_cpdag`, then each unordered
    node pair whose edge differs costs 1, whether the edge is missing, extra, reversed, or
    directed in one CPDAG and undirected in the other (:func:`shd_pairs` on the CPDAGs).

    :func:`shd_cpdag` reads eq. (5) term by term over ordered pairs, so one pair can cost up
    to 3 there (``a -> b`` for the truth's ``a - b``); here no pair costs more than 1.
    """
    tb, lb, single = graph_pair("shd_cpdag_pairs", truth, learned, CPDAGS)
    return _out(_pairs_differing(_cpdags(tb, "truth"), _cpdags(lb, "learned")), single)
