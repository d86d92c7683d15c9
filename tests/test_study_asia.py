import contextlib
import io

import numpy as np
import pandas as pd
import pytest

from causaleval import metrics as M
from causaleval.studies import asia_mag_nced as S

DEFAULTS = dict(network="asia", latent=["smoke"], second_network="sachs", n_samples=100, n_graphs=2,
                ks=[0.0, 0.5], table2_ks=[0.2], algorithms=["hc", "pc"], ci_test="fisher_z",
                alpha=0.05, counting="directed", seed=0, sensitivity_ci_tests=["chi_square"],
                sensitivity_alphas=[0.05], sensitivity_sample_sizes=[1000], sensitivity_graphs=1)


@pytest.mark.parametrize("change,msg", [
    ({"network": "asai"}, "parameter network = 'asai'"),
    ({"latent": ["smok"]}, r"parameter latent = \['smok'\]: \['smok'\] not node\(s\) of network 'asia'"),
    ({"algorithms": ["pcc"]}, r"algorithms\[0\] = 'pcc'"), ({"ks": [1.2]}, r"ks\[0\] = 1.2"),
    ({"n_graphs": 0}, "n_graphs = 0"), ({"counting": "both"}, "counting = 'both'"),
    ({"sensitivity_ci_tests": ["chi"]}, r"sensitivity_ci_tests\[0\] = 'chi'"),
    ({"alpha": 0.0}, r"parameter alpha = 0.0 \(float\): expected float in \(0, 1\)"),
    ({"sensitivity_alphas": [0.05, 1.0]},
     r"parameter sensitivity_alphas\[1\] = 1.0 \(float\): expected float in \(0, 1\)"),
    ({"sensitivity_graphs": 0}, "sensitivity_graphs = 0"),
])
def test_bad_parameters_are_named(change, msg):
    with pytest.raises(ValueError, match=msg):
        S.check_params({**DEFAULTS, **change})


def test_transformation_paths_and_their_nced():
    g = S.five_node_dag()
    assert len(g.directed_edges()) == 7
    path = S.transformation_path(g, "G_e", "G_u,2")
    assert path.names[0] == "G_e" and path.names[-1] == "G_u,2" and len(path) == 8
    v = M.nced(g, path, 0.2)
    assert np.allclose(np.diff(v), np.diff(v)[0])  # each step changes two entries: 1 -> k each
    assert v[-1] == pytest.approx(14 * 0.2 / 20)


def test_inequalities_of_section_3_3():
    table = S.figure3_inequalities(S.five_node_dag(), np.round(np.linspace(0, 1, 11), 1))
    row = table.set_index("relation").loc["nCED(G_u,2) < nCED(G_e)", "holds_for"]
    assert row == "k in [0, 0.4] (grid step 0.1)"


def test_random_paths_shuffle_with_the_seed():
    g = S.five_node_dag()
    a, b = S.random_path(g, "G*", "G_e", 1), S.random_path(g, "G*", "G_e", 2)
    assert not np.array_equal(a.matrices, b.matrices)
    assert np.array_equal(a.matrices[-1], b.matrices[-1]) and not a.matrices[-1].any()


def test_enumerations():
    assert len(S.all_dags(3)) == 25 and len(S.all_dags(4)) == 543
    assert len(S.all_universal_graphs(2)) == 9


def test_learn_graphs_and_tables_on_a_small_run():
    learned = S.learn_graphs("asia", ["hc", "pc"], latent=["smoke"], n_samples=500, n_graphs=2,
                             ci_test="fisher_z", alpha=0.05, seed=0)
    assert set(learned) == {"hc", "pc"} and len(learned["hc"]) == 2
    from causaleval.datasets import network_graph
    from causaleval.graphs import latent_projection

    mag = latent_projection(network_graph("asia"), ["smoke"])
    t1 = S.table1(mag, learned, [0.0, 0.5])
    hc = t1[t1.algorithm == "hc"]["value"]
    assert hc.nunique() == 1  # a DAG learner's nCED does not depend on k
    full = S.learn_graphs("asia", ["hc", "pc"], n_samples=500, n_graphs=2, ci_test="fisher_z",
                          alpha=0.05, seed=0)
    t2 = S.table2_scores(network_graph("asia"), full, [0.2])
    assert t2.set_index(["algorithm", "metric"]).loc[("pc", "F1"), "starred"]
    by = t2.set_index(["algorithm", "metric"])["value"]
    assert np.isnan(by[("pc", "SHD (DAG)")])
    assert by[("pc", "SHD (CPDAG, one per pair)")] <= by[("pc", "SHD (CPDAG)")]
    assert by[("hc", "SHD (DAG, one per pair)")] <= by[("hc", "SHD (DAG)")]


