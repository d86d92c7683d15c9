"""Counterfactual-explanation metrics of Table II of the Cheng et al. 2022 survey (Sec. IV.A).

The survey defines three of its six characteristics precisely enough to compute:
*sparsity* (the amount of perturbation: here the number of features changed, the L0 norm of
``x' - x``), *proximity* (the l_p distance between the original and the counterfactual) and
*diversity* (how different the counterfactuals of one input are: the mean pairwise l_p
distance, as in DiCE, Mothilal et al. 2020, ref. [109]). Interpretability (reconstruction
error under an autoencoder), speed and the visual-linguistic scores depend on a model or a
modality and are not implemented here. ``scale`` divides every feature first (e.g. by its
median absolute deviation, as DiCE does for continuous features).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _rows(original: Any, counterfactuals: Any, scale: Any) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(original, dtype=float)
    cfs = np.atleast_2d(np.asarray(counterfactuals, dtype=float))
    if x.ndim != 1 or cfs.ndim != 2 or cfs.shape[1] != x.size:
        raise ValueError(f"original of shape {x.shape} and counterfactuals of shape {cfs.shape}: "
                         "expected one feature vector and rows of the same length")
    if cfs.shape[0] == 0:
        raise ValueError("counterfactuals: empty; expected at least one")
    if not (np.isfinite(x).all() and np.isfinite(cfs).all()):
        raise ValueError("original or counterfactuals hold missing values")
    if scale is not None:
        s = np.asarray(scale, dtype=float)
        if s.shape != x.shape or (s <= 0).any():
            raise ValueError(f"scale: expected {x.size} positive values, one per feature")
        x, cfs = x / s, cfs / s
    return x, cfs


def sparsity(original: Any, counterfactuals: Any, *, tol: float = 0.0) -> float:
    """Mean number of features a counterfactual changes: ``mean_c ||x'_c - x||_0`` (|change| > tol)."""
    x, cfs = _rows(original, counterfactuals, None)
    return float((np.abs(cfs - x) > tol).sum(axis=1).mean())


def proximity(original: Any, counterfactuals: Any, *, p: float = 1.0, scale: Any = None) -> float:
    """Mean l_p distance of the counterfactuals to the original: ``mean_c ||x'_c - x||_p``."""
    x, cfs = _rows(original, counterfactuals, scale)
    return float(np.mean((np.abs(cfs - x) ** p).sum(axis=1) ** (1 / p)))


def diversity(counterfactuals: Any, *, p: float = 1.0, scale: Any = None) -> float:
    """Mean pairwise l_p distance among the counterfactuals of one input:
    ``2 / (m (m-1)) sum_{a<b} ||x'_a - x'_b||_p`` (needs m >= 2)."""
    cfs = np.atleast_2d(np.asarray(counterfactuals, dtype=float))
    _, cfs = _rows(cfs[0], cfs, scale)
    m = cfs.shape[0]
    if m < 2:
        raise ValueError(f"counterfactuals: diversity needs at least 2, got {m}")
    a, b = np.triu_indices(m, k=1)
    return float(np.mean((np.abs(cfs[a] - cfs[b]) ** p).sum(axis=1) ** (1 / p)))
