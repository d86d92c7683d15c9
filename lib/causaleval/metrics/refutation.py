"""Refutation tests of an effect estimate (Cheng et al. 2022, Table III row "Refutation"; the
tests DoWhy offers, Sharma and Kiciman 2020, arXiv:2011.04216).

Each test re-estimates the effect on ``n_simulations`` altered copies of the data and asks
whether the original estimate belongs to the distribution of the new ones:

* **placebo treatment**: the treatment column is permuted across rows, so any effect found is
  spurious; a sound estimator gives new effects around 0 (the test is of 0 against them);
* **random common cause**: an independent standard normal column is added to the adjustment
  set; the new effects should stay at the estimate;
* **data subset**: the effect is re-estimated on a random ``fraction`` of the rows; the new
  effects should stay at the estimate.

The p-value follows DoWhy's (``dowhy.causal_refuter.test_significance``): with fewer than 100
simulations, the one-sided normal tail of ``z = (theta - mean) / sd`` (sd with ddof 0); with 100
or more, ``2 min(h, 1 - h)`` where ``h = mean(1[new > theta] + 0.5 * 1[new == theta])``; theta is
0 for the placebo test and the original estimate otherwise. Random draws follow DoWhy's
(``numpy.random.RandomState(seed)``: one ``choice`` permutation, one ``normal`` column, one
``DataFrame.sample`` per simulation, in that order), so the same seed gives the same altered data
and the cross-check against DoWhy is exact.

The estimator is least squares of the outcome on the treatment and the common causes (the
coefficient of the treatment, DoWhy's ``backdoor.linear_regression`` without effect modifiers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

PLACEBO, RANDOM_COMMON_CAUSE, DATA_SUBSET = "placebo treatment", "random common cause", "data subset"


class Refutation(NamedTuple):
    test: str
    estimate: float
    new_effect: float
    p_value: float
    new_effects: np.ndarray


def _columns(data: pd.DataFrame, treatment: str, outcome: str, common_causes: Sequence[str]) -> None:
    missing = [c for c in (treatment, outcome, *common_causes) if c not in data.columns]
    if missing:
        raise ValueError(f"data: no columns {missing}; it has {list(data.columns)}")
    bad = [c for c in (treatment, outcome, *common_causes) if not np.isfinite(data[c].to_numpy(float)).all()]
    if bad:
        raise ValueError(f"data: columns {bad} hold missing or infinite values")


def ols_effect(data: pd.DataFrame, treatment: str, outcome: str, common_causes: Sequence[str],
               extra: np.ndarray | None = None) -> float:
    """Coefficient of ``treatment`` in the least squares of ``outcome`` on a constant, the
    treatment, the common causes and the ``extra`` columns."""
    columns = [np.ones(len(data)), data[treatment].to_numpy(float), *(data[c].to_numpy(float) for c in common_causes)]
    if extra is not None:
        columns.append(extra)
    design = np.column_stack(columns)
    return float(np.linalg.lstsq(design, data[outcome].to_numpy(float), rcond=None)[0][1])


def p_value(theta: float, new_effects: np.ndarray) -> float:
    """DoWhy's significance of ``theta`` against the simulated effects (see the module docstring)."""
    x = np.asarray(new_effects, dtype=float)
    if len(x) >= 100:
        half = float(np.mean((x > theta) + 0.5 * (x == theta)))
        return 2 * min(half, 1 - half)
    sd = x.std()
    if sd == 0:
        return 1.0 if np.all(x == theta) else 0.0
    z = (theta - x.mean()) / sd
    return float(stats.norm.sf(z) if z > 0 else stats.norm.cdf(z))


