"""Study 3: model alterations, their SID and SHD by hand, the table and claims, and the notebook on KDL data."""

import numpy as np
import pandas as pd
import pytest

from causaleval import verdicts
from causaleval import metrics, paths, report
from causaleval.datasets.consistent import over_specified, under_specified
from causaleval.graphs import CausalGraph
from causaleval.studies import over_under_specification as S
from test_study_software import _jdk_files

#: a consistent model: covariate C biases T1 and T2; T1 causes O1, T2 causes O2
CONSISTENT = CausalGraph.from_edges(["C->T1", "C->T2", "T1->O1", "T2->O2"], name="toy")
OUTCOMES = ["O1", "O2"]


def test_over_specification_adds_an_edge_into_every_outcome():
    over = over_specified(CONSISTENT, "T1", OUTCOMES)
    assert set(over.directed_edges()) == set(CONSISTENT.directed_edges()) | {("T1", "O2")}
    assert over_specified(over, "T1", OUTCOMES) == over  # edges already there stay


def test_under_specification_removes_every_outgoing_edge_and_keeps_incoming_ones():
    under = under_specified(CONSISTENT, "T2")
    assert set(under.directed_edges()) == {("C", "T1"), ("C", "T2"), ("T1", "O1")}
    assert under_specified(CONSISTENT, "O1") == CONSISTENT  # a sink has nothing to lose


def test_alterations_refuse_cycles_unknown_nodes_and_non_dags():
    with pytest.raises(ValueError, match="'C' -> 'T1' exists"):
        over_specified(CONSISTENT, "T1", ["C"])
    with pytest.raises(ValueError, match="directed cycle"):
        over_specified(CausalGraph.from_edges(["O->C", "C->T"]), "T", ["O"])  # T -> O -> C -> T
    with pytest.raises(ValueError, match="graph 'toy' has no node 'T3'"):
        over_specified(CONSISTENT, "T3", OUTCOMES)
    with pytest.raises(ValueError, match="own outcomes"):
        over_specified(CONSISTENT, "T1", ["T1"])
    with pytest.raises(ValueError, match="needs a DAG"):
        under_specified(CausalGraph.from_edges(["a - b"], name="cpdag"), "a")


def test_sid_and_shd_of_known_alterations_by_hand():
    """Over-specifying T1 adds T1 -> O2: SHD 1; every parent set of the altered DAG is still a
    valid adjustment set in the consistent DAG (O2's parents {T1, T2} block O2 <- T2 <- C), so
    SID 0. Under-specifying T1 removes T1 -> O1: SHD 1; O1 loses its parent, and the empty
    adjustment set leaves the back-door path O1 <- T1 open towards each of C, T1, T2, O2: SID 4."""
    over = over_specified(CONSISTENT, "T1", OUTCOMES)
    under = under_specified(CONSISTENT, "T1")
    assert metrics.shd_dag(CONSISTENT, over) == 1 and metrics.sid(CONSISTENT, over) == 0
    assert metrics.shd_dag(CONSISTENT, under) == 1 and metrics.sid(CONSISTENT, under) == 4


def test_sid_without_the_covariate_drops_the_pairs_it_confounds():
    """Without C, T1 and T2 are independent: O1's empty parent set still leaves O1 <- T1
    open towards T1 (pair (O1, T1)), but the paths O1 <- T1 <- C -> T2 (-> O2) are gone:
    SID 1 instead of 4. Over-specification stays at 0 either way."""
    under = S.sid_both_ways(CONSISTENT, under_specified(CONSISTENT, "T1"), "C")
    assert under == {"sid_with_covariate": 4.0, "sid_without_covariate": 1.0}
    over = S.sid_both_ways(CONSISTENT, over_specified(CONSISTENT, "T1", OUTCOMES), "C")
    assert over == {"sid_with_covariate": 0.0, "sid_without_covariate": 0.0}
    assert list(S.without(CONSISTENT, "C").nodes) == ["T1", "T2", "O1", "O2"]
    with pytest.raises(ValueError, match="has no node 'Z'"):
        S.without(CONSISTENT, "Z")


def test_sid_fit_counts_values_inside_the_papers_range():
    paper = report.paper_values("gentzel_supp_table2")
    scores = pd.DataFrame({"model": ["under-specify"] * 3 + ["over-specify"],
                           "sid_with_covariate": [9, 27, 11, 0], "sid_without_covariate": [4, 6, 1, 0]})
    fit = S.sid_fit(scores, paper)
    assert fit.loc["with covariate", "inside"] == "1 of 3" and fit.loc["without covariate", "inside"] == "2 of 3"
    assert fit.loc["with covariate", "paper's range"] == "2-10"


