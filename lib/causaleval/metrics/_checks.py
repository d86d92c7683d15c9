"""Input checks shared by the metrics: every refusal names the argument and what was expected."""

from __future__ import annotations

from typing import Any

import numpy as np


def vector(values: Any, name: str) -> np.ndarray:
    """A finite 1-D float array, or a ValueError naming ``name``."""
    a = np.asarray(values, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of numbers, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name}: empty; expected at least one value")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise ValueError(f"{name}: {bad.size} missing or infinite values (first at position {bad[0]})")
    return a


def vectors(**named: Any) -> list[np.ndarray]:
    """Several :func:`vector` s of one common length."""
    arrays = {name: vector(v, name) for name, v in named.items()}
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"mismatched lengths: {', '.join(f'{n}={k}' for n, k in lengths.items())}")
    return list(arrays.values())


def binary(values: Any, name: str) -> np.ndarray:
    """A 1-D array of 0/1 (or booleans) as int."""
    a = vector(values, name)
    if not np.isin(a, (0, 1)).all():
        raise ValueError(f"{name}: expected only 0 and 1, got {sorted(set(np.unique(a)) - {0.0, 1.0})[:5]}")
    return a.astype(int)
