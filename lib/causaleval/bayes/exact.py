"""The exact BGe posterior over DAGs by enumeration (d <= 5), and distances to it.

Target: the posterior that ``mc3`` samples (:mod:`causaleval.bayes.posteriors`), a uniform
prior over labelled DAGs times the BGe marginal likelihood (Geiger and Heckerman 1994;
Kuipers, Moffa and Heckerman 2014), which decomposes over nodes::

    p(G | D) = exp(S(G)) / sum_G' exp(S(G')),   S(G) = sum_v bge(v, Pa_G(v))

with ``bge`` the kit's :class:`causaleval.learn.ges.BGeScore` local score. Every labelled
DAG on ``d`` nodes is enumerated once per ``d`` (1, 3, 25, 543, 29281 for d = 1..5;
Robinson 1973) and cached; ``d > 5`` (3,781,503 DAGs at d = 6) is refused.

Other targets: a method that samples under another *modular* structure prior, one that depends only on
each node's number of parents, ``log p(G) = sum_v log_prior[|Pa_G(v)|] + const``, has its own exact
posterior ``exp(S(G) + log p(G)) / Z`` (the ``log_prior`` argument below; None: uniform). Two such
priors are the targets of the kit's wrapped methods: :func:`fair_prior`, sumu's (Gadget's)
``-log C(d - 1, k)`` per node (the "fair" prior hard-coded in sumu's ``LocalScore``: every in-degree
equally likely), and :func:`erdos_renyi_prior`, dibs-lib's ``ErdosReniDAGDistribution`` (edge
probability ``p``, ``log p(G) = |E| log p + (d (d - 1) / 2 - |E|) log(1 - p)``, so
``k log(p / (1 - p))`` per node up to a constant). Both packages' BGe is this one (sumu's local scores
equal the kit's; dibs-lib's defaults, ``alpha_mu = 1`` and ``alpha_lambd = d + 2``, are its parameters). Emezue et al.
(2023) compare posterior methods by their downstream ATE distribution; with the exact
posterior at small ``d`` a method's sample can be scored against the truth.

Public API (study 6 and ``benchmarks/bench_bayes_exact.py`` use these):

* :func:`all_dags` ``(d) -> (m, d, d) bool``: every DAG on ``d`` nodes (``a[i, j]``: i -> j).
* :func:`exact_posterior` ``(data, log_prior=None) -> ExactPosterior`` with ``dags`` (m, d, d), ``log_score``
  (m,), ``probs`` (m,) summing to 1.
* :func:`edge_marginals` ``(data) -> (d, d)``: ``P(i -> j | D)``.
* :func:`ate_distribution` ``(data, t, y) -> (values, probs)``: the exact posterior
  distribution of the linear ATE of ``t`` on ``y`` (column positions); each DAG's ATE is
  :class:`causaleval.effects.ate.LinearATE`'s back-door regression on ``data`` (0 without a
  directed path), equal values pooled, values sorted.
* :func:`edge_distance` ``(dags, data) -> float``: mean absolute difference between the
  sample's edge frequencies and the exact marginals over the ``d (d - 1)`` off-diagonal pairs.
* :func:`dag_tv` ``(dags, data) -> float``: total variation ``1/2 sum_G |p_hat(G) - p(G)|``
  between the sample's empirical distribution over DAGs and the exact posterior.
* :func:`ate_distance` ``(dags, data, t, y) -> float``: Wasserstein-1 distance between the
  sample's ATE distribution (each sampled DAG's ATE, equal weights) and the exact one.
  Wasserstein-1 rather than TV: DAGs with different adjustment sets give ATEs that differ
  by sampling noise only, and TV would count a near-miss as a complete miss; W1 is in the
  ATE's own units (the area between the two CDFs).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

MAX_NODES = 5


def _check_d(d: int) -> None:
    if not 1 <= d <= MAX_NODES:
        raise ValueError(f"exact posterior: d = {d} variables; enumeration is limited to 1..{MAX_NODES} "
                         "(d = 6 has 3,781,503 DAGs)")


@functools.lru_cache(maxsize=MAX_NODES)
def _all_dags(d: int) -> np.ndarray:
    pairs = [(i, j) for i in range(d) for j in range(d) if i != j]
    codes = np.arange(1 << len(pairs), dtype=np.int64)
    adj = np.zeros((len(codes), d, d), dtype=np.uint8)
    for bit, (i, j) in enumerate(pairs):
        adj[:, i, j] = codes >> bit & 1
    reach = adj.copy()
    for _ in range(d - 1):  # acyclic iff A is nilpotent: A^d = 0
        reach = (reach @ adj > 0).astype(np.uint8)
    dags = adj[~reach.any(axis=(1, 2))].astype(bool)
    dags.setflags(write=False)
    return dags


def all_dags(d: int) -> np.ndarray:
    """Every labelled DAG on ``d <= 5`` nodes as a read-only ``(m, d, d)`` bool stack (cached)."""
    _check_d(d)
    return _all_dags(d)


def _codes(dags: np.ndarray) -> np.ndarray:
    """One integer per DAG (its adjacency bits), to match samples with the enumeration."""
    flat = np.asarray(dags, dtype=bool).reshape(len(dags), -1).astype(np.int64)
    return flat @ (np.int64(1) << np.arange(flat.shape[1], dtype=np.int64))


@dataclass(frozen=True)
class ExactPosterior:
    """Every DAG, its BGe log score plus its log prior (up to a constant; 0 under the uniform prior)
    and its posterior probability."""

    dags: np.ndarray
    log_score: np.ndarray
    probs: np.ndarray


def _values(data: pd.DataFrame | np.ndarray) -> np.ndarray:
    x = np.asarray(data, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"exact posterior: data must be rows x variables, got shape {x.shape}")
    _check_d(x.shape[1])
    if not np.isfinite(x).all():
        raise ValueError("exact posterior: data has infinite or missing values")
    return x


def _key(x: np.ndarray) -> bytes:
    return x.shape[1].to_bytes(1, "little") + x.tobytes()


def fair_prior(d: int) -> tuple[float, ...]:
    """sumu's "fair" structure prior on ``d`` nodes by a node's parent count ``k = 0..d-1``:
    ``log p(Pa_v) = -log C(d - 1, k)`` (every in-degree equally likely; module notes)."""
    return tuple(-math.log(math.comb(d - 1, k)) for k in range(d))


def erdos_renyi_prior(d: int, p: float) -> tuple[float, ...]:
    """dibs-lib's Erdos-Renyi DAG prior of edge probability ``p`` on ``d`` nodes, by a node's parent
    count ``k``: ``k log(p / (1 - p))`` (the constant dropped; module notes)."""
    if not 0 < p < 1:
        raise ValueError(f"Erdos-Renyi prior: edge probability p = {p} on {d} nodes; expected 0 < p < 1")
    return tuple(k * math.log(p / (1 - p)) for k in range(d))


def _prior(log_prior: Sequence[float] | None, d: int) -> tuple[float, ...] | None:
    if log_prior is None:
        return None
    out = tuple(float(v) for v in log_prior)
    if len(out) != d or not all(math.isfinite(v) for v in out):
        raise ValueError(f"exact posterior: log_prior must give d = {d} finite values (parent counts 0..{d - 1}), "
                         f"got {list(log_prior)}")
    return out


@functools.lru_cache(maxsize=16)
def _posterior(key: bytes, log_prior: tuple[float, ...] | None = None) -> ExactPosterior:
    from causaleval.learn.ges import BGeScore

    d = key[0]
    x = np.frombuffer(key[1:], dtype=float).reshape(-1, d)
    local = BGeScore(x)
    dags = _all_dags(d)
    table = np.zeros((d, 1 << d))  # table[v, mask]: bge(v, parents in mask)
    for v in range(d):
        others = [u for u in range(d) if u != v]
        for k in range(d):
            for pa in itertools.combinations(others, k):
                table[v, sum(1 << u for u in pa)] = local(v, pa)
    masks = np.einsum("kij,i->kj", dags.astype(np.int64), 1 << np.arange(d, dtype=np.int64))
    score = table[np.arange(d), masks].sum(axis=1)
    if log_prior is not None:
        score = score + np.asarray(log_prior)[dags.sum(axis=1)].sum(axis=1)
    probs = np.exp(score - score.max())
    probs /= probs.sum()
    for a in (score, probs):
        a.setflags(write=False)
    return ExactPosterior(dags, score, probs)


def exact_posterior(data: pd.DataFrame | np.ndarray, log_prior: Sequence[float] | None = None) -> ExactPosterior:
    """The exact BGe posterior over all DAGs of ``data``'s columns, under the uniform prior or the
    modular ``log_prior`` by parent count (module notes)."""
    x = _values(data)
    return _posterior(_key(x), _prior(log_prior, x.shape[1]))


def edge_marginals(data: pd.DataFrame | np.ndarray, log_prior: Sequence[float] | None = None) -> np.ndarray:
    """``(d, d)`` exact posterior edge probabilities ``P(i -> j | D) = sum_G p(G | D) [i -> j in G]``."""
    post = exact_posterior(data, log_prior)
    return np.einsum("k,kij->ij", post.probs, post.dags.astype(float))


def _check_pair(d: int, t: int, y: int) -> None:
    if not (0 <= t < d and 0 <= y < d) or t == y:
        raise ValueError(f"ATE pair (t={t}, y={y}): expected two different column positions in 0..{d - 1}")


def dag_ates(data: pd.DataFrame | np.ndarray, dags: np.ndarray, t: int, y: int) -> np.ndarray:
    """The linear back-door ATE of ``t`` on ``y`` in each DAG of ``dags`` on ``data``."""
    from causaleval.effects.ate import LinearATE

    x = np.asarray(data, dtype=float)
    _check_pair(x.shape[1], t, y)
    return LinearATE(x).effects(dags, [(t, y)])[:, 0]


@functools.lru_cache(maxsize=64)
def _ate_distribution(key: bytes, t: int, y: int) -> tuple[np.ndarray, np.ndarray]:
    post = _posterior(key)
    d = key[0]
    x = np.frombuffer(key[1:], dtype=float).reshape(-1, d)
    ates = dag_ates(x, post.dags, t, y)
    values, inverse = np.unique(ates, return_inverse=True)
    probs = np.bincount(inverse, weights=post.probs, minlength=len(values))
    return values, probs


def ate_distribution(data: pd.DataFrame | np.ndarray, t: int, y: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact posterior distribution of the linear ATE of column ``t`` on column ``y``:
    sorted distinct values and their probabilities, ``P(ATE = a) = sum_{G: ATE_G = a} p(G | D)``."""
    x = _values(data)
    _check_pair(x.shape[1], t, y)
    values, probs = _ate_distribution(_key(x), t, y)
    return values.copy(), probs.copy()


