"""Ranking metrics for unbiased learning to rank, Cheng et al. 2022 survey (Sec. IV.B, eqs. 29-32).

Every function takes, per query, the values of the items in the order the ranker put them
(position 1 first): relevance grades for NDCG, 0/1 relevance for MAP, popularity for ARP,
0/1 long-tail membership for APLT. Queries are rows of a 2-D array or a list of 1-D
arrays (of any lengths); the result is the mean over queries. A ``k`` larger than a
query's list is refused, naming the query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _queries(values: Any, k: int, name: str) -> list[np.ndarray]:
    if isinstance(values, np.ndarray) and values.ndim == 2:
        rows = list(values)
    elif isinstance(values, Sequence) and len(values) and np.ndim(values[0]) == 1:
        rows = [np.asarray(v, dtype=float) for v in values]
    else:
        raise ValueError(f"{name}: expected one ranked list per query (a 2-D array or a list of 1-D arrays)")
    if not rows:
        raise ValueError(f"{name}: no queries")
    if int(k) != k or k < 1:
        raise ValueError(f"k={k}: expected a positive integer")
    for q, row in enumerate(rows):
        if len(row) < k:
            raise ValueError(f"k={k} is larger than the {len(row)} items ranked for query {q} of {name}")
        if not np.isfinite(row).all():
            raise ValueError(f"{name}: query {q} holds missing values")
    return [np.asarray(r, dtype=float) for r in rows]


def _discounts(k: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, k + 2))


def ndcg_at_k(relevance: Any, k: int, *, variant: str = "standard") -> float:
    """Eq. (29): ``NDCG@K = DCG@K / IDCG@K``, ``DCG@K = sum_{i<=K} (2^{r_i} - 1) / log2(i + 1)``.

    ``variant="standard"`` (Jarvelin and Kekalainen 2002, the survey's ref. [132]): IDCG@K is
    the DCG@K of the ideal order of the query's items, so NDCG lies in [0, 1] (a query with no
    relevant item scores 0). ``variant="printed"``: the survey's printed normalizer
    ``IDCG@K = sum_{i<=K} 1 / log2(i + 1)``, which exceeds 1 once a grade is above 1.
    """
    if variant not in ("standard", "printed"):
        raise ValueError(f"variant must be 'standard' or 'printed', got {variant!r}")
    d = _discounts(k)
    scores = []
    for r in _queries(relevance, k, "relevance"):
        dcg = float(((2.0 ** r[:k] - 1) * d).sum())
        ideal = float(((2.0 ** np.sort(r)[::-1][:k] - 1) * d).sum()) if variant == "standard" else float(d.sum())
        scores.append(dcg / ideal if ideal > 0 else 0.0)
    return float(np.mean(scores))


def map_at_k(relevant: Any, k: int, *, variant: str = "standard") -> float:
    """Eq. (30), mean average precision at K over 0/1 relevance.

    ``variant="standard"``: ``AP@K = sum_{i<=K} P@i rel_i / min(K, R)`` with R the query's
    relevant items (0 when R = 0); at K = list length it is scikit-learn's
    ``average_precision_score`` of the ranking. ``variant="printed"``: the survey's
    ``(1/K) sum_{i<=K} |{j <= i : r_j = 1}| / i``, the mean of precision@i over all i <= K.
    """
    if variant not in ("standard", "printed"):
        raise ValueError(f"variant must be 'standard' or 'printed', got {variant!r}")
    scores = []
    for r in _queries(relevant, k, "relevant"):
        if not np.isin(r, (0, 1)).all():
            raise ValueError("relevant: MAP needs 0/1 relevance")
        at_i = np.cumsum(r[:k]) / np.arange(1, k + 1)
        if variant == "printed":
            scores.append(float(at_i.mean()))
        else:
            total = min(k, int(r.sum()))
            scores.append(float((at_i * r[:k]).sum() / total) if total else 0.0)
    return float(np.mean(scores))


def arp_at_k(popularity: Any, k: int) -> float:
    """Eq. (31), average recommended popularity: ``(1/|Q|) sum_q sum_{i<=K} phi_i^q / K``."""
    return float(np.mean([p[:k].mean() for p in _queries(popularity, k, "popularity")]))


def aplt_at_k(long_tail: Any, k: int) -> float:
    """Eq. (32), average percentage of long-tail items: ``(1/|Q|) sum_q sum_{i<=K} 1(i in LT) / K``."""
    rows = _queries(long_tail, k, "long_tail")
    if not all(np.isin(r, (0, 1)).all() for r in rows):
        raise ValueError("long_tail: expected 0/1 membership of the long-tail set")
    return float(np.mean([r[:k].mean() for r in rows]))
