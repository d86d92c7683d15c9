"""Interventional measures: distances between distributions P(O | do(T = t)).

Gentzel, Garant, Jensen (2019), Sec. 5: for a discrete outcome O,
``TV_{P, P_hat, T=t}(O) = 1/2 sum_{o in Omega(O)} |P(O = o | do(T = t)) - P_hat(O = o | do(T = t))|``.
Their aggregates are sums of such values over (treatment, outcome) pairs (supplement
Sec. 5: ``sum_{T,O} TV_{P, P_hat, T=1}(O)``) and means over pairs and trials (Figure 1).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

Tables = Mapping[tuple[str, str], np.ndarray]


def tvd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Total variation distance over the last axis (a table ``[t, o]`` gives one value per t)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape:
        raise ValueError(f"distributions of shapes {p.shape} and {q.shape} cannot be compared")
    return 0.5 * np.abs(p - q).sum(axis=-1)


def pairwise_tvd(truth: Tables, estimate: Tables, level: int | None = None) -> dict[tuple[str, str], float]:
    """TV per (T, O) pair: at treatment value ``level`` (the paper's Table 2 uses 1), or
    averaged over the treatment's values when ``level`` is None."""
    missing = [pair for pair in truth if pair not in estimate]
    if missing:
        raise ValueError(f"no estimate for pairs {missing[:5]}")
    out = {}
    for pair, table in truth.items():
        values = tvd(table, estimate[pair])
        out[pair] = float(values.mean() if level is None else values[level])
    return out


def total_tvd(truth: Tables, estimate: Tables, level: int | None = None) -> float:
    """``sum_{T,O} TV_{P, P_hat, T=level}(O)`` (supplement Sec. 5)."""
    return float(sum(pairwise_tvd(truth, estimate, level).values()))


def mean_tvd(truth: Tables, estimate: Tables, level: int | None = None) -> float:
    """The mean of the pairwise TVs (the per-trial value Figure 1 plots)."""
    values = pairwise_tvd(truth, estimate, level)
    return float(np.mean(list(values.values())))


def kl_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Kullback-Leibler divergence over the last axis, eq. (20) of Cheng et al. (2022) for discrete
    distributions: ``D_KL(P || P_hat) = sum_o P(o) ln(P(o) / P_hat(o))`` (nats), with
    ``0 ln 0 = 0`` and ``+inf`` where ``P_hat(o) = 0 < P(o)``; P is the true distribution."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape:
        raise ValueError(f"distributions of shapes {p.shape} and {q.shape} cannot be compared")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("distributions hold negative probabilities")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(q > 0, p / np.where(q > 0, q, 1), np.inf)), 0.0)
    return terms.sum(axis=-1)
