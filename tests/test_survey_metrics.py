"""Study 4's metrics: each against its cross-check or a hand-computed case, bad input, the IBM files."""

import numpy as np
import pandas as pd
import pytest
from causaleval import metrics as M
from causaleval.graphs import CausalGraph
from causaleval.metrics import ate_distribution as ad
from causaleval.metrics import counterfactual as cf
from causaleval.metrics import effect as ef
from causaleval.metrics import ibm, ranking, registry
from causaleval.effects.sampling import position_based_clicks, random_dag
from scipy import stats
from sklearn import metrics as skm

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ registry
def test_every_hand_case_agrees_and_the_two_kinds_of_check_are_counted_apart():
    table = registry.master_table({})
    hand = table.dropna(subset=["hand case expected"])
    assert hand["equals hand case"].astype(bool).all(), hand
    assert table.index.is_unique
    counts = registry.cross_check_counts(table)
    with_reference = sum(m.reference is not None for m in registry.REGISTRY)
    assert counts["checked on a hand-computed case"] == sum(m.hand is not None for m in registry.REGISTRY)
    assert counts["checked against an independent implementation"] == 0  # no worked examples given
    assert counts["with no check of either kind"] == len(table) - len(hand)
    # SHD has both kinds; counterfactual fairness only a hand case; a library check is named as such
    assert table.loc["SHD (edits)", "independent implementation"] == "gadjid.shd"
    assert table.loc["counterfactual fairness", "independent implementation"] == ""
    assert table.loc["SID", "independent implementation"] == ""
    assert with_reference == (table["independent implementation"] != "").sum()


def test_an_independent_implementation_that_disagrees_is_shown(monkeypatch):
    import dataclasses

    ex = {"MAE (ATE)": ("toy", ([1.0, 2.0], [1.0, 2.5]), {})}
    table = registry.master_table(ex)
    assert table.loc["MAE (ATE)", "equals independent"] == True  # noqa: E712
    assert table.loc["MAE (ATE)", "value"] == pytest.approx(0.25)
    wrong = dataclasses.replace(registry.REGISTRY[0], reference=lambda t, e: 0.3)
    monkeypatch.setattr(registry, "REGISTRY", (wrong, *registry.REGISTRY[1:]))
    bad = registry.master_table(ex)
    assert bad.loc["MAE (ATE)", "equals independent"] == False  # noqa: E712
    counts = registry.cross_check_counts(bad)
    assert counts["checked against an independent implementation"] == 1 and counts["agreeing with it"] == 0


def test_every_entry_has_a_cross_check_and_a_source():
    for m in registry.REGISTRY:
        assert m.reference is not None or m.hand is not None, m.name
        assert m.source and m.formula and m.cross_check


def test_lookup_by_the_surveys_names():
    assert [m.name for m in registry.lookup("KL-Divergence")] == ["KL divergence"]
    assert {m.name for m in registry.lookup("mse")} == {"MSE (ATE)", "adjacency MSE"}
    assert [m.name for m in registry.lookup("Ctf-DE")] == ["Ctf-DE"]
    assert ({m.name for m in registry.lookup("Refutation")}
            == {"placebo treatment", "random common cause", "data subset"})
    assert registry.lookup("Pairwise") == []


# ------------------------------------------------------------------ effect estimation
def test_ate_errors_match_scikit_learn():
    t, e = RNG.normal(size=20), RNG.normal(size=20)
    assert ef.mae_ate(t, e) == pytest.approx(skm.mean_absolute_error(t, e))
    assert ef.mse_ate(t, e) == pytest.approx(skm.mean_squared_error(t, e))
    assert ef.rmse_ate(t, e) == pytest.approx(skm.root_mean_squared_error(t, e))
    y1, y0 = RNG.normal(size=20), RNG.normal(size=20)
    assert ef.pehe(y1, y0, e) == pytest.approx(skm.mean_squared_error(y1 - y0, e))
    assert ef.pehe(y1, y0, e, root=True) == pytest.approx(np.sqrt(skm.mean_squared_error(y1 - y0, e)))