def test_ratio_by_treatment_shows_a_reversal_the_medians_hide():
    rows = [("d", 10, t, kind, 0, 1, tvd) for t, kind, tvd in [
        ("a", "over-specify", 0.2), ("a", "under-specify", 0.1), ("b", "over-specify", 0.2),
        ("b", "under-specify", 0.1), ("c", "over-specify", 0.01), ("c", "under-specify", 0.9)]]
    by_t = S.ratio_by_treatment(_scores(rows))
    assert by_t.set_index("treatment")["costs more"].to_dict() == {
        "a": "over-specification", "b": "over-specification", "c": "under-specification"}
    assert by_t.set_index("treatment").loc["c", "ratio"] == pytest.approx(90)
    assert S.reversal_summary(by_t).loc["d", "over costs more"] == 2


def test_subject_counts_are_clipped_to_the_domain_with_a_note():
    class _D:
        name, subjects = "jdk", 473
    counts, note = S.clip_subject_counts(_D, [100, 200, 500, 1000, 2000])
    assert counts == [100, 200, 473] and "[500, 1000, 2000] exceed its 473" in note
    assert S.clip_subject_counts(_D, [200, 100]) == ([100, 200], "")


def test_altered_dags_cover_every_treatment_and_both_types():
    altered = S.altered_dags(CONSISTENT, ["T1", "T2"], OUTCOMES)
    assert [(t, kind) for t, kind, _ in altered] == [
        ("T1", "over-specify"), ("T1", "under-specify"), ("T2", "over-specify"), ("T2", "under-specify")]


def _scores(rows):
    return pd.DataFrame(rows, columns=["domain", "subjects", "treatment", "model", "sid", "shd", "tvd"])


def test_table2_layout_statistics_and_paper_ratio():
    scores = _scores([("d", 10, "", "consistent", 0, 0, 0.0)] + [
        ("d", 10, t, kind, sid, shd, tvd) for t, kind, sid, shd, tvd in [
            ("a", "over-specify", 0, 1, 0.1), ("b", "over-specify", 0, 3, 0.3), ("c", "over-specify", 0, 2, 0.2),
            ("a", "under-specify", 4, 1, 0.5), ("b", "under-specify", 6, 2, 0.9), ("c", "under-specify", 5, 4, 0.6)]])
    table = S.table2(scores)
    assert list(table.index) == [("d", 10, "over-specify"), ("d", 10, "under-specify")]
    assert table.loc[("d", 10, "under-specify"), ("SID", "median")] == 5
    assert table.loc[("d", 10, "over-specify"), ("TVD", "max")] == 0.3
    assert table.loc[("d", 10, "under-specify"), ("SHD", "min")] == 1
    paper = S.paper_table2(report.paper_values("gentzel_supp_table2"))
    assert list(paper.columns) == list(table.columns)
    ratio = S.ratio_claim(table, paper).set_index("domain")["ratio"]
    assert ratio["JDK"] == pytest.approx(0.41 / 0.17)
    assert ratio["Postgres"] == pytest.approx(0.35 / 0.06)  # the paper's own medians: outside 2-5
    assert ratio["d"] == pytest.approx(0.6 / 0.2)


def _curve(rows):
    """A subject curve: (treatment, model, repeat, subjects, tvd) rows of domain d."""
    return pd.DataFrame([{"domain": "d", "treatment": t, "model": m, "repeat": r, "subjects": n, "tvd": v,
                          "tvd_truth": v} for t, m, r, n, v in rows])


def test_claims_decide_over_the_repeated_samples():
    rng = np.random.default_rng(0)
    rows = [(t, m, r, n, (0.3 if m == "under-specify" else 0.1) / np.sqrt(n / 100) + 0.01 * rng.random())
            for t in ("a", "b") for m in S.MODELS for r in range(6) for n in (100, 400)]
    curve = _curve(rows)
    scores = _scores([("d", 400, "a", "over-specify", 0, 1, 0.05), ("d", 400, "b", "over-specify", 0, 2, 0.05),
                      ("d", 400, "a", "under-specify", 3, 1, 0.15), ("d", 400, "b", "under-specify", 3, 1, 0.15)])
    ratio = pd.DataFrame([{"values": "paper", "domain": "X", "median TVD over": 0.1, "median TVD under": 0.3,
                           "ratio": 3.0, "ratio in range": True}])
    claims = S.claims(ratio, curve, scores, S.floor_shares(curve))
    assert set(claims["verdict"]) <= set(verdicts.VERDICTS)
    assert claims.loc["ratio_paper_table", "verdict"] == verdicts.PAPER_VS_ITSELF
    assert claims.loc["zero_sid_d", "verdict"] == verdicts.BY_CONSTRUCTION
    assert claims.loc["ratio_d", "verdict"] == verdicts.HOLDS  # 3x, inside the stated 2-5x
    assert claims.loc["under_costs_more_d", "verdict"] == verdicts.HOLDS
    assert claims.loc["over_tvd_d", "verdict"] == verdicts.HOLDS
    # under-specification cheaper than over-specification: the ratio claim fails, decided by its interval
    flipped = curve.assign(model=curve["model"].map({"over-specify": "under-specify", "under-specify": "over-specify"}))
    assert S.claims(ratio, flipped, scores, S.floor_shares(flipped)).loc["ratio_d", "verdict"] == verdicts.DOES_NOT_HOLD


