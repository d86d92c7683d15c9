"""Fairness metrics (Cheng et al. eqs. 24-28) and the reconstruction error on linear SCMs with known values."""

import numpy as np
import pandas as pd
import pytest
from causaleval.metrics import fairness as F
from causaleval.studies import survey_metric_tables as S

W = S.FAIRNESS_WEIGHTS


@pytest.fixture(scope="module")
def sample():
    scm = S.fairness_scm(**W)
    return scm, scm.sample(4000, 3)


def test_counterfactuals_keep_the_units_noise_and_respect_consistency(sample):
    scm, data = sample
    units = data[data["A"] == 0]
    same = scm.counterfactual(units, {"A": 0})
    assert np.allclose(same.to_numpy(), units.to_numpy())  # consistency: Y_{a} = Y when A = a
    flipped = scm.counterfactual(units, {"A": 1})
    assert np.allclose(flipped["W"] - units["W"], W["alpha"])
    assert np.allclose(flipped["Y"] - units["Y"], W["beta"] + W["delta"] * W["alpha"])
    assert np.allclose(flipped["C"], units["C"])


def test_direct_indirect_and_path_specific_effects_equal_their_coefficients(sample):
    scm, data = sample
    assert F.ctf_de(scm, data, "A", "Y", ["W"]) == pytest.approx(W["beta"])
    assert F.ctf_ie(scm, data, "A", "Y", ["W"]) == pytest.approx(W["alpha"] * W["delta"])
    both = F.pc_fairness(scm, data, "A", "Y", [("A", "Y"), ("A", "W"), ("W", "Y")], given={"A": 0})
    assert both == pytest.approx(W["beta"] + W["alpha"] * W["delta"])  # all paths: the total effect
    assert F.pc_fairness(scm, data, "A", "Y", [("A", "W")], given={"A": 0}) == pytest.approx(0.0, abs=1e-12)


def test_spurious_effect_matches_its_analytic_value_within_monte_carlo_error():
    table = S.fairness_example(n=2000, replications=20, seed=1)
    assert table["inside MC interval"].all(), table
    se = table.loc["Ctf-SE"]
    assert se["analytic"] == pytest.approx((W["gamma_y"] + W["delta"] * W["gamma_w"]) * 2 / np.sqrt(np.pi))


def test_explanation_formula_holds_on_any_sample():
    assert S.explanation_formula(n=500, seed=4)["|difference|"] < 1e-12


def test_counterfactual_fairness_tells_an_unaware_predictor_from_a_fair_one(sample):
    scm, data = sample
    unaware = lambda v: W["delta"] * v["W"] + W["gamma_y"] * v["C"]  # noqa: E731
    fair = lambda v: v["C"] + v["W"] - W["alpha"] * v["A"] - W["gamma_w"] * v["C"]  # noqa: E731
    assert F.counterfactual_fairness(scm, data, unaware, "A") == pytest.approx(W["delta"] * W["alpha"])
    assert F.counterfactual_fairness(scm, data, fair, "A") == pytest.approx(0.0, abs=1e-12)


def test_bad_models_and_queries_are_refused(sample):
    scm, data = sample
    with pytest.raises(ValueError, match="parent 'Y' is not an earlier node"):
        F.LinearSCM.from_equations({"X": {"Y": 1.0}, "Y": {}})
    with pytest.raises(ValueError, match=r"node 'A' is binary"):
        scm.counterfactual(data, {"C": 5.0})  # changes A's parent without intervening on A
    with pytest.raises(ValueError, match="edges: W -> A is not an edge"):
        F.pc_fairness(scm, data, "A", "Y", [("W", "A")])
    with pytest.raises(ValueError, match="given: no row has"):
        F.ctf_de(scm, data, "A", "Y", ["W"], given=7)
    with pytest.raises(ValueError, match=r"no columns for nodes \['W'\]"):
        F.ctf_se(scm, data.drop(columns="W"), "A", "Y")


def test_reconstruction_error_matches_scikit_learn_and_converges_to_the_population_value():
    from sklearn.decomposition import PCA

    points, data = S.reconstruction_inputs(n=3000, n_points=50, shift=2.0, seed=2)
    pca = PCA(n_components=1).fit(data.to_numpy())
    x = points.to_numpy()
    ref = np.mean(np.sum((x - pca.inverse_transform(pca.transform(x))) ** 2, axis=1))
    assert F.reconstruction_error(points, data, 1) == pytest.approx(ref)
    table = S.reconstruction_example(sizes=[200, 100_000], n_points=50, shift=2.0, n_components=1, seed=2)
    gap = (table["sample autoencoder"] - table["population (analytic)"]).abs()
    assert gap.xs(100_000, level="rows").max() < 0.02
    assert (table.xs("counterfactual")["population (analytic)"] > table.xs("factual")["population (analytic)"]).all()
    assert F.reconstruction_error([[0.0, 3.0]], [[-1.0, 0.0], [1.0, 0.0]], 1) == pytest.approx(9.0)
    with pytest.raises(ValueError, match="n_components=3"):
        F.reconstruction_error([[0.0, 3.0]], [[-1.0, 0.0], [1.0, 0.0]], 3)


def test_population_covariance_of_a_chain():
    scm = F.LinearSCM.from_equations({"X1": {}, "X2": {"X1": 2.0}}, intercepts={"X1": 1.0, "X2": 0.5})
    assert scm.covariance() == pytest.approx(np.array([[1.0, 2.0], [2.0, 5.0]]))
    assert pd.Series(scm.mean()).to_numpy() == pytest.approx([1.0, 2.5])  # E[X2] = 0.5 + 2 E[X1]