@pytest.mark.parametrize("args,message", [
    (([1.0, 2.0], [1.0]), "mismatched lengths"),
    (([1.0, np.nan], [1.0, 2.0]), "true_ate: 1 missing"),
    (([], []), "true_ate: empty"),
])
def test_effect_metrics_name_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        ef.mae_ate(*args)


def test_policy_risk_by_hand_and_when_it_cannot_be_estimated():
    # pi=1 for units 0, 1; followed by unit 0 (y 1); pi=0 for 2, 3; followed by unit 2 (y 0.5)
    assert ef.policy_risk([1, 1, 0, 0], [1, 0, 0, 1], [1.0, 0.0, 0.5, 0.25]) == pytest.approx(1 - (0.5 + 0.25))
    with pytest.raises(ValueError, match="no unit with treatment=1"):
        ef.policy_risk([1, 1, 0], [0, 0, 1], [1.0, 2.0, 3.0])


def test_uplift_and_qini_curves_match_scikit_uplift_and_hand_values():
    from sklift.metrics import qini_curve, uplift_curve

    n = 300
    t, s = RNG.integers(0, 2, n), RNG.normal(size=n)
    y = (RNG.normal(size=n) + t * (s > 0) > 0.5).astype(int)
    x, u = uplift_curve(y, s, t)
    assert np.allclose(ef.uplift_curve(y, t, s)[x], u)
    x, q = qini_curve(y, s, t)
    assert np.allclose(ef.qini_curve(y, t, s)[x], q)
    assert ef.uplift_coefficient(y, t, s) == pytest.approx(np.trapezoid(u, x))
    tied = np.round(s)  # ties: the area no longer depends on the order of tied units
    x, u = uplift_curve(y, tied, t)
    assert ef.uplift_coefficient(y, t, tied) == pytest.approx(np.trapezoid(u, x))
    assert ef.uplift_coefficient(y[::-1], t[::-1], tied[::-1]) == pytest.approx(np.trapezoid(u, x))
    x, q = qini_curve(y, tied, t)
    assert ef.qini_coefficient(y, t, tied) == pytest.approx(np.trapezoid(q, x))
    # by hand: scores order units (t=1,y=1), (t=0,y=0), (t=1,y=0)
    curve = ef.uplift_curve([1, 0, 0], [1, 0, 1], [3, 2, 1])
    assert curve.tolist() == [0.0, 1.0, 2.0, 1.5]  # U(1): no control unit yet, so its mean counts 0
    assert ef.qini_curve([1, 0, 0], [1, 0, 1], [3, 2, 1]).tolist() == [0.0, 1.0, 1.0, 1.0]


def test_granger_f_test_matches_statsmodels_and_t_test_matches_scipy():
    from statsmodels.tsa.stattools import grangercausalitytests

    x = RNG.normal(size=200)
    y = np.r_[0, 0.8 * x[:-1]] + RNG.normal(size=200)
    ours = ef.granger_f_test(y, x, 2)
    ref = grangercausalitytests(np.column_stack([y, x]), [2])[2][0]["ssr_ftest"]
    assert ours.statistic == pytest.approx(ref[0]) and ours.p_value == pytest.approx(ref[1])
    assert ours.df == (ref[3], ref[2])  # statsmodels gives (F, p, df_denom, df_num)
    a, b = RNG.normal(1, 1, 30), RNG.normal(0, 2, 40)
    st = stats.ttest_ind(a, b, equal_var=True)
    assert ef.unpaired_t_test(a, b).statistic == pytest.approx(st.statistic)
    assert ef.unpaired_t_test(a, b).p_value == pytest.approx(st.pvalue)
    with pytest.raises(ValueError, match="rss_restricted >= rss_unrestricted"):
        ef.f_test(1.0, 2.0, 1, 50)


def test_face_and_fact_by_hand():
    assert ef.face([3, 1, 2], [1, 1, 0]) == pytest.approx(4 / 3)
    assert ef.fact([3, 1, 2], [1, 1, 0], [1, 0, 1]) == pytest.approx(2.0)
    assert ef.fact([3, 1, 2], [1, 1, 0], [1, 0, 1], group=0) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="attribute: expected only 0 and 1"):
        ef.fact([1, 2], [0, 0], [1, 2])