def _check_sample(dags: np.ndarray, d: int) -> np.ndarray:
    dags = np.asarray(dags, dtype=bool)
    if dags.ndim != 3 or dags.shape[1:] != (d, d) or len(dags) == 0:
        raise ValueError(f"sample: expected a non-empty k x {d} x {d} stack of DAGs, got shape {dags.shape}")
    return dags


def edge_distance(dags: np.ndarray, data: pd.DataFrame | np.ndarray, log_prior: Sequence[float] | None = None) -> float:
    """Mean absolute difference ``1/(d(d-1)) sum_{i != j} |f_ij - P(i -> j | D)|`` between the
    sample's edge frequencies ``f`` and the exact marginals."""
    exact = edge_marginals(data, log_prior)
    d = exact.shape[0]
    freq = _check_sample(dags, d).mean(axis=0)
    off = ~np.eye(d, dtype=bool)
    return float(np.abs(freq - exact)[off].mean())


def dag_tv(dags: np.ndarray, data: pd.DataFrame | np.ndarray, log_prior: Sequence[float] | None = None) -> float:
    """Total variation ``1/2 sum_G |p_hat(G) - p(G | D)|`` between the sample's empirical
    distribution over DAGs and the exact posterior (under ``log_prior``, module notes)."""
    post = exact_posterior(data, log_prior)
    sample = _check_sample(dags, post.dags.shape[1])
    codes = _codes(post.dags)
    order = np.argsort(codes)
    where = order[np.searchsorted(codes, _codes(sample), sorter=order)]
    p_hat = np.bincount(where, minlength=len(codes)) / len(sample)
    return float(0.5 * np.abs(p_hat - post.probs).sum())


