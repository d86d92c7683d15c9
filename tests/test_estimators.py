"""Effect estimators behind one interface (causaleval.effects.estimators): known effects, causallib
agreement, censoring variants, intervals, registration and bad input."""

import numpy as np
import pandas as pd
import pytest

from causaleval.effects import estimators as E


def confounded(n: int = 3000, seed: int = 0, effect: float = 2.0, censor: bool = False):
    """Linear outcome and logistic treatment sharing x0 (confounding); with ``censor``, rows with
    large x1 (an effect modifier) and treated rows are censored more often (informative)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x0", "x1", "x2"])
    z = pd.Series((rng.random(n) < 1 / (1 + np.exp(-1.2 * X["x0"]))).astype(int))
    tau = effect + 1.0 * X["x1"]
    y0 = 1.5 * X["x0"] + X["x2"] + rng.normal(0, 0.5, n)
    y = pd.Series(np.where(z == 1, y0 + tau, y0))
    truth = float(tau.mean())
    if censor:
        p = 1 / (1 + np.exp(-(-1.0 + 1.5 * X["x1"] + 0.8 * z)))
        y[rng.random(n) < p] = np.nan
    return X, z, y, truth


@pytest.mark.parametrize("name", ["ipw", "standardization", "aipw"])
def test_adjusting_estimators_recover_a_known_effect(name):
    X, z, y, truth = confounded()
    est = E.estimate(name, X, z, y, n_bootstrap=20, seed=1)
    assert est.effect == pytest.approx(truth, abs=0.15)
    assert est.li < est.effect < est.ri
    assert est.li <= truth <= est.ri
    assert est.seconds > 0


def test_difference_of_means_is_biased_by_confounding():
    X, z, y, truth = confounded()
    est = E.estimate("difference_of_means", X, z, y, n_bootstrap=20, seed=1)
    naive = y[z == 1].mean() - y[z == 0].mean()
    assert est.effect == pytest.approx(naive, rel=1e-12)
    assert est.effect - truth > 1.0 and est.li > truth  # confounding by x0 pushes it up
    assert est.individual is None


def test_outcome_models_predict_individual_outcomes_for_every_row():
    X, z, y, truth = confounded(n=1000)
    est = E.estimate("standardization", X, z, y, n_bootstrap=2, seed=0)
    assert list(est.individual.columns) == ["y0", "y1"] and est.individual.index.equals(X.index)
    assert (est.individual["y1"] - est.individual["y0"]).mean() == pytest.approx(est.effect, rel=1e-12)


def test_aipw_equals_causallibs_aipw_without_weights():
    from causallib.estimation import AIPW, IPW, StratifiedStandardization
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, z, y, _ = confounded(n=1500, seed=3)
    ipw = IPW(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
              clip_min=E.PROPENSITY_CLIP, clip_max=1 - E.PROPENSITY_CLIP)
    model = AIPW(StratifiedStandardization(LinearRegression()), ipw).fit(X, z, y)
    outcome = model.estimate_population_outcome(X, z, y)
    ours = E.aipw(X, z, y, pd.Series(1.0, index=y.index)).effect
    assert ours == pytest.approx(float(outcome[1] - outcome[0]), rel=1e-9)


def test_ipw_equals_causallibs_ipw_without_weights():
    from causallib.estimation import IPW
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, z, y, _ = confounded(n=1500, seed=4)
    model = IPW(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
                clip_min=E.PROPENSITY_CLIP, clip_max=1 - E.PROPENSITY_CLIP).fit(X, z)
    outcome = model.estimate_population_outcome(X, z, y)
    ours = E.ipw(X, z, y, pd.Series(1.0, index=y.index)).effect
    assert ours == pytest.approx(float(outcome[1] - outcome[0]), rel=1e-9)


def test_censoring_weights_remove_the_complete_case_bias():
    X, z, y, truth = confounded(n=6000, seed=5, censor=True)
    assert 0.3 < y.isna().mean() < 0.6
    cc = E.estimate("aipw", X, z, y, censoring="complete_case", n_bootstrap=10, seed=0)
    weighted = E.estimate("aipw", X, z, y, censoring="ipcw", n_bootstrap=10, seed=0)
    # censoring removes rows with large x1, so the complete cases have a smaller mean effect
    assert truth - cc.effect > 0.2
    assert weighted.effect == pytest.approx(truth, abs=0.1)
    assert cc.individual.index.equals(X.index)  # predictions also for the censored rows


def test_censored_outcomes_need_a_censoring_variant():
    X, z, y, _ = confounded(n=300, censor=True)
    with pytest.raises(ValueError, match=r"\d+ censored outcomes \(NA\): choose censoring='complete_case' or 'ipcw'"):
        E.estimate("ipw", X, z, y, n_bootstrap=2, seed=0)


def test_censoring_weights_are_inverse_probabilities_on_observed_rows_only():
    X, z, y, _ = confounded(n=2000, seed=6, censor=True)
    w = E.censoring_weights(X, z, y)
    assert (w[y.isna()] == 0).all() and (w[y.notna()] >= 1).all()
    assert w.max() <= 1 / E.IPCW_CLIP
    assert w.sum() == pytest.approx(len(y), rel=0.1)  # sum of R / P(R = 1) estimates n


def test_intervals_normal_and_percentile():
    boot = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    lo, hi = E.interval(2.0, boot, "normal")
    assert hi - 2.0 == pytest.approx(1.959964 * boot.std(ddof=1), rel=1e-6) and 2.0 - lo == pytest.approx(hi - 2.0)
    assert E.interval(2.0, boot, "percentile") == pytest.approx((0.1, 3.9))
    with pytest.raises(ValueError, match="interval 'wide'"):
        E.interval(2.0, boot, "wide")


def test_same_seed_same_interval():
    X, z, y, _ = confounded(n=500)
    a = E.estimate("ipw", X, z, y, n_bootstrap=5, seed=[1, 2])
    b = E.estimate("ipw", X, z, y, n_bootstrap=5, seed=[1, 2])
    assert (a.effect, a.li, a.ri) == (b.effect, b.li, b.ri)


def test_register_a_user_estimator_and_refuse_name_clashes():
    @E.register_estimator("test_constant")
    def constant(X, z, y, w):
        return E.Fit(effect=1.25)

    try:
        X, z, y, _ = confounded(n=200)
        est = E.estimate("test_constant", X, z, y, n_bootstrap=3, seed=0)
        assert est.effect == 1.25 and est.individual is None
        with pytest.raises(ValueError, match="'ipw' is already registered"):
            E.register_estimator("ipw")(constant)
        with pytest.raises(ValueError, match="expected an identifier"):
            E.register_estimator("not a name")
    finally:
        E.ESTIMATORS.pop("test_constant")


def test_bad_estimator_output_and_unknown_names_are_refused():
    @E.register_estimator("test_broken")
    def broken(X, z, y, w):
        return float("nan")

    try:
        X, z, y, _ = confounded(n=200)
        with pytest.raises(ValueError, match="estimator 'test_broken' returned nan; expected a Fit"):
            E.estimate("test_broken", X, z, y, n_bootstrap=2, seed=0)
    finally:
        E.ESTIMATORS.pop("test_broken")
    with pytest.raises(ValueError, match="unknown estimator 'nope'"):
        E.estimate("nope", X, z, y, n_bootstrap=2, seed=0)
    with pytest.raises(ValueError, match="n_bootstrap = 1: expected at least 2"):
        E.estimate("ipw", X, z, y, n_bootstrap=1, seed=0)
    with pytest.raises(ValueError, match="censoring 'drop'"):
        E.estimate("ipw", X, z, y, censoring="drop", n_bootstrap=2, seed=0)