def refute(data: pd.DataFrame, treatment: str, outcome: str, common_causes: Sequence[str], test: str, *,
           n_simulations: int = 100, fraction: float = 0.8, seed: int = 0) -> Refutation:
    """Run one refutation ``test`` (``"placebo treatment"``, ``"random common cause"`` or
    ``"data subset"``) of the least-squares effect of ``treatment`` on ``outcome``."""
    _columns(data, treatment, outcome, common_causes)
    if n_simulations < 2:
        raise ValueError(f"n_simulations={n_simulations}: need at least 2")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction={fraction}: expected a share of the rows in (0, 1]")
    estimate = ols_effect(data, treatment, outcome, common_causes)
    rng = np.random.RandomState(seed)
    n = len(data)
    new = []
    for _ in range(n_simulations):
        if test == PLACEBO:
            altered = data.assign(**{treatment: data[treatment].to_numpy()[rng.choice(n, size=n, replace=False)]})
            new.append(ols_effect(altered, treatment, outcome, common_causes))
        elif test == RANDOM_COMMON_CAUSE:
            new.append(ols_effect(data, treatment, outcome, common_causes, extra=rng.normal(size=n)))
        elif test == DATA_SUBSET:
            new.append(ols_effect(data.sample(frac=fraction, random_state=rng), treatment, outcome, common_causes))
        else:
            raise ValueError(f"test={test!r}: expected one of {[PLACEBO, RANDOM_COMMON_CAUSE, DATA_SUBSET]}")
    effects = np.array(new)
    theta = 0.0 if test == PLACEBO else estimate
    return Refutation(test, estimate, float(effects.mean()), p_value(theta, effects), effects)


def dowhy_refute(data: pd.DataFrame, treatment: str, outcome: str, common_causes: Sequence[str], test: str, *,
                 n_simulations: int = 100, fraction: float = 0.8, seed: int = 0,
                 integer_seed: bool = False) -> Refutation:
    """The same test run by DoWhy's refuters on DoWhy's ``LinearRegressionEstimator`` (the
    cross-check), seeded with ``numpy.random.RandomState(seed)``. The backdoor estimand is built
    directly: DoWhy 0.12's identifier calls ``networkx.d_separated``, which networkx 3.5 removed.

    ``integer_seed=True`` passes ``seed`` as the integer DoWhy's documentation suggests: its
    data-subset refuter then hands the same integer to every ``DataFrame.sample`` call, so every
    simulation draws the same subset, the new effects have no spread and the p-value is 0 (the
    test fails any estimator)."""
    import logging
    import warnings

    from dowhy.causal_estimators.linear_regression_estimator import LinearRegressionEstimator
    from dowhy.causal_identifier import IdentifiedEstimand
    from dowhy.causal_refuters.data_subset_refuter import refute_data_subset
    from dowhy.causal_refuters.placebo_treatment_refuter import PlaceboType, refute_placebo_treatment
    from dowhy.causal_refuters.random_common_cause import refute_random_common_cause

    _columns(data, treatment, outcome, common_causes)
    estimand = IdentifiedEstimand(None, treatment_variable=[treatment], outcome_variable=[outcome],
                                  estimand_type="nonparametric-ate", estimands={"backdoor": None},
                                  backdoor_variables={"backdoor": list(common_causes)},
                                  default_backdoor_id="backdoor", identifier_method="backdoor")
    logging.getLogger("dowhy").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator = LinearRegressionEstimator(estimand)
        estimator.fit(data)
        estimate = estimator.estimate_effect(data, control_value=0, treatment_value=1)
        common = dict(num_simulations=n_simulations,
                      random_state=seed if integer_seed else np.random.RandomState(seed))
        if test == PLACEBO:
            result = refute_placebo_treatment(data, estimand, estimate, [treatment],
                                              placebo_type=PlaceboType.PERMUTE, **common)
        elif test == RANDOM_COMMON_CAUSE:
            result = refute_random_common_cause(data, estimand, estimate, **common)
        elif test == DATA_SUBSET:
            result = refute_data_subset(data, estimand, estimate, subset_fraction=fraction, **common)
        else:
            raise ValueError(f"test={test!r}: expected one of {[PLACEBO, RANDOM_COMMON_CAUSE, DATA_SUBSET]}")
    return Refutation(test, float(estimate.value), float(result.new_effect),
                      float(result.refutation_result["p_value"]), np.array([]))