def ate_distance(dags: np.ndarray, data: pd.DataFrame | np.ndarray, t: int, y: int) -> float:
    """Wasserstein-1 distance (module notes) between the ATEs of the sampled DAGs (equal
    weights) and the exact posterior ATE distribution of ``(t, y)``."""
    from scipy.stats import wasserstein_distance

    values, probs = ate_distribution(data, t, y)
    sample = dag_ates(data, _check_sample(dags, np.asarray(data).shape[1]), t, y)
    return float(wasserstein_distance(sample, values, v_weights=probs))


def path_pair(truth: np.ndarray) -> tuple[int, int]:
    """The first ordered pair (t, y), row-major, with a directed path t -> ... -> y in the DAG
    ``truth`` (a bool or 0/1 adjacency matrix), else (0, 1): a pair whose ATE is not 0 in the truth."""
    d = len(truth)
    reach = np.linalg.matrix_power(np.eye(d, dtype=int) + np.asarray(truth, dtype=int), d) > 0
    return next(((t, y) for t in range(d) for y in range(d) if t != y and reach[t, y]), (0, 1))


def exact_draws(data: pd.DataFrame | np.ndarray, n: int, seed: int,
                log_prior: Sequence[float] | None = None) -> np.ndarray:
    """``n`` DAGs drawn i.i.d. from the exact posterior (under ``log_prior``; seeded): the distances
    any sampler of ``n`` DAGs shows by sampling error alone."""
    post = exact_posterior(data, log_prior)
    return post.dags[np.random.default_rng(seed).choice(len(post.dags), size=n, p=post.probs)]