def test_sensitivity_table_on_a_tiny_sweep():
    from causaleval import report

    sens = S.sensitivity_table("asia", ["smoke"], "sachs", ["hc", "pc"], [0.0, 0.5], [0.2],
                               report.paper_values("rehak_table1"), report.paper_values("rehak_table2"),
                               ci_tests=["fisher_z", "chi_square"], alphas=[0.05], sample_sizes=[300],
                               n_graphs=1, seed=0)
    assert len(sens) == 4 and set(sens["reading"]) == {"kit", "causal-learn endpoint matrix"}
    assert sens[["Table 1 gap", "Table 2 gap", "starred-cell gap"]].notna().all().all()
    kit = sens[sens["reading"] == "kit"]
    assert kit["Table 2 gap"].nunique() == 2  # PC's graphs change with the test


def test_check_bounds_flags_a_value_outside_the_claim():
    import pandas as pd

    observed = pd.DataFrame({"metric": ["F1", "SHD (DAG)"], "observed_min": [0.0, 0.0],
                             "observed_max": [1.2, 12.0]})
    claimed = pd.DataFrame({"metric": ["F1", "SHD (DAG)"], "lower_bound": [0, 0],
                            "upper_bound": [1.0, np.nan]})
    assert S.check_bounds(observed, claimed)["within claimed bounds"].tolist() == [False, True]


def test_table2_display_marks_stars_and_blanks():
    import pandas as pd

    cmp = pd.DataFrame({"network": "asia", "algorithm": ["pc", "pc"], "metric": ["F1", "SHD (DAG)"],
                        "ours": [0.123, np.nan], "starred": [True, False], "paper": [0.06, np.nan]})
    table = S.table2_display(cmp)["asia"]
    assert table.loc[("ours", "F1"), "pc"] == "0.12*" and table.loc[("ours", "SHD (DAG)"), "pc"] == ""
    assert table.loc[("paper", "F1"), "pc"] == "0.06"


def test_agreement_summary_without_paper_values():
    """A rerun on another network has no paper values: the summary says so instead of failing."""
    t1 = pd.DataFrame({"algorithm": ["hc", "pc"], "k": [0.2, 0.2], "ours": [0.1, 0.2],
                       "paper": [np.nan, np.nan], "diff": [np.nan, np.nan], "sd": [0.01, 0.01]})
    t2 = pd.DataFrame({"metric": ["F1"], "ours": [0.5], "paper": [np.nan], "diff": [np.nan], "sd": [0.1]})
    t3 = pd.DataFrame({"within claimed bounds": [True, False]})
    beh = pd.DataFrame({"sensitive": [True], "paper sensitive": [True], "linear": [True],
                        "paper linear": [np.nan]})
    summary = S.agreement_summary(S.mark_spread(t1, 10), S.mark_spread(t2, 10), t3, beh)
    assert summary["Table 1"] == "the paper reports no values for these parameters"
    assert summary["Table 2: cells both report"] == "0"
    assert summary["Figure 6: paper statements confirmed"] == "1 of 1"
    assert summary["Table 3: metric rows whose observed values lie within the paper bounds"] == "1 of 2"


# ---------------------------------------------------------------- Table 1 ties
def _t1(ours, paper, ks=(0.4, 0.5), algs=("hc", "pc", "fci")):
    rows = [dict(algorithm=a, k=k, ours=ours[a][i], paper=paper[a][i])
            for a in algs for i, k in enumerate(ks)]
    return pd.DataFrame(rows)


