"""Effect-estimation metrics of the Cheng et al. 2022 survey (Sec. II.A, eqs. 4-12) and the
causal fairness notions FACE and FACT (Sec. IV.A, eqs. 22-23).

Each function states its equation. Where the printed equation and the cited source differ, the
docstring says which one is implemented and why.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from causaleval.metrics._checks import binary, vector, vectors


def mae_ate(true_ate, estimated_ate) -> float:
    """Eq. (4): ``(1/M) sum_j |tau_j - tau_hat_j|`` over M experiments."""
    t, e = vectors(true_ate=true_ate, estimated_ate=estimated_ate)
    return float(np.mean(np.abs(t - e)))


def mse_ate(true_ate, estimated_ate) -> float:
    """Eq. (5): ``(1/M) sum_j (tau_j - tau_hat_j)^2``."""
    t, e = vectors(true_ate=true_ate, estimated_ate=estimated_ate)
    return float(np.mean((t - e) ** 2))


def rmse_ate(true_ate, estimated_ate) -> float:
    """Eq. (5): ``sqrt((1/M) sum_j (tau_j - tau_hat_j)^2)``."""
    return float(np.sqrt(mse_ate(true_ate, estimated_ate)))


def pehe(y1, y0, estimated_ite, *, root: bool = False) -> float:
    """Eq. (6), precision in estimation of heterogeneous effect:
    ``(1/n) sum_i (y_i^1 - y_i^0 - tau_hat(x_i))^2``. Much of the literature (Hill 2011;
    Shalit et al. 2017) reports its square root; ``root=True`` gives that."""
    a, b, e = vectors(y1=y1, y0=y0, estimated_ite=estimated_ite)
    value = float(np.mean((a - b - e) ** 2))
    return float(np.sqrt(value)) if root else value


def policy_risk(policy, treatment, outcome, *, scale: bool = True) -> float:
    """Eq. (7): ``1 - (E[y~ | t=1, pi=1] p(pi=1) + E[y~ | t=0, pi=0] p(pi=0))``.

    ``policy`` is 1 where the estimated-effect policy treats (e.g. ``tau_hat(x) > 0``),
    ``treatment`` the assignment in the (randomized) data and ``outcome`` the factual
    outcome, min-max scaled into [0, 1] first (``y~``; ``scale=False`` when it already is).
    A policy value that no unit follows contributes 0; a followed value for which no unit
    received that treatment cannot be estimated and raises.
    """
    pi, t = binary(policy, "policy"), binary(treatment, "treatment")
    (y,) = vectors(outcome=outcome)
    if not len(pi) == len(t) == len(y):
        raise ValueError(f"mismatched lengths: policy={len(pi)}, treatment={len(t)}, outcome={len(y)}")
    if scale:
        span = y.max() - y.min()
        y = (y - y.min()) / span if span > 0 else np.zeros_like(y)
    elif y.min() < 0 or y.max() > 1:
        raise ValueError("outcome: with scale=False the outcome must lie in [0, 1]")
    value = 0.0
    for arm in (1, 0):
        share = float(np.mean(pi == arm))
        if share == 0:
            continue
        followed = (pi == arm) & (t == arm)
        if not followed.any():
            raise ValueError(f"policy: no unit with treatment={arm} among the {int((pi == arm).sum())} the policy "
                             f"assigns {arm}; E[y | t={arm}, pi={arm}] cannot be estimated")
        value += float(y[followed].mean()) * share
    return 1.0 - value


def _ordered(outcome, treatment, score) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, s = vectors(outcome=outcome, score=score)
    t = binary(treatment, "treatment")
    if len(t) != len(y):
        raise ValueError(f"mismatched lengths: outcome={len(y)}, treatment={len(t)}")
    order = np.argsort(-s, kind="stable")  # largest estimated effect first; ties keep input order
    return y[order], t[order], s[order]


def _cumulative(outcome, treatment, score):
    y, t, _ = _ordered(outcome, treatment, score)
    n1, n0 = np.cumsum(t), np.cumsum(1 - t)
    y1, y0 = np.cumsum(y * t), np.cumsum(y * (1 - t))
    return y1, y0, n1, n0


def _share(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


def uplift_curve(outcome, treatment, score) -> np.ndarray:
    """Eq. (8), ``Uplift(b) = (Y_b^1 / N_b^1 - Y_b^0 / N_b^0)(N_b^1 + N_b^0)`` for b = 0..N
    over the units sorted by ``score`` (estimated effect) from largest (tied units in input
    order); ``Uplift(0) = 0`` and a group mean over zero units counts as 0."""
    y1, y0, n1, n0 = _cumulative(outcome, treatment, score)
    return np.concatenate([[0.0], (_share(y1, n1) - _share(y0, n0)) * (n1 + n0)])


def qini_curve(outcome, treatment, score) -> np.ndarray:
    """Eq. (9), ``Qini(a) = Y_a^1 - Y_a^0 N_a^1 / N_a^0``, indexed by the first a units
    (eq. 10 sums it over a = 0..N-1, so the curve is kept per unit; a percentile p is the
    first ``p N / 100`` units). ``Qini(0) = 0``; zero control units count as 0."""
    y1, y0, n1, n0 = _cumulative(outcome, treatment, score)
    return np.concatenate([[0.0], y1 - _share(y0 * n1, n0)])


def _area(curve: np.ndarray, score) -> float:
    """Trapezoid area of a per-unit curve (eq. 10). Units with tied scores have no order, so
    the curve is taken at the ends of tie groups and joined linearly across each group (as
    scikit-uplift does); without ties this is eq. (10) term by term."""
    s = np.sort(np.asarray(score, dtype=float))[::-1]
    ends = np.r_[0, np.flatnonzero(np.diff(s)) + 1, len(s)]
    return float(np.trapezoid(curve[ends], ends))


def uplift_coefficient(outcome, treatment, score) -> float:
    """Eq. (10): ``sum_{b=0}^{N-1} (Uplift(b+1) + Uplift(b)) / 2``, the area under the uplift curve."""
    return _area(uplift_curve(outcome, treatment, score), score)


def qini_coefficient(outcome, treatment, score) -> float:
    """Eq. (10): ``sum_{a=0}^{N-1} (Qini(a+1) + Qini(a)) / 2``, the area under the Qini curve."""
    return _area(qini_curve(outcome, treatment, score), score)


class StatTest(NamedTuple):
    statistic: float
    p_value: float
    df: tuple[float, ...]


def f_test(rss_restricted: float, rss_unrestricted: float, lags: int, length: int) -> StatTest:
    """Eqs. (11) and (21): ``F = ((RSS_R - RSS_UR) / p) / (RSS_UR / (T - 2p - 1))``, which is
    ``F(p, T - 2p - 1)`` under the null. Eq. (11) prints ``RSS = sum e_t`` without the squares;
    a residual sum of squares is meant. ``length`` is T, the number of time steps the two
    regressions are fitted on."""
    if lags < 1 or length - 2 * lags - 1 < 1:
        raise ValueError(f"lags={lags} and length={length}: need lags >= 1 and length > 2 lags + 1")
    if rss_unrestricted <= 0 or rss_restricted < rss_unrestricted:
        raise ValueError(f"rss_restricted={rss_restricted}, rss_unrestricted={rss_unrestricted}: "
                         "expected rss_restricted >= rss_unrestricted > 0 (nested least-squares fits)")
    df = (lags, length - 2 * lags - 1)
    statistic = (rss_restricted - rss_unrestricted) / lags / (rss_unrestricted / df[1])
    return StatTest(float(statistic), float(stats.f.sf(statistic, *df)), df)


def granger_f_test(effect, cause, lags: int) -> StatTest:
    """Eq. (21) for ``cause -> effect``: least squares of ``effect_t`` on a constant and its own
    ``lags`` past values (restricted), and also on ``lags`` past values of ``cause``
    (unrestricted), fitted on the T = len - lags steps that have all lags."""
    y, x = vectors(effect=effect, cause=cause)
    if lags < 1 or len(y) <= 3 * lags + 1:
        raise ValueError(f"lags={lags}: need lags >= 1 and a series longer than 3 lags + 1 (got {len(y)})")
    rows = len(y) - lags
    own = np.column_stack([y[lags - k:len(y) - k] for k in range(1, lags + 1)])
    other = np.column_stack([x[lags - k:len(x) - k] for k in range(1, lags + 1)])
    target = y[lags:]
    restricted = np.column_stack([np.ones(rows), own])
    unrestricted = np.column_stack([restricted, other])
    rss = [float(np.sum((target - m @ np.linalg.lstsq(m, target, rcond=None)[0]) ** 2))
           for m in (restricted, unrestricted)]
    return f_test(rss[0], rss[1], lags, rows)


def unpaired_t_test(treated, control) -> StatTest:
    """Eq. (12), Student's two-sample t-test with pooled variance:
    ``(x1 - x2) / sqrt((1/n1 + 1/n2)((n1-1) s1^2 + (n2-1) s2^2) / (n1 + n2 - 2))``,
    two-sided p-value from t with n1 + n2 - 2 degrees of freedom."""
    a, b = vector(treated, "treated"), vector(control, "control")
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"treated has {len(a)} and control {len(b)} values; each needs at least 2")
    n1, n2 = len(a), len(b)
    pooled = ((n1 - 1) * a.var(ddof=1) + (n2 - 1) * b.var(ddof=1)) / (n1 + n2 - 2)
    statistic = (a.mean() - b.mean()) / np.sqrt((1 / n1 + 1 / n2) * pooled)
    df = n1 + n2 - 2
    return StatTest(float(statistic), float(2 * stats.t.sf(abs(statistic), df)), (df,))


def face(y1, y0) -> float:
    """Eq. (22), fairness on average causal effect (Khademi et al. 2019):
    ``E[Y^(a1) - Y^(a0)]`` from the potential outcomes under the two values of the protected
    attribute; 0 means fair. (The survey's text attributes eq. 22 to FACT; it is FACE.)"""
    a, b = vectors(y1=y1, y0=y0)
    return float(np.mean(a - b))


def fact(y1, y0, attribute, *, group: int = 1) -> float:
    """Eq. (23), fairness on average causal effect on the treated: ``E[Y^(a1) - Y^(a0) | A = a]``.
    The survey describes it as the effect on the treated group (ATT, Khademi et al. 2019),
    so ``group=1`` is the default; the printed eq. (23) conditions on ``A = a0``
    (``group=0``)."""
    a, b = vectors(y1=y1, y0=y0)
    attr = binary(attribute, "attribute")
    if len(attr) != len(a):
        raise ValueError(f"mismatched lengths: y1={len(a)}, attribute={len(attr)}")
    if not (attr == group).any():
        raise ValueError(f"attribute: no unit with A={group}")
    return float(np.mean((a - b)[attr == group]))
