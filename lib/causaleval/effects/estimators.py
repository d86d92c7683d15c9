"""Effect estimators behind one interface, with bootstrap intervals and censoring variants.

An estimator is a function ``fn(X, z, y, w) -> Fit`` registered by name with
:func:`register_estimator` (a user plugin registers its own the same way)::

    @register_estimator("my_method")
    def my_method(X, z, y, w):
        ...
        return Fit(effect=ate, predict=lambda X_new: frame_with_y0_y1)

``X`` (covariates), ``z`` (0/1 treatment) and ``y`` (outcome, NaN where censored) share one
index; ``w`` weighs the rows whose outcome is known (1 without censoring weights, 0 where ``y``
is NaN). Models of the treatment use every row given; models of the outcome use the rows with
``w > 0``, weighted by ``w``; the effect averages over every row given. ``predict`` (optional)
returns the predicted potential outcomes ``y0, y1`` at any covariates (individual effects).

Built in (scikit-learn models inside causallib's estimators, as in study 4):

* ``difference_of_means``: ``sum w z y / sum w z - sum w (1-z) y / sum w (1-z)`` (no adjustment);
* ``ipw``: causallib ``IPW`` with a standardised logistic regression, propensities clipped to
  ``[PROPENSITY_CLIP, 1 - PROPENSITY_CLIP]`` (rare covariate levels otherwise give near-0 or
  near-1 propensities and weights in the thousands); the weighted (Hajek)
  means of y in each arm with weights ``w / e(x)`` and ``w / (1 - e(x))``;
* ``standardization``: causallib ``StratifiedStandardization`` (one linear regression per arm,
  fitted with sample weights ``w``); effect = mean over the rows of ``m1(x) - m0(x)``;
* ``aipw``: the augmented IPW (doubly robust) estimate from the same two models,
  ``mean[m1 - m0 + w (z (y - m1) / e - (1 - z)(y - m0) / (1 - e))]`` (residual terms 0 where
  censored), with the same clipped propensities; causallib's ``AIPW`` when ``w = 1`` (a test checks it).

:func:`estimate` runs one estimator on one data instance: the point estimate, a bootstrap
95% interval (``n_bootstrap`` resamples of the rows, every model refitted; ``interval="normal"``:
estimate +- 1.96 bootstrap sd; ``"percentile"``: 2.5% and 97.5% bootstrap quantiles), the
individual predictions and the run time of the point fit. With censored outcomes it needs a
``censoring`` variant: ``"complete_case"`` drops the censored rows (w = 1 on the rest);
``"ipcw"`` keeps every row and weighs the uncensored ones by ``1 / P(uncensored | x, z)`` from a
standardised logistic regression (probabilities clipped below at ``IPCW_CLIP``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from causaleval.plugins import check_name

CENSORING = ("none", "complete_case", "ipcw")
INTERVALS = ("normal", "percentile")
IPCW_CLIP = 0.01
PROPENSITY_CLIP = 0.01
LEVEL = 0.95


@dataclass(frozen=True)
class Fit:
    """What an estimator returns: the effect and, optionally, a predictor of ``y0, y1``."""

    effect: float
    predict: Callable[[pd.DataFrame], pd.DataFrame] | None = None


@dataclass(frozen=True)
class Estimate:
    """One estimator on one instance: effect, 95% interval ``[li, ri]``, individual predictions
    (``y0, y1`` per sample id, or None) and the point fit's run time in seconds."""

    effect: float
    li: float
    ri: float
    individual: pd.DataFrame | None
    seconds: float


Estimator = Callable[[pd.DataFrame, pd.Series, pd.Series, pd.Series], Fit]
ESTIMATORS: dict[str, Estimator] = {}