def test_agreement_compares_only_the_papers_own_files():
    table = pd.concat({"ours": pd.DataFrame(
        [[0, 0, 0, 1, 3, 3, 0.04, 0.17, 0.21]], columns=pd.MultiIndex.from_tuples(
            [(m, s) for m in ("SID", "SHD", "TVD") for s in S.STATS]),
        index=pd.MultiIndex.from_tuples([("jdk", 473, "over-specify")], names=["domain", "subjects", "model type"]))},
        names=["values"])
    curve = _curve([("a", "over-specify", r, 473, v) for r, v in enumerate([0.04, 0.041, 0.039])])
    kdl = S.agreement(table, curve.assign(domain="jdk"), "kdl")
    assert kdl.set_index("item").loc["jdk over-specify SHD median", "status"] == verdicts.MATCHES
    collected = S.agreement(table, curve.assign(domain="jdk"), "collected")
    assert set(collected["status"]) == {verdicts.NOT_COMPARABLE}


def test_error_floor_recovers_bias_and_estimation_error():
    n = np.array([100, 400, 1600])
    means = pd.DataFrame({"domain": "d", "reference": "tvd", "subjects": np.tile(n, 2),
                          "model": np.repeat(["over-specify", "under-specify"], 3),
                          "mean": np.concatenate([2.0 / np.sqrt(n), 0.3 + 1.0 / np.sqrt(n)])})
    floors = S.error_floor(means).set_index("model")
    assert floors.loc["over-specify", "floor"] == pytest.approx(0, abs=1e-12)
    assert floors.loc["over-specify", "b"] == pytest.approx(2.0)
    assert floors.loc["under-specify", "floor"] == pytest.approx(0.3)
    assert floors.loc["under-specify", "floor share"] == pytest.approx(0.3 / 0.4)


@pytest.mark.parametrize("change,message", [
    ({"source": "csv"}, "parameter source = 'csv'"),
    ({"beta": -1}, "parameter beta = -1"),
    ({"smoothing": "kt"}, "parameter smoothing = 'kt'"),
    ({"n_repeats": 0}, "parameter n_repeats = 0"),
    ({"subject_counts": [100, 1]}, r"parameter subject_counts\[1\] = 1"),
    ({"level": 2}, "parameter level = 2"),
    ({"sid_covariate": "yes"}, "parameter sid_covariate = 'yes'"),
    ({"domains": ["nosuch"]}, r"unknown domain\(s\) \['nosuch'\] for source='collected'"),
    ({"source": "kdl", "domains": ["jdk"]}, r"no biasing covariate for domains \['jdk'\]"),
])
def test_bad_parameters_are_named(change, message):
    defaults = dict(source="collected", domains=["sqlite"], covariates={"sqlite": "num_joins"}, beta=1.0,
                    smoothing="bdeu", bins=3, n_repeats=2, subject_counts=[100], level=1, sid_covariate=False)
    with pytest.raises(ValueError, match=message):
        S.check_params({**defaults, **change})


def test_the_notebook_runs_unchanged_on_kdl_format_data(tmp_path):
    import papermill

    _jdk_files(tmp_path / "kdl")
    papermill.execute_notebook(
        str(paths.NOTEBOOKS / "03_over_under_specification.ipynb"), str(tmp_path / "03.ipynb"),
        cwd=str(paths.NOTEBOOKS), kernel_name="python3", progress_bar=False,
        parameters=dict(source="kdl", data_dir=str(tmp_path / "kdl"), domains=["jdk"],
                        outcomes={"jdk": ["num_bytecode_ops", "total_unit_test_time", "jar_file_size_bytes"]},
                        subject_counts=[20, 40, 100], n_repeats=3, n_jobs=1, output_dir=str(tmp_path / "figures"),
                        grid_samples=2))  # the readings grid's path (5 samples a reading at the defaults: 90 s)
    table = pd.read_csv(tmp_path / "figures" / "table2.csv", header=[0, 1], index_col=[0, 1, 2, 3])
    ours = table.loc["ours"]
    assert list(ours.index) == [("jdk", 80, "over-specify"), ("jdk", 80, "under-specify")]
    assert (ours.loc[("jdk", 80, "over-specify"), "SID"] == 0).all()
    assert (tmp_path / "figures" / "subjects_curve.png").exists()
    curve = pd.read_csv(tmp_path / "figures" / "subjects_curve.csv")
    assert sorted(curve["subjects"].unique()) == [20, 40, 80]  # 100 clipped to the 80 subjects
    claims = pd.read_csv(tmp_path / "figures" / "claims.csv").set_index("claim")
    assert "readings grid (" in claims.loc["ratio_jdk", "evidence"] and ", 2 samples each)" in claims.loc[
        "ratio_jdk", "evidence"]