def test_highest_by_k_keeps_every_tied_algorithm():
    """The paper's Table 1: all three tie at k = 0.4, PC and FCI (0.18) pass HC (0.17) at 0.5."""
    t1 = _t1({"hc": [0.21, 0.21], "pc": [0.129, 0.136], "fci": [0.113, 0.2149]},
             {"hc": [0.17, 0.17], "pc": [0.17, 0.18], "fci": [0.17, 0.18]})
    by_k = S.highest_by_k(t1).set_index("k")
    assert by_k.loc[0.4, "highest (paper)"] == ("hc", "pc", "fci")
    assert by_k.loc[0.5, "highest (paper)"] == ("pc", "fci")
    assert by_k.loc[0.5, "highest (ours)"] == ("hc", "fci")  # 0.2149 ties 0.21 at two decimals
    assert S.describe_highest(S.highest_by_k(t1), "paper") == (
        "hc, pc and fci tie at k = 0.4; pc and fci tie at k = 0.5")
    assert S.describe_highest(S.highest_by_k(t1), "ours") == (
        "hc alone at k = 0.4; hc and fci tie at k = 0.5")


def test_describe_highest_merges_consecutive_k():
    t1 = _t1({"hc": [0.3, 0.3, 0.3], "pc": [0.1, 0.2, 0.3]}, {"hc": [np.nan] * 3, "pc": [np.nan] * 3},
             ks=(0.0, 0.1, 0.2), algs=("hc", "pc"))
    by_k = S.highest_by_k(t1)
    assert S.describe_highest(by_k, "ours") == "hc alone at k = 0 to 0.1; hc and pc tie at k = 0.2"
    assert S.describe_highest(by_k, "paper") == "no values"


# ---------------------------------------------------------------- spread
def test_mark_spread_rules_by_hand():
    cmp = pd.DataFrame({"ours": [0.5, 0.5, 0.5], "sd": [0.1, 0.1, 0.0], "paper": [0.65, 0.75, np.nan]})
    out = S.mark_spread(cmp, n_graphs=10)
    # |diff| 0.15 <= 2 * 0.1 but > 2 * 0.1 * sqrt(2 / 10) = 0.089; 0.25 > 0.2; no paper value: NaN
    assert out["within 2 sd"].tolist()[:2] == [True, False] and np.isnan(out["within 2 sd"].iloc[2])
    assert out["within 2 se"].tolist()[:2] == [False, False]
    assert S.count_within(out, "within 2 sd") == (1, 2)
    assert S.mark_spread(cmp.assign(paper=[0.58, 0.75, np.nan]), 10)["within 2 se"].iloc[0]


# ---------------------------------------------------------------- the paper against itself
def test_paper_consistency_on_the_papers_own_numbers():
    from causaleval import report
    from causaleval.datasets import network_graph

    truths = {n: network_graph(n) for n in ("asia", "sachs")}
    table = S.paper_consistency(report.paper_values("rehak_table1"), report.paper_values("rehak_table2"), truths)
    def row(net, alg, check):
        (i,) = np.flatnonzero((table["network"] == net) & (table["algorithm"] == alg) & (table["check"] == check))
        return table.iloc[i]

    sachs = row("sachs", "hc", "nCED = SHD (DAG) / N(N-1), N = 11, reversal costs 2 in SHD")
    assert not sachs[S.FITS] and sachs["implied"].startswith("0.155")  # 17 / 110, printed 0.21
    assert row("sachs", "hc", "nCED between SHD / N(N-1) and 2 SHD / N(N-1), reversal costs 1 in SHD")[S.FITS]
    assert not row("asia and sachs", "pc", "different networks give different count-based rows")[S.FITS]
    roc = table[table["check"].str.startswith("ROC AUC")]
    assert len(roc) == 6 and roc[S.FITS].all()
    lines = table[table["check"].str.startswith("nCED a line")]
    assert lines[S.FITS].all() and (lines["kind"] == "the paper's definitions").all()


