"""Study 5 (ibm_benchmark_tracks): the pipeline's functions on a small grid (nbval runs the notebook)."""

import numpy as np
import pandas as pd
import pytest

from causaleval.effects import estimators as E
from causaleval import plugins, report
from causaleval.effects import simulation as sim
from causaleval.metrics import ibm
from causaleval.studies import ibm_benchmark_tracks as S

BASE = {"n_y": 2, "n_z": 2, "prevalence": 0.35, "heterogeneity": 1.0}
VARY = {"n_yz": [1, 3], "effect": [0.5, 1.0]}
CENSORING = {"n_c": 1, "n_cy": 2, "censoring_on_treatment": True, "censoring_rate": 0.3}
NAMES = ["difference_of_means", "standardization", "aipw"]

PLUGIN = '''
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

from causaleval.effects.estimators import Fit, register_estimator


@register_estimator("ridge_t_learner")
def ridge_t_learner(X, z, y, w):
    seen = (w > 0).to_numpy()
    models = {t: Ridge(alpha=1.0).fit(X[seen & (z == t).to_numpy()], y[seen & (z == t).to_numpy()]) for t in (0, 1)}

    def predict(X_new):
        return pd.DataFrame({"y0": models[0].predict(X_new), "y1": models[1].predict(X_new)}, index=X_new.index)

    m = predict(X)
    return Fit(float((m["y1"] - m["y0"]).mean()), predict)
'''


@pytest.fixture(scope="module")
def covariates() -> pd.DataFrame:
    return sim.acic2016_covariates()


@pytest.fixture(scope="module")
def scaling(covariates):
    instances = S.track(S.dgps(BASE, VARY), covariates, [200, 400], 1, seed=0)
    results = S.run_estimates(instances, NAMES, ["none"], n_bootstrap=3, interval="normal", seed=0, n_jobs=1)
    return instances, results, S.statistics(instances, results)


@pytest.fixture(scope="module")
def censoring(covariates):
    instances = S.track(S.dgps({**BASE, **CENSORING}, VARY), covariates, [400], 1, seed=1)
    results = S.run_estimates(instances, NAMES, ["complete_case", "ipcw"], n_bootstrap=3, interval="percentile",
                              seed=0, n_jobs=1)
    return instances, results, S.statistics(instances, results)


def test_scores_per_size_and_aggregated_follow_the_scorer(scaling):
    instances, results, stats = scaling
    by_size = S.scores_by_size(stats)
    assert set(by_size.index.get_level_values("size")) == {200, 400}
    assert set(by_size.index.get_level_values("method")) == set(NAMES)
    agg = S.aggregate_scores(stats)
    truth = S.truth(instances)
    for name in NAMES:
        g = results[results["estimator"] == name].set_index("ufid")
        expected, _ = ibm.population_scores(ibm.population_statistics(truth, g[["effect_size", "li", "ri"]]))
        assert agg.loc[name, "rmse"] == pytest.approx(expected["rmse"], rel=1e-12)
        assert agg.loc[name, "coverage"] == pytest.approx(expected["coverage"], rel=1e-12)
    assert np.isnan(agg.loc["difference_of_means", "individual_rmse"])
    assert agg.loc["aipw", "individual_rmse"] > 0


def test_same_parameters_same_tables(covariates, scaling):
    instances, results, stats = scaling
    again = S.run_estimates(instances, NAMES, ["none"], n_bootstrap=3, interval="normal", seed=0, n_jobs=1)
    pd.testing.assert_frame_equal(S.aggregate_scores(S.statistics(instances, again)), S.aggregate_scores(stats))


def test_breakdown_by_meta_data(scaling):
    _, _, stats = scaling
    table = S.breakdown(stats, ["n_yz", "dgp_effect"])
    assert set(table.index.get_level_values("field")) == {"n_yz", "dgp_effect"}
    assert set(table.loc["n_yz"].index.get_level_values("value")) == {"1", "3"}


def test_round_trip_through_the_framework_files(covariates, scaling, censoring, tmp_path):
    for (instances, results, _), name in ((scaling, "scaling"), (censoring, "censoring")):
        trip = S.round_trip(instances, results, covariates, tmp_path, name)
        assert (trip["max |difference|"] < 1e-12).all()
        assert (trip["factual y read back, max |difference|"] < 1e-12).all()
        assert len(list((tmp_path / name).glob("*_cf.csv"))) == len(instances)
    assert (tmp_path / "x.csv").exists() and (tmp_path / "censoring_params.csv").exists()
    S.round_trip(*scaling[:2], covariates, tmp_path, "scaling")  # a rerun replaces its own files


def test_censoring_track_runs_both_variants(censoring):
    _, _, stats = censoring
    methods = set(stats["method"])
    assert {"aipw (complete_case)", "aipw (ipcw)"} <= methods and len(methods) == 6
    assert stats["pct_censored"].between(15, 45).all()


