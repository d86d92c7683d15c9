"""The IBM-style DGP (causaleval.effects.simulation): ground truth, calibration, meta-data, bad input, files."""

import numpy as np
import pandas as pd
import pytest

from causaleval.effects import simulation as sim
from causaleval.metrics import ibm


@pytest.fixture(scope="module")
def covariates() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(3000, 12)), columns=[f"x{i}" for i in range(12)])
    X["count"] = rng.poisson(0.2, 3000)
    X["flag"] = rng.random(3000) < 0.1
    X["constant"] = 1.0
    return X.set_axis(pd.Index([f"s{i}" for i in range(3000)], name="sample_id"))


CENSORED = sim.DGP("c", n_y=2, n_yz=2, n_z=2, n_c=1, n_cy=2, n_cyz=1, censoring_on_treatment=True,
                   censoring_rate=0.25, degree=2, prevalence=0.4, effect=1.5, heterogeneity=0.7)


def test_true_effect_is_the_mean_of_y1_minus_y0_and_the_factual_outcome_follows_z(covariates):
    inst = sim.simulate(CENSORED, covariates, 2000, [1], "u1")
    assert inst.effect == pytest.approx(float((inst.y1 - inst.y0).mean()))
    assert inst.effect == pytest.approx(1.5, abs=1e-9)  # the effect modifier is centred over the instance
    assert (inst.y1 - inst.y0).std(ddof=0) == pytest.approx(0.7, rel=1e-9)  # heterogeneity = sd of tau(x)
    seen = ~inst.censored
    expected = np.where(inst.z[seen] == 1, inst.y1[seen], inst.y0[seen])
    np.testing.assert_array_equal(inst.y[seen].to_numpy(), expected)
    assert inst.y[inst.censored].isna().all()


def test_censoring_rate_and_prevalence_are_the_asked_ones(covariates):
    rates = [sim.simulate(CENSORED, covariates, 3000, [s], "u").censored.mean() for s in range(8)]
    treated = [sim.simulate(CENSORED, covariates, 3000, [s], "u").z.mean() for s in range(8)]
    # Bernoulli draws with mean probability exactly 0.25 (0.4): the average of 8 x 3,000 draws
    # lies within 4 standard errors
    assert abs(np.mean(rates) - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 24000)
    assert abs(np.mean(treated) - 0.4) < 4 * np.sqrt(0.4 * 0.6 / 24000)


def test_snr_sets_the_noise(covariates):
    inst = sim.simulate(sim.DGP("s", snr=0.5, heterogeneity=0.0), covariates, 3000, [2], "u")
    assert (inst.y1 - inst.y0).std() == pytest.approx(0.0, abs=1e-9)  # no heterogeneity: y1 - y0 = effect
    # var(mu0) = 1 and snr = 0.5 make the noise variance 1, so var(y0) is about 2
    assert inst.y0.var(ddof=0) == pytest.approx(2.0, rel=0.1)


def test_same_seed_same_instance_and_ufids_hide_the_dgp(covariates):
    grid = sim.dgp_grid({"n_y": 1, "n_z": 1}, {"n_yz": [0, 2], "degree": [1, 3]})
    a = sim.make_track(grid, covariates, [200, 400], 2, seed=3)
    b = sim.make_track(grid, covariates, [200, 400], 2, seed=3)
    assert [i.ufid for i in a] == [i.ufid for i in b]
    pd.testing.assert_frame_equal(sim.meta_data(a), sim.meta_data(b))
    ids = [i.ufid for i in a]
    assert len(set(ids)) == len(ids) == 16 and all(len(u) == 32 for u in ids)
    meta = sim.meta_data(a)
    assert set(meta["dgp"]) == {d.name for d in grid}
    assert sorted(ids) != ids or sorted(meta["dgp"]) != list(meta["dgp"])  # shuffled hand-out


def test_graph_uses_distinct_causes_and_exp_link(covariates):
    dgp = sim.DGP("e", n_y=3, n_yz=3, n_z=3, link="exp", degree=2)
    inst = sim.simulate(dgp, covariates, 1000, [4], "u")
    assert np.isfinite(inst.y0).all() and inst.z.isin([0, 1]).all()
    usable = sim.standardize(covariates).shape[1]
    assert usable == covariates.shape[1] - 1 == 14  # the constant column cannot be a cause