def test_paper_consistency_catches_a_planted_error():
    from causaleval.datasets import network_graph

    truths = {"asia": network_graph("asia")}
    paper1 = pd.DataFrame({"network": "asia", "algorithm": "pc", "k": [0.0, 0.1, 0.2, 0.3],
                           "value": [0.10, 0.12, 0.10, 0.12]})  # no line within +-0.005
    paper2 = pd.DataFrame({"network": "asia", "algorithm": "hc", "metric": ["SHD (DAG)", "nCED (k=0.2)"],
                           "value": [11, 0.20], "starred": False})  # 11 / 56 = 0.196: consistent
    table = S.paper_consistency(paper1, paper2, truths).set_index("check")
    assert not table.loc["nCED a line in k with slope >= 0 (eq. 7)", S.FITS]
    assert table.loc["nCED a line in k with slope >= 0 (eq. 7)", "misses_by"] == pytest.approx(0.005, abs=1e-6)
    assert table.loc["nCED = SHD (DAG) / N(N-1), N = 8, reversal costs 2 in SHD", S.FITS]


# ---------------------------------------------------------------- SHD variants
def test_shd_cpdag_pairs_by_hand():
    from causaleval.graphs import CausalGraph

    collider = CausalGraph.from_edges(["a->b", "c->b"])  # its CPDAG keeps both arrows
    chain = CausalGraph.from_edges(["a->b", "b->c"])  # CPDAG a - b - c
    assert M.shd_cpdag(collider, chain) == 6  # eq. (5) term by term: 3 per pair
    assert M.shd_cpdag_pairs(collider, chain) == 2  # one per pair
    assert M.shd_cpdag_pairs(chain, CausalGraph.from_edges(["c->b", "b->a"])) == 0  # same class
    missing = CausalGraph.from_edges(["a->b"], nodes=["a", "b", "c"])
    assert M.shd_cpdag_pairs(collider, missing) == 2  # c -> b missing, a -> b now undirected
    assert M.shd_cpdag(collider, missing) == 4  # 1 (missing c -> b) + 3 (a -> b against a - b)
    assert M.shd_cpdag_pairs(chain, [chain, collider]).tolist() == [0, 2]


def test_shd_cpdag_pairs_agrees_with_gadjid_on_cpdags():
    import gadjid

    from causaleval.graphs import to_cpdag
    from causaleval.effects.sampling import random_dag

    for seed in range(20):
        t, g = random_dag(6, 2.0, seed), random_dag(6, 2.0, seed + 100)
        expected = gadjid.shd(to_cpdag(t).to_gadjid(), to_cpdag(g).to_gadjid())[1]
        assert M.shd_cpdag_pairs(t, g) == expected


def test_shd_fit_marks_the_closest_variant():
    t2 = pd.DataFrame({"network": "x", "algorithm": ["pc", "pc"],
                       "metric": ["SHD (CPDAG)", "SHD (CPDAG, one per pair)"],
                       "ours": [48.0, 21.9], "paper": [10.0, np.nan]})
    fit = S.shd_fit(t2)
    assert fit.loc[fit["closest"], "variant"].tolist() == ["SHD (CPDAG, one per pair)"]


# ---------------------------------------------------------------- readings
def test_causallearn_matrix_is_causal_learns_own_matrix():
    """Our reading of causal-learn's G.graph, rebuilt from the kit's graph, equals G.graph
    itself (circles 2 read as -1) on a PC and an FCI result."""
    from causallearn.search.ConstraintBased.FCI import fci
    from causallearn.search.ConstraintBased.PC import pc

    from causaleval.graphs import CausalGraph, GraphBatch

    rng = np.random.default_rng(0)
    a, c, d = rng.normal(size=(3, 2000))
    b = a + c + 0.5 * rng.normal(size=2000)
    e = b + 0.5 * rng.normal(size=2000)
    x = np.c_[a, b, c, d + a, e]
    with contextlib.redirect_stdout(io.StringIO()):
        results = [pc(x, 0.01, "fisherz", show_progress=False).G,
                   fci(x, "fisherz", 0.01, show_progress=False)[0]]
    for g in results:
        kit = CausalGraph.from_causallearn(g)
        ours = S.causallearn_matrix(GraphBatch(kit.nodes, kit.matrix[None])).matrices[0]
        assert np.array_equal(ours, np.where(g.graph == 2, -1, g.graph))
        assert (g.graph == 1).any() and (g.graph == -1).any()