def test_claims_and_agreement(scaling, censoring):
    from causaleval import verdicts as V

    claims = S.claims(scaling[2], censoring[2], "aipw", seed=0)
    assert list(claims.columns) == list(V.CLAIM_COLUMNS)
    found = dict(zip(claims["claim"], claims["verdict"]))
    assert found["cic"] == V.PAPER_VS_ITSELF  # the paper's 0.95 against its own eq. 6
    assert {found[c] for c in ("aggregation", "coverage_hacking", "enormse_small_effects")} == {V.BY_CONSTRUCTION}
    assert found["scaling"] in V.EVIDENCE and found["censoring"] in V.EVIDENCE
    ours, reasons = S.our_values(4802, [200, 400], 400)
    table = S.agreement(report.paper_values(S.PAPER_VALUES), ours, reasons)
    assert table.loc["delta", "status"] == V.NOT_COMPARABLE  # the kit's own constant is no evidence
    for item in S.DATA_SETTINGS:  # issue 35: sizes drawn from ACIC 2016 covariates, not the paper's LBIDD
        assert table.loc[item, "status"] == V.NOT_COMPARABLE and "ACIC 2016" in table.loc[item, "reason"]
    assert table.loc["cic_reliable_interval", "status"] == V.DIFFERS and table.loc["cic_reliable_interval", "reason"]
    assert table.loc["cic_reliable_interval", "ours"] == pytest.approx(np.sqrt(2 / np.pi) / (2 * 1.959964), rel=1e-6)
    assert set(table["status"]) <= set(V.AGREEMENT)
    assert "Claims:" in S.summary(table, claims)


def test_exact_interval_cic_by_simulation():
    rng = np.random.default_rng(0)
    errors = rng.normal(size=200_000)  # an exact interval e_hat +- 1.96 around a N(e, 1) estimate
    assert np.mean(np.abs(errors) / (2 * 1.959964)) == pytest.approx(ibm.calibrated_cic(), rel=0.01)
    assert np.mean(np.abs(errors) <= 1.959964) == pytest.approx(0.95, abs=0.005)


def test_a_plugin_estimator_is_scored_beside_the_others(covariates, tmp_path):
    path = tmp_path / "my_estimators.py"
    path.write_text(PLUGIN)
    plugins.load([str(path)])
    try:
        instances = S.track(S.dgps(BASE, {"n_yz": [2]}), covariates, [300], 2, seed=2)
        # two worker processes: each imports the plugin before estimating
        results = S.run_estimates(instances, ["aipw", "ridge_t_learner"], ["none"], n_bootstrap=2,
                                  interval="normal", seed=0, plugins=[str(path)], n_jobs=2)
        agg = S.aggregate_scores(S.statistics(instances, results))
        assert list(agg.index) == ["aipw", "ridge_t_learner"]
        assert agg.loc["ridge_t_learner", "rmse"] < 0.5 and agg.loc["ridge_t_learner", "individual_rmse"] > 0
    finally:
        E.ESTIMATORS.pop("ridge_t_learner", None)


def test_bad_parameters_are_refused():
    good = dict(seed=0, sizes=[200, 400], n_instances=1, dgp_base=BASE, dgp_vary=VARY, censoring_dgp=CENSORING,
                censoring_size=400, censoring_instances=1, estimators=NAMES, reference="aipw", n_bootstrap=3,
                interval="normal", plugins=[], data_dir=None)
    S.check_params(good)
    with pytest.raises(ValueError, match="n_bootstrap"):
        S.check_params({**good, "n_bootstrap": 1})
    with pytest.raises(ValueError, match="estimators"):
        S.check_params({**good, "estimators": ["aipw", "magic"]})
    with pytest.raises(ValueError, match=r"unknown DGP field\(s\) \['n_confounders'\]"):
        S.check_params({**good, "dgp_vary": {"n_confounders": [1]}})
    with pytest.raises(ValueError, match=r"DGP 'n_yz=1,effect=0.5': prevalence = 1.5"):
        S.check_params({**good, "dgp_base": {**BASE, "prevalence": 1.5}})
    with pytest.raises(ValueError, match=r"parameter estimators: unknown \['magic'\]; registered: "):
        S.run_estimates([], ["magic"], ["none"], n_bootstrap=2, interval="normal", seed=0)


def test_size_larger_than_the_covariate_table_is_refused(covariates):
    with pytest.raises(ValueError, match=r"size 5000: expected 2..4802 \(the covariate table's rows"):
        S.track(S.dgps(BASE, {}), covariates, [1000, 5000], 1, seed=0)


def test_markdown_escapes_pipes_inside_cells():
    text = S.markdown(pd.DataFrame({"evidence": ["E|N(0,1)| = 0.8"], "value": [0.123456]}))
    assert "E\\|N(0,1)\\| = 0.8" in text and "0.1235" in text
    assert text.splitlines()[2].count("|") - text.splitlines()[2].count("\\|") == 3  # three column borders