@pytest.mark.parametrize("field, value, expected", [
    ("prevalence", 1.0, r"prevalence = 1.0; expected a fraction in \(0, 1\)"),
    ("censoring_rate", -0.1, r"censoring_rate = -0.1; expected a fraction in \[0, 1\)"),
    ("degree", 0, "degree = 0; expected an integer in 1..5"),
    ("link", "log", r"link = 'log'; expected one of \('poly', 'exp'\)"),
    ("n_yz", -1, "n_yz = -1; expected an integer >= 0"),
    ("snr", 0.0, r"snr = 0.0; expected a fraction in \(0, 1\]"),
])
def test_dgp_parameter_out_of_range_is_refused(field, value, expected):
    with pytest.raises(ValueError, match=rf"DGP 'bad': {expected}"):
        sim.DGP("bad", **{field: value}).check()


def test_too_many_causes_and_censoring_without_cause_are_refused(covariates):
    with pytest.raises(ValueError, match=r"at most 14 causes in all \(the covariate table.s usable columns\), "
                                         "found 23"):
        sim.simulate(sim.DGP("big", n_y=10, n_z=10), covariates, 100, [0], "u")
    with pytest.raises(ValueError, match="censoring_rate = 0.2; expected 0 when censoring has no cause"):
        sim.DGP("c", censoring_rate=0.2).check()


def test_size_larger_than_the_table_is_refused(covariates):
    with pytest.raises(ValueError, match=r"size 3001: expected 2..3000 \(the covariate table's rows"):
        sim.simulate(sim.DGP("a"), covariates, 3001, [0], "u")
    with pytest.raises(ValueError, match=r"size 5000: expected 2..3000"):
        sim.make_track([sim.DGP("a")], covariates, [100, 5000], 1, 0)


def test_non_numeric_covariates_are_refused_and_can_be_encoded(covariates):
    X = covariates.assign(colour=np.where(np.arange(3000) % 3 == 0, "red", "blue"))
    with pytest.raises(ValueError, match=r"non-numeric columns \['colour'\] \(dtype (object|str)\)"
                                         r".*encode_categorical"):
        sim.simulate(sim.DGP("a"), X, 100, [0], "u")
    encoded = sim.encode_categorical(X)
    assert "colour_red" in encoded and "colour" not in encoded
    assert encoded["colour_red"].sum() == 1000
    sim.simulate(sim.DGP("a"), encoded, 100, [0], "u")


def test_missing_covariate_values_are_refused(covariates):
    X = covariates.copy()
    X.iloc[5, 2] = np.nan
    with pytest.raises(ValueError, match=r"missing or infinite value in column 'x2' at sample 's5'"):
        sim.check_covariates(X)


def test_acic2016_covariates_are_encoded_and_complete():
    X = sim.acic2016_covariates()
    assert X.shape == (4802, 79)
    assert {"x_2_B", "x_21_P", "x_24_E"} <= set(X.columns)
    assert X.dtypes.eq(float).all()


def test_files_round_trip_through_study_4s_readers(covariates, tmp_path):
    track = sim.make_track([CENSORED], covariates, [300], 2, seed=5)
    folder = sim.write_track(track, tmp_path, "censoring")
    sim.write_covariates(covariates, tmp_path)
    assert (tmp_path / "x.csv").exists() and (tmp_path / "censoring_params.csv").exists()
    for inst in track:
        X, z, y = sim.read_instance(folder, inst.ufid, pd.read_csv(tmp_path / "x.csv", index_col="sample_id"))
        np.testing.assert_array_equal(z.to_numpy(), inst.z.to_numpy())
        np.testing.assert_allclose(y.to_numpy(), inst.y.to_numpy(), rtol=1e-13)  # the readers keep 15 digits
        assert X.shape == (300, covariates.shape[1])
        cf = ibm.read_individual(folder / f"{inst.ufid}_cf.csv")
        np.testing.assert_allclose(cf["y1"] - cf["y0"], inst.y1 - inst.y0, rtol=1e-12)
    perfect = pd.DataFrame({"effect_size": [i.effect for i in track], "li": [i.effect - 1 for i in track],
                            "ri": [i.effect + 1 for i in track]}, index=[i.ufid for i in track])
    ibm.write_population(perfect, tmp_path / "population.csv")
    scores = ibm.score_population(tmp_path / "population.csv", folder)
    assert scores["rmse"] < 1e-12 and scores["coverage"] == 1.0
    meta = pd.read_csv(tmp_path / "censoring_params.csv", index_col="ufid")
    assert set(meta.index) == {i.ufid for i in track}
    assert meta["censoring_rate"].eq(0.25).all()


def test_unknown_track_is_refused(tmp_path):
    with pytest.raises(ValueError, match="track 'other': expected one of"):
        sim.write_track([], tmp_path, "other")