# ------------------------------------------------------------------ IBM framework
def _files(tmp_path):
    truth = {"u1": pd.DataFrame({"y0": [0.0, 1.0], "y1": [1.0, 3.0]}, index=["a", "b"]),     # effect 1.5, n 2
             "u2": pd.DataFrame({"y0": [0.0, 0.0], "y1": [2.0, 2.0]}, index=["a", "b"]),     # effect 2, n 2
             "u3": pd.DataFrame({"y0": [0.0] * 4, "y1": [4.0] * 4}, index=list("abcd"))}  # effect 4, n 4
    ibm.write_instances(truth, tmp_path / "cf", kind="counterfactual")
    estimates = pd.DataFrame({"effect_size": [2.0, 2.0, 3.0], "li": [0.0, 1.0, 2.0], "ri": [4.0, 3.0, 3.5]},
                             index=pd.Index(["u1", "u2", "u3"], name="ufid"))
    ibm.write_population(estimates, tmp_path / "pop.csv")
    return truth, estimates


def test_population_scores_from_files_by_hand(tmp_path):
    _files(tmp_path)
    scores = ibm.score_population(tmp_path / "pop.csv", tmp_path / "cf")
    d = ibm.DELTA
    # weights n |D_n|: size 2 -> 4, size 4 -> 4
    e2 = np.sqrt(((1 - (2 + d) / (1.5 + d)) ** 2 + 0) / 2)
    e4 = abs(1 - (3 + d) / (4 + d))
    assert scores["enormse"] == pytest.approx(np.sqrt((4 * e2**2 + 4 * e4**2) / 8))
    assert scores["enormse_2"] == pytest.approx(e2) and scores["enormse_4"] == pytest.approx(e4)
    assert scores["rmse"] == pytest.approx(np.sqrt((4 * 0.125 + 4 * 1.0) / 8))
    assert scores["bias"] == pytest.approx((4 * 0.25 + 4 * -1.0) / 8)
    assert scores["coverage"] == pytest.approx(0.5)
    assert scores["cic"] == pytest.approx((4 * (0.5 / 4 + 0) / 2 + 4 * (1 / 1.5)) / 8)
    assert scores["encis"] == pytest.approx((4 * (4 / (1.5 + d) + 2 / (2 + d)) / 2 + 4 * 1.5 / (4 + d)) / 8)


def test_individual_scores_by_hand_and_file_round_trip(tmp_path):
    truth, _ = _files(tmp_path)
    est = {u: f.assign(y1=f["y1"] + 1.0) for u, f in truth.items()}  # every individual effect +1
    ibm.write_instances(est, tmp_path / "ind", kind="individual")
    assert ibm.read_individual(tmp_path / "ind" / "u1.csv").equals(est["u1"].rename_axis("sample_id"))
    scores = ibm.score_individual(tmp_path / "ind", tmp_path / "cf")
    assert scores["bias"] == pytest.approx(1.0) and scores["rmse"] == pytest.approx(1.0)
    d = ibm.DELTA
    u1 = np.mean([(1 - (2 + d) / (1 + d)) ** 2, (1 - (3 + d) / (2 + d)) ** 2])
    u2 = (1 - (3 + d) / (2 + d)) ** 2
    u3 = (1 - (5 + d) / (4 + d)) ** 2
    assert scores["enormse_2"] == pytest.approx(np.sqrt((u1 + u2) / 2))
    assert scores["enormse"] == pytest.approx(np.sqrt((4 * (u1 + u2) / 2 + 4 * u3) / 8))