def test_read_graphs_leaves_other_libraries_alone():
    from causaleval.graphs import CausalGraph, GraphBatch

    g = CausalGraph.from_edges(["a->b", "b-c"])
    batch = GraphBatch(g.nodes, g.matrix[None])
    assert S.read_graphs("hc", batch, "transposed")[0] is batch
    assert S.read_graphs("pc", batch, "undirected as both directions") == (batch, "undirected")
    t = S.read_graphs("pc", batch, "transposed")[0].matrices[0]
    assert t[g.index("b"), g.index("a")] == 1 and t[g.index("a"), g.index("b")] == 0
    cl = S.read_graphs("pc", batch, "causal-learn endpoint matrix")[0].matrices[0]
    assert cl[g.index("a"), g.index("b")] == -1 and cl[g.index("b"), g.index("a")] == 1
    with pytest.raises(ValueError, match="reading 'upside down'"):
        S.read_graphs("pc", batch, "upside down")


def test_closest_settings_per_reading():
    sens = pd.DataFrame({"ci_test": ["a", "b", "a", "b"], "alpha": 0.05, "n_samples": 10,
                         "reading": ["kit", "kit", "cl", "cl"], "Table 1 gap": [0.1, 0.2, 0.3, 0.0],
                         "Table 2 gap": [0.1, 0.05, 0.0, 0.1]})
    best = S.closest_settings(sens).set_index("reading")
    assert best.loc["kit", "ci_test"] == "a" and best.loc["cl", "ci_test"] == "b"
    assert best.loc["kit", "gap sum"] == pytest.approx(0.2)


def test_table2_scores_leave_out_graphs_with_a_directed_cycle():
    from causaleval.graphs import CausalGraph, GraphBatch

    truth = CausalGraph.from_edges(["a->b", "b->c"])
    cyclic = CausalGraph.from_edges(["a->b", "b->c", "c->a"])
    pdag = CausalGraph.from_edges(["a->b", "b-c"])
    batch = GraphBatch.from_graphs([cyclic, pdag], truth.nodes)
    t2 = S.table2_scores(truth, {"pc": batch}, [0.2]).set_index("metric")
    assert t2.loc["SHD (CPDAG)", "graphs"] == 1 and t2.loc["F1", "graphs"] == 2
    assert t2.loc["SHD (CPDAG)", "value"] == M.shd_cpdag(truth, pdag)
    assert np.isnan(t2.loc["SHD (DAG)", "value"]) and t2.loc["SHD (DAG)", "graphs"] == 0


def test_sweep_reuses_the_main_runs_graphs_and_gives_the_same_table(monkeypatch):
    """Issue 24: where a sweep setting coincides with the main run's, its graphs are taken
    from the main run (fewer learner calls), and the table does not change."""
    from causaleval import report
    from causaleval.studies.asia_mag_nced import sweep

    args = ("asia", ["smoke"], "sachs", ["hc", "pc"], [0.0, 0.5], [0.2],
            report.paper_values("rehak_table1"), report.paper_values("rehak_table2"))
    kw = dict(ci_tests=["chi_square", "fisher_z"], alphas=[0.05], sample_sizes=[300], n_graphs=1, seed=0)
    calls = []
    learn = sweep.learn_one
    monkeypatch.setattr(sweep, "learn_one", lambda **k: calls.append(k["learner"]) or learn(**k))
    fresh = S.sensitivity_table(*args, **kw)
    n_fresh = len(calls)
    common = dict(n_samples=300, n_graphs=2, ci_test="chi_square", alpha=0.05, seed=0)
    main = S.MainRun({"mag": S.learn_graphs("asia", ["hc", "pc"], latent=["smoke"], **common),
                      **{net: S.learn_graphs(net, ["hc", "pc"], **common) for net in ("asia", "sachs")}},
                     "chi_square", 0.05, 300, 2)
    calls.clear()
    reused = S.sensitivity_table(*args, **kw, main=main)
    # hc (one job per network) and pc under chi_square come from the main run: only pc under fisher_z is learned
    assert n_fresh == 9 and len(calls) == 3 and set(calls) == {"pc"}
    pd.testing.assert_frame_equal(fresh, reused)