def register_estimator(name: str) -> Callable[[Estimator], Estimator]:
    """Decorator adding ``fn(X, z, y, w) -> Fit`` to :data:`ESTIMATORS` under ``name``
    (registering the same function again is a no-op; another function under a taken name is refused)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"estimator name {name!r}: expected an identifier such as 'my_method'")

    def add(fn: Estimator) -> Estimator:
        check_name("estimator", name, ESTIMATORS.get(name), fn)
        ESTIMATORS[name] = fn
        return fn
    return add


def _observed(y: pd.Series, w: pd.Series) -> np.ndarray:
    return (w.to_numpy() > 0) & y.notna().to_numpy()


def _weighted_arm_means(z: pd.Series, y: pd.Series, w: np.ndarray) -> float:
    zz, yy = z.to_numpy(), np.nan_to_num(y.to_numpy(float))
    treated, control = w * zz, w * (1 - zz)
    if treated.sum() <= 0 or control.sum() <= 0:
        raise ValueError("an arm without weight: no treated or no control row with a known outcome")
    return float((treated * yy).sum() / treated.sum() - (control * yy).sum() / control.sum())


def _propensity(X: pd.DataFrame, z: pd.Series):
    from causallib.estimation import IPW
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = IPW(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
                clip_min=PROPENSITY_CLIP, clip_max=1 - PROPENSITY_CLIP)
    model.fit(X, z)
    return model


def _outcome(X: pd.DataFrame, z: pd.Series, y: pd.Series, w: pd.Series):
    from causallib.estimation import StratifiedStandardization
    from sklearn.linear_model import LinearRegression

    keep = _observed(y, w)
    model = StratifiedStandardization(LinearRegression())
    model.fit(X[keep], z[keep], y[keep], sample_weight=w[keep].to_numpy())
    return model


def _predictor(model) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def predict(X: pd.DataFrame) -> pd.DataFrame:
        out = model.estimate_individual_outcome(X, pd.Series(0, index=X.index), treatment_values=[0, 1])
        return pd.DataFrame({"y0": out[0], "y1": out[1]}, index=X.index)
    return predict


@register_estimator("difference_of_means")
def difference_of_means(X: pd.DataFrame, z: pd.Series, y: pd.Series, w: pd.Series) -> Fit:
    """Weighted mean outcome of the treated minus that of the controls (no adjustment)."""
    return Fit(_weighted_arm_means(z, y, w.to_numpy() * _observed(y, w)))


@register_estimator("ipw")
def ipw(X: pd.DataFrame, z: pd.Series, y: pd.Series, w: pd.Series) -> Fit:
    """Inverse probability of treatment weighting (causallib IPW, Hajek means)."""
    weights = _propensity(X, z).compute_weights(X, z).to_numpy()
    return Fit(_weighted_arm_means(z, y, weights * w.to_numpy() * _observed(y, w)))


@register_estimator("standardization")
def standardization(X: pd.DataFrame, z: pd.Series, y: pd.Series, w: pd.Series) -> Fit:
    """Outcome regression per arm (causallib StratifiedStandardization), averaged over the rows."""
    predict = _predictor(_outcome(X, z, y, w))
    m = predict(X)
    return Fit(float((m["y1"] - m["y0"]).mean()), predict)


@register_estimator("aipw")
def aipw(X: pd.DataFrame, z: pd.Series, y: pd.Series, w: pd.Series) -> Fit:
    """Augmented IPW (doubly robust): outcome regression plus weighted residuals."""
    predict = _predictor(_outcome(X, z, y, w))
    m = predict(X)
    e = _propensity(X, z).compute_propensity(X, z, treatment_values=1).to_numpy()
    zz, ww = z.to_numpy(), w.to_numpy() * _observed(y, w)
    yy = np.nan_to_num(y.to_numpy(float))
    m0, m1 = m["y0"].to_numpy(), m["y1"].to_numpy()
    phi = m1 - m0 + ww * (zz * (yy - m1) / e - (1 - zz) * (yy - m0) / (1 - e))
    return Fit(float(phi.mean()), predict)


# ------------------------------------------------------------------ censoring and intervals
def censoring_weights(X: pd.DataFrame, z: pd.Series, y: pd.Series) -> pd.Series:
    """``1 / P(uncensored | x, z)`` on uncensored rows, 0 on censored ones (standardised logistic
    regression on the covariates and the treatment, probabilities clipped below at IPCW_CLIP)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    observed = y.notna().to_numpy()
    if observed.all():
        return pd.Series(1.0, index=y.index)
    features = np.column_stack([X.to_numpy(float), z.to_numpy(float)])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(features, observed)
    p = np.clip(model.predict_proba(features)[:, 1], IPCW_CLIP, 1)
    return pd.Series(np.where(observed, 1 / p, 0.0), index=y.index)


def _prepared(X: pd.DataFrame, z: pd.Series, y: pd.Series, censoring: str):
    if censoring == "complete_case":
        keep = y.notna().to_numpy()
        return X[keep], z[keep], y[keep], pd.Series(1.0, index=y.index[keep])
    if censoring == "ipcw":
        return X, z, y, censoring_weights(X, z, y)
    if y.isna().any():
        raise ValueError(f"{int(y.isna().sum())} censored outcomes (NA): choose censoring='complete_case' "
                         "or 'ipcw'")
    return X, z, y, pd.Series(1.0, index=y.index)


def _point(name: str, X: pd.DataFrame, z: pd.Series, y: pd.Series, censoring: str) -> Fit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ESTIMATORS[name](*_prepared(X, z, y, censoring))
    if not isinstance(fit, Fit) or not np.isfinite(fit.effect):
        raise ValueError(f"estimator {name!r} returned {fit!r}; expected a Fit with a finite effect")
    return fit


def interval(effect: float, boot: np.ndarray, kind: str) -> tuple[float, float]:
    """The 95% bootstrap interval: ``"normal"`` (effect +- z_0.975 sd) or ``"percentile"``."""
    if kind == "normal":
        half = norm.ppf(0.5 + LEVEL / 2) * boot.std(ddof=1)
        return effect - half, effect + half
    if kind == "percentile":
        lo, hi = np.percentile(boot, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
        return float(lo), float(hi)
    raise ValueError(f"interval {kind!r}: expected one of {INTERVALS}")


def estimate(name: str, X: pd.DataFrame, z: pd.Series, y: pd.Series, *, censoring: str = "none",
             n_bootstrap: int, interval_kind: str = "normal", seed: int | list[int]) -> Estimate:
    """Run estimator ``name`` on one instance (see the module docstring)."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown estimator {name!r}; registered: {sorted(ESTIMATORS)}")
    if censoring not in CENSORING:
        raise ValueError(f"censoring {censoring!r}: expected one of {CENSORING}")
    if n_bootstrap < 2:
        raise ValueError(f"n_bootstrap = {n_bootstrap}: expected at least 2 resamples")
    start = time.perf_counter()
    fit = _point(name, X, z, y, censoring)
    seconds = time.perf_counter() - start
    rng = np.random.default_rng(seed)
    boot = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        rows = rng.integers(0, len(z), len(z))
        ids = pd.RangeIndex(len(rows))
        boot[b] = _point(name, X.iloc[rows].set_axis(ids), z.iloc[rows].set_axis(ids), y.iloc[rows].set_axis(ids),
                         censoring).effect
    li, ri = interval(fit.effect, boot, interval_kind)
    individual = None
    if fit.predict is not None:
        individual = fit.predict(X)[["y0", "y1"]].rename_axis("sample_id")
    return Estimate(fit.effect, float(li), float(ri), individual, seconds)