@pytest.mark.parametrize("change,message", [
    (lambda e: e.assign(li=[5.0, 1.0, 2.0]), r"li > ri .* \['u1'\]"),
    (lambda e: e.assign(ri=[0.0, 3.0, 3.5]), r"zero-width interval .* \['u1'\]"),
    (lambda e: e.assign(effect_size=[np.nan, 2.0, 3.0]), r"missing values for ufids \['u1'\]"),
    (lambda e: e.drop(index="u2"), r"no row for ufids \['u2'\]"),
    (lambda e: pd.concat([e, e.iloc[:1].rename(index={"u1": "u9"})]), r"ufids \['u9'\] have no counterfactual"),
])
def test_population_refuses_garbage(tmp_path, change, message):
    _, estimates = _files(tmp_path)
    ibm.write_population(change(estimates), tmp_path / "bad.csv")
    with pytest.raises(ValueError, match=message):
        ibm.score_population(tmp_path / "bad.csv", tmp_path / "cf")


def test_a_zero_true_effect_is_scored_with_the_stabilization_constant():
    truth = pd.DataFrame({"effect": [0.0], "size": [10]}, index=["u"])
    est = pd.DataFrame({"effect_size": [0.1], "li": [0.0], "ri": [0.2]}, index=["u"])
    stats_ = ibm.population_statistics(truth, est)
    assert stats_["enormse"].iloc[0] == pytest.approx(1 - (0.1 + 1e-7) / 1e-7)
    assert stats_["encis"].iloc[0] == pytest.approx(0.2 / 1e-7)


def test_factual_files_round_trip_with_censored_outcomes(tmp_path):
    factual = pd.DataFrame({"z": [1, 0], "y": [2.5, np.nan]}, index=pd.Index(["a", "b"], name="sample_id"))
    (path,) = ibm.write_instances({"u1": factual}, tmp_path, kind="factual")
    assert path.name == "u1.csv"
    back = ibm.read_factual(path)
    assert back["z"].tolist() == [1, 0] and back.loc["a", "y"] == 2.5 and np.isnan(back.loc["b", "y"])


def test_files_with_duplicate_or_missing_ids_are_named(tmp_path):
    truth, _ = _files(tmp_path)
    (tmp_path / "dup.csv").write_text("ufid,effect_size,li,ri\nu1,1,0,2\nu1,1,0,2\n")
    with pytest.raises(ValueError, match=r"dup.csv: duplicate ufid values \['u1'\]"):
        ibm.read_population(tmp_path / "dup.csv")
    (tmp_path / "cols.csv").write_text("ufid,effect,li,ri\nu1,1,0,2\n")
    with pytest.raises(ValueError, match=r"cols.csv: missing columns \['effect_size'\]"):
        ibm.read_population(tmp_path / "cols.csv")
    est = {u: f.drop(index="b") for u, f in truth.items()}
    with pytest.raises(ValueError, match=r"individual predictions for u1: sample ids \['b'\] missing"):
        ibm.individual_statistics(truth, est)


# ------------------------------------------------------------------ structure learning
def _pair_of_graphs(seed):
    truth, learned = random_dag(7, 2.0, seed), random_dag(7, 2.0, seed + 50)
    return truth, learned.reorder(truth.nodes)


@pytest.mark.parametrize("seed", range(5))
def test_graph_metrics_match_their_libraries(seed):
    import gadjid

    truth, learned = _pair_of_graphs(seed)
    off = ~np.eye(7, dtype=bool)
    t, m = (truth.matrix == 1)[off], (learned.matrix == 1)[off]
    assert M.shd_pairs(truth, learned) == gadjid.shd(truth.to_gadjid(), learned.to_gadjid())[1]
    bt, bl = (truth.matrix != 0).astype(float), (learned.matrix != 0).astype(float)
    assert M.frobenius(truth, learned) == pytest.approx(np.linalg.norm(bt - bl, "fro"))
    assert M.adjacency_mse(truth, learned) == pytest.approx(skm.mean_squared_error(bt.ravel(), bl.ravel()))
    assert M.adjacency_mse(truth, learned, per="nodes") == pytest.approx(((bt - bl) ** 2).sum() / 7)
    assert M.precision(truth, learned) == pytest.approx(skm.precision_score(t, m, zero_division=0))
    assert M.recall(truth, learned) == pytest.approx(skm.recall_score(t, m, zero_division=0))
    scores = RNG.random((7, 7)).round(1)  # ties on purpose
    y, s = t.astype(int), scores[off]
    assert M.edge_roc_auc(truth, scores) == pytest.approx(skm.roc_auc_score(y, s))
    assert M.edge_pr_auc(truth, scores) == pytest.approx(skm.average_precision_score(y, s))