def test_study1_on_own_network_with_sachs_has_no_closest_setting(tmp_path):
    """Issue 25 item 1: one's own BIF network with the default second network (sachs) has no
    Table 1 values in the paper, so no setting has a gap sum; closest_settings returned a
    KeyError there, it now returns an empty table."""
    import shutil

    from causaleval import paths, report

    bif = shutil.copy(paths.ROOT / "data" / "examples" / "sprinkler.bif", tmp_path / "net.bif")
    sens = S.sensitivity_table(str(bif), ["cloudy"], "sachs", ["hc"], [0.0, 0.5], [0.2],
                               report.paper_values("rehak_table1"), report.paper_values("rehak_table2"),
                               ci_tests=["chi_square"], alphas=[0.05], sample_sizes=[200], n_graphs=1, seed=0)
    assert sens["Table 1 gap"].isna().all() and sens["Table 2 gap"].notna().all()  # sachs is in Table 2
    best = S.closest_settings(sens)
    assert best.empty and "gap sum" in best.columns


def test_prc_readings_by_hand_and_on_the_papers_rows():
    """Each reading of the PRC AUC on a hand-made row, and the paper's own Table 2: the kit's
    step-wise reading is the first, and the check counts what each reading reproduces."""
    from causaleval import report
    from causaleval.datasets import network_graph

    r, p, pi = np.array(0.5), np.array(0.8), 0.1
    got = {k: float(f(r, p, pi)) for k, f in S.PRC_READINGS.items()}
    assert got == pytest.approx({"step-wise": 0.45, "trapezoid from (0, 1)": 0.45 + 0.225,
                                 "trapezoid from (0, P)": 0.4 + 0.225, "interpolated": 0.45})
    assert list(S.PRC_READINGS)[0] == "step-wise"
    paper2 = report.paper_values("rehak_table2")
    table = S.prc_readings(paper2, {n: network_graph(n) for n in paper2["network"].unique()})
    assert len(table) == 6 * len(S.PRC_READINGS) and table[S.FITS].dtype == bool
    support = S.prc_support(table, S.prc_figure6_linear(S.five_node_dag(), 0))
    assert (support["agree"] <= support["rows"]).all()
    # the step-wise reading is linear in R when P stays 1 (no false positive along TP -> FN)
    assert support.set_index("reading").loc["step-wise", "linear along Figure 6(a)"]
    assert not support.set_index("reading").loc["trapezoid from (0, 1)", "linear along Figure 6(a)"]


def test_prc_paragraph_is_generated_from_the_support_table():
    from causaleval.studies.asia_mag_nced.closing import _prc_paragraph

    prc = pd.DataFrame({"reading": ["step-wise", "other"], "rows": [6, 6], "agree": [6, 1],
                        "largest_miss": [0.0, 0.1], "linear along Figure 6(a)": [True, False]})
    text = _prc_paragraph(prc)
    assert "every row under step-wise" in text and "is true under other" in text
    text = _prc_paragraph(prc.assign(agree=[2, 1]))
    assert "no reading reproduces every row" in text


