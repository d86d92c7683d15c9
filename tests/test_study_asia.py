import numpy as np
import pytest

from causaleval import metrics as M
from causaleval.studies import asia_mag_nced as S

DEFAULTS = dict(network="asia", latent=["smoke"], second_network="sachs", n_samples=100, n_graphs=2,
                ks=[0.0, 0.5], table2_ks=[0.2], algorithms=["hc", "pc"], ci_test="fisher_z",
                alpha=0.05, counting="directed", seed=0)


@pytest.mark.parametrize("change,msg", [
    ({"network": "asai"}, "network='asai'"), ({"latent": ["smok"]}, "no node 'smok'"),
    ({"algorithms": ["pcc"]}, "unknown learner 'pcc'"), ({"ks": [1.2]}, r"k=1.2 lies outside \[0, 1\]"),
    ({"n_graphs": 0}, "n_graphs=0"), ({"counting": "both"}, "counting='both'"),
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
    assert np.isnan(t2.set_index(["algorithm", "metric"]).loc[("pc", "SHD (DAG)"), "value"])


def test_paper_prc_from_table2_by_hand():
    import pandas as pd

    paper = pd.DataFrame({"network": "asia", "algorithm": "x", "metric": ["TPR", "F1", "PRC AUC"],
                          "value": [0.5, 0.5, 0.3]})
    row = S.paper_prc_from_table2(paper).iloc[0]
    # F1 = R = 0.5 gives P = 0.5; Asia has 8 edges on 8 nodes: pi = 8 / 56
    assert row["implied by TPR, F1"] == pytest.approx(round(0.25 + 0.5 * 8 / 56, 3))


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
    import pandas as pd

    t1 = pd.DataFrame({"algorithm": ["hc", "pc"], "k": [0.2, 0.2], "ours": [0.1, 0.2],
                       "paper": [np.nan, np.nan], "diff": [np.nan, np.nan]})
    t2 = pd.DataFrame({"metric": ["F1"], "ours": [0.5], "paper": [np.nan], "diff": [np.nan]})
    t3 = pd.DataFrame({"within claimed bounds": [True]})
    beh = pd.DataFrame({"sensitive": [True], "paper sensitive": [True], "linear": [True],
                        "paper linear": [np.nan]})
    summary = S.agreement_summary(t1, t2, t3, beh)
    assert summary["Table 1"] == "the paper reports no values for these parameters"
    assert summary["Table 2: cells both report"] == 0
    assert summary["Figure 6: paper statements confirmed, of those tested"] == (1, 1)