def test_shd_pairs_counts_a_reversal_once_and_edge_scores_are_checked():
    truth = CausalGraph.from_edges(["a->b", "b->c"])
    assert M.shd_pairs(truth, CausalGraph.from_edges(["b->a", "b->c"])) == 1
    assert M.shd_dag(truth, CausalGraph.from_edges(["b->a", "b->c"])) == 2
    with pytest.raises(ValueError, match="edge scores of shape"):
        M.edge_roc_auc(truth, np.zeros((2, 2)))
    frame = pd.DataFrame(np.zeros((2, 2)), index=["a", "b"], columns=["a", "b"])
    with pytest.raises(ValueError, match=r"no rows or columns for nodes \['c'\]"):
        M.edge_pr_auc(truth, frame)


def test_kl_divergence_matches_scipy_and_is_infinite_off_support():
    p, q = RNG.dirichlet(np.ones(4)), RNG.dirichlet(np.ones(4))
    assert M.kl_divergence(p, q) == pytest.approx(stats.entropy(p, q))
    assert M.kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf
    assert M.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(np.log(2))


# ------------------------------------------------------------------ ranking, counterfactuals
def test_ndcg_matches_scikit_learn_and_the_printed_variant_can_exceed_one():
    grades = RNG.integers(0, 5, (30, 8))
    positions = np.tile(np.arange(8, 0, -1), (30, 1))
    assert ranking.ndcg_at_k(grades, 5) == pytest.approx(skm.ndcg_score(2.0**grades - 1, positions, k=5))
    assert ranking.ndcg_at_k([[4, 4]], 2, variant="printed") == pytest.approx(15.0)


def test_map_matches_scikit_learn_at_full_length_and_printed_variant_by_hand():
    rel = RNG.integers(0, 2, (20, 6))
    rel[:, 0] = 1
    ref = np.mean([skm.average_precision_score(r, np.arange(6, 0, -1)) for r in rel])
    assert ranking.map_at_k(rel, 6) == pytest.approx(ref)
    assert ranking.map_at_k([[1, 0, 1, 0]], 4, variant="printed") == pytest.approx((1 + 1 / 2 + 2 / 3 + 2 / 4) / 4)
    assert ranking.map_at_k([[0, 0, 0]], 2) == 0.0


def test_k_larger_than_the_list_is_refused():
    with pytest.raises(ValueError, match="k=4 is larger than the 3 items ranked for query 1 of relevance"):
        ranking.ndcg_at_k([[1, 2, 3, 4], [1, 2, 3]], 4)
    with pytest.raises(ValueError, match="k=0"):
        ranking.arp_at_k([[1.0, 2.0]], 0)


def test_click_model_follows_eqs_33_34():
    clicks = sum(position_based_clicks(np.tile([4, 4, 0], (2000, 1)), s) for s in range(5)) / 5
    rates = clicks.mean(axis=0)
    # P(click) = p_i * (eps + (1 - eps) (2^r - 1) / 15): 1 * 1, 0.5 * 1, 1/3 * 0.1
    assert rates == pytest.approx([1.0, 0.5, 0.1 / 3], abs=0.01)
    with pytest.raises(ValueError, match="grades in 0..4"):
        position_based_clicks(np.array([[5, 1]]), 0)


def test_counterfactual_metrics_match_scipy_distances():
    from scipy.spatial.distance import cdist, pdist

    x, cfs = RNG.normal(size=5), RNG.normal(size=(4, 5))
    assert cf.proximity(x, cfs, p=2) == pytest.approx(cdist([x], cfs).mean())
    assert cf.diversity(cfs) == pytest.approx(pdist(cfs, "cityblock").mean())
    assert cf.sparsity([0, 1, 2], [[0, 1, 3], [1, 0, 2]]) == 1.5
    with pytest.raises(ValueError, match="diversity needs at least 2"):
        cf.diversity([[1.0, 2.0]])
    with pytest.raises(ValueError, match="original of shape"):
        cf.proximity([1.0, 2.0], [[1.0, 2.0, 3.0]])