def test_claims_report_both_reversal_readings_together_in_the_vocabulary():
    """Issue 26: a reversal costing 2 or 1 in SHD are two readings of one relation; the claims
    table reports them in one row (neither alone), and every verdict is the kit's vocabulary."""
    from causaleval import report, verdicts
    from causaleval.datasets import network_graph

    truths = {n: network_graph(n) for n in ("asia", "sachs")}
    consistency = S.paper_consistency(report.paper_values("rehak_table1"), report.paper_values("rehak_table2"),
                                      truths)
    t1 = pd.DataFrame({"algorithm": ["hc", "pc"], "k": 0.2, "ours": [0.1, 0.2], "paper": np.nan})
    shd = pd.DataFrame(columns=["network", "algorithm", "column", "paper", "variant", "ours", "distance", "closest"])
    beh = pd.DataFrame({"panel": ["(a) TP -> FN"] * 2, "metric": ["F1", "PRC AUC"], "sensitive": [True, True],
                        "linear": [False, True], "paper sensitive": [True, True], "paper linear": [np.nan, False]})
    prc = pd.DataFrame({"reading": ["step-wise", "trapezoid"], "linear along Figure 6(a)": [True, False]})
    t3 = pd.DataFrame({"metric": ["F1", "SHD (DAG)"], "lower_bound": 0, "upper_bound": [1.0, np.nan],
                       "observed_min": 0.0, "observed_max": [1.0, 9.0], "pairs": 4, "graphs": "all DAGs",
                       "within claimed bounds": True})
    table = S.claims(t1, consistency, shd, beh, t3, 10, prc)
    assert set(table["verdict"]) <= set(verdicts.VERDICTS)
    prc_linear = table.loc["figure6_a_PRC AUC_linear"]  # issue 35: true under one reading, false under the other
    assert prc_linear["verdict"] == verdicts.DEPENDS_ON_READING and "true under trapezoid" in prc_linear["evidence"]
    reversal = table[table["statement"].str.contains("either reading of a reversal")]
    assert len(reversal) == 2  # asia hc and sachs hc, one row each
    sachs = reversal[reversal["statement"].str.contains("sachs")].iloc[0]
    assert ("reversal costs 2 in SHD: disagree" in sachs["evidence"]
            and "reversal costs 1 in SHD: agree" in sachs["evidence"])
    assert not table["statement"].str.contains("reversal costs").any()  # never one reading alone
    assert table.loc["table3_SHD (DAG)", "verdict"] == verdicts.BY_CONSTRUCTION
    assert table.loc["table3_F1", "verdict"] == verdicts.BY_CONSTRUCTION  # a ratio: in [0, 1] by its definition


def test_table1_order_is_tested_and_a_tie_decides_nothing():
    """Issue 35: Table 1's order by nCED rests on Welch tests (Holm), not printed means: learners
    apart at printed precision but within their spread leave the claim undecided."""
    from causaleval import verdicts
    from causaleval.studies.asia_mag_nced.claims import _table1_highest

    paper = {("hc", 0.0): 0.17, ("pc", 0.0): 0.12, ("hc", 0.5): 0.17, ("pc", 0.5): 0.18}
    rows = [{"algorithm": a, "k": k, "paper": v} for (a, k), v in paper.items()]
    close = pd.DataFrame(rows).assign(ours=[0.21, 0.13, 0.21, 0.19], sd=0.1)
    assert _table1_highest(close, 10)["verdict"] == verdicts.UNDECIDED
    apart = close.assign(ours=[0.21, 0.13, 0.30, 0.10], sd=0.01)
    assert _table1_highest(apart, 10)["verdict"] == verdicts.DOES_NOT_HOLD  # hc far above pc at k = 0.5
    agreeing = close.assign(ours=[0.21, 0.13, 0.10, 0.30], sd=0.01)
    assert _table1_highest(agreeing, 10)["verdict"] == verdicts.HOLDS


def test_committed_tables_use_only_the_vocabulary():
    from causaleval import paths, verdicts

    folder = paths.ROOT / "figures" / S.STUDY
    assert set(pd.read_csv(folder / "claims.csv")["verdict"]) <= set(verdicts.VERDICTS)
    assert set(pd.read_csv(folder / "agreement.csv")["status"]) <= set(verdicts.AGREEMENT)
