"""Refutation tests against DoWhy 0.12 on the same random draws."""

import numpy as np
import pytest
from causaleval.metrics import refutation as R
from causaleval.studies import survey_metric_tables as S


@pytest.fixture(scope="module")
def data():
    return S.refutation_data(n=400, effect=2.0, seed=5)


@pytest.mark.parametrize("test", [R.PLACEBO, R.RANDOM_COMMON_CAUSE, R.DATA_SUBSET])
@pytest.mark.parametrize("n_simulations", [20, 100])  # DoWhy's normal test below 100, its bootstrap test from 100
def test_each_refutation_matches_dowhy(data, test, n_simulations):
    ours = R.refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=3)
    theirs = R.dowhy_refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=3)
    assert ours.estimate == pytest.approx(theirs.estimate, rel=1e-10)
    assert ours.new_effect == pytest.approx(theirs.new_effect, rel=1e-9, abs=1e-12)
    assert ours.p_value == pytest.approx(theirs.p_value, rel=1e-6, abs=1e-9)


def test_refuters_pass_a_sound_estimate_and_cannot_see_an_omitted_confounder(data):
    placebo = R.refute(data, "T", "Y", ["W"], R.PLACEBO, n_simulations=50, seed=0)
    assert abs(placebo.new_effect) < 0.1 and placebo.p_value > 0.05
    # omitting the confounder leaves the estimate biased but every refuter blind to it
    subset = R.refute(data, "T", "Y", [], R.DATA_SUBSET, n_simulations=50, seed=0)
    assert subset.estimate > 2.5 and subset.p_value > 0.05


def test_dowhy_data_subset_with_an_integer_seed_repeats_one_subset(data):
    bug = R.dowhy_refute(data, "T", "Y", ["W"], R.DATA_SUBSET, n_simulations=20, seed=3, integer_seed=True)
    ours = R.refute(data, "T", "Y", ["W"], R.DATA_SUBSET, n_simulations=20, seed=3)
    assert bug.p_value == 0.0 and ours.p_value > 0.05


def test_bad_input_is_named(data):
    with pytest.raises(ValueError, match=r"no columns \['Z'\]"):
        R.refute(data, "T", "Y", ["Z"], R.PLACEBO)
    with pytest.raises(ValueError, match="test='bootstrap'"):
        R.refute(data, "T", "Y", ["W"], "bootstrap", n_simulations=2)
    with pytest.raises(ValueError, match="fraction=1.5"):
        R.refute(data, "T", "Y", ["W"], R.DATA_SUBSET, fraction=1.5)
    with pytest.raises(ValueError, match=r"columns \['Y'\] hold missing"):
        R.refute(data.assign(Y=np.nan), "T", "Y", ["W"], R.PLACEBO)


def test_p_value_follows_dowhy_both_ways():
    assert R.p_value(0.0, np.zeros(5)) == 1.0
    sims = np.arange(100.0)
    assert R.p_value(49.5, sims) == pytest.approx(1.0)  # half above, half below
    assert R.p_value(200.0, sims) == 0.0