# ------------------------------------------------------------------ ATE distributions (Emezue et al. 2023)
def test_wasserstein_matches_scipy():
    u, v = RNG.normal(size=17), RNG.normal(1, 2, size=9)
    assert ad.wasserstein(u, v) == pytest.approx(stats.wasserstein_distance(u, v))


def test_modes_regroup_with_isclose_and_density_filters_rare_modes():
    true, learned = [1.0, 1.0 + 1e-9, 2.0], [1.0, 3.0, 3.0, 3.0 + 1e-8]
    scores = ad.mode_precision_recall(true, learned)
    assert (scores.tp, scores.fp, scores.fn) == (1, 1, 1)
    learned = [1.0] * 19 + [5.0]  # 5.0 holds 5% of the sample
    assert ad.mode_precision_recall([1.0], learned).precision == 0.5
    assert ad.mode_precision_recall([1.0], learned, density=0.06).precision == 1.0
    with pytest.raises(ValueError, match="density=2"):
        ad.mode_precision_recall([1.0], [1.0], density=2)


# ------------------------------------------------------------- CIC, coverage (Shimoni et al. 2018) and Table III claims
def test_a_calibrated_interval_has_cic_near_0_2_not_0_95():
    from causaleval.studies import survey_metric_tables as S

    assert S.calibrated_cic() == pytest.approx(np.sqrt(2 / np.pi) / (2 * 1.959963984540054))
    assert S.calibrated_cic(0.5) == pytest.approx(np.sqrt(2 / np.pi) / (2 * stats.norm.ppf(0.75)))
    summary = S.interval_summary(S.interval_simulation(n=300, replications=300, n_bootstrap=[20, 200],
                                                       effect=1.0, seed=1))
    normal = summary.loc[("linear", "normal (1.96 SE)")]
    assert 0.92 <= normal["coverage"] <= 0.98 and abs(normal["CIC"] - S.calibrated_cic()) < 0.03
    assert summary.loc[("linear", "percentile bootstrap, 20 resamples"), "coverage"] < normal["coverage"]
    assert summary.loc[("misspecified", "normal (1.96 SE)"), "coverage"] < 0.85  # a biased estimator


def test_table3_claims_are_checked_against_the_ticks():
    from causaleval import report
    from causaleval.studies import survey_metric_tables as S

    raw = report.paper_values("cheng_table3")
    audit = S.table3_claim_audit(raw, report.paper_values("cheng_table3_claims"))
    assert (audit[S.TABLE3_COLUMN] == "inconsistent").sum() == 4
    assert "JustCause: PEHE" in audit.iloc[0]["Table III ticks"]
    claims = pd.DataFrame({"claim": ["x", "y"], "tools": ["CausalML", "Nope"], "items": ["RMSE", "RMSE"],
                           "expected": ["present", "absent"]})
    assert S.table3_claim_audit(raw, claims.iloc[:1]).iloc[0][S.TABLE3_COLUMN] == "consistent"
    with pytest.raises(ValueError, match=r"tools \['Nope'\] are not in Table III"):
        S.table3_claim_audit(raw, claims)


def test_crossfit_aipw_gives_influence_function_intervals_scored_beside_the_others():
    from causaleval.studies import survey_metric_tables as S

    instances = S.acic_instances([1, 2], [500], seed=0)
    first = S.crossfit_aipw(instances, max_iter=10, seed=0, n_jobs=1)
    assert first.equals(S.crossfit_aipw(instances, max_iter=10, seed=0, n_jobs=1))  # seeded folds and trees
    assert ((first["li"] < first["effect_size"]) & (first["effect_size"] < first["ri"])).all()
    table = S.interval_comparison(instances, first)
    row = table.loc["aipw, boosted, cross-fitted"]
    truth = S.acic_truth(instances)["effect"].to_numpy()
    covered = int(((first["li"] <= truth) & (truth <= first["ri"])).sum())
    assert row["instances covered"] == f"{covered} of 2" and row["IBM coverage"] == pytest.approx(covered / 2)
