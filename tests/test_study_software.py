"""Study 2's pipeline: parameter checks, and the notebook unchanged on KDL-format data."""

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval import paths, verdicts
from causaleval.studies import software_tvd as S

DEFAULTS = dict(source="collected", domains=["sqlite"], covariates={"sqlite": "num_joins"},
                learners=["pc", "ges", "mmhc"], ground_truth_learners=["pc"], cpdag_rule="extension",
                beta=1.0, n_trials=1, bins=3, n_dags=2, n_nodes=5, n_samples=100, n_sensitivity=0)


@pytest.mark.parametrize("change,message", [
    ({"source": "xlsx"}, "parameter source = 'xlsx'"),
    ({"learners": ["pc", "lingam"]}, r"parameter learners\[1\] = 'lingam'"),
    ({"beta": -0.5}, "parameter beta = -0.5"),
    ({"cpdag_rule": "any"}, "parameter cpdag_rule = 'any'"),
    ({"n_trials": 0}, "parameter n_trials = 0"),
    ({"n_sensitivity": -1}, "parameter n_sensitivity = -1"),
    # issue 25: 1-3 settings gave no defined interval (1 failed in scipy.stats.pearsonr after minutes)
    ({"n_sensitivity": 1}, "parameter n_sensitivity = 1 .*other than 1, 2, 3"),
    ({"n_sensitivity": 3}, "parameter n_sensitivity = 3 .*other than 1, 2, 3"),
    ({"domains": ["nosuch"]},
     r"unknown domain\(s\) \['nosuch'\] for source='collected'; known: \['postgres', 'sqlite'\]"),
    ({"source": "kdl", "domains": ["jdk", "nosuch"]}, r"unknown domain\(s\) \['nosuch'\] for source='kdl'"),
    ({"source": "kdl", "domains": ["jdk", "postgres"]}, r"no biasing covariate for domains \['jdk', 'postgres'\]"),
    ({"outcomes": {"sqlit": ["runtime_ms"]}}, r"parameter outcomes: \['sqlit'\] name no domain"),
    ({"outcomes": {"sqlite": []}}, r"parameter outcomes: no outcome listed for \['sqlite'\]"),
])
def test_bad_parameters_are_named(change, message):
    with pytest.raises(ValueError, match=message):
        S.check_params({**DEFAULTS, **change})


def test_missing_domain_and_column_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no finished collection"):
        S.load_domain("collected", "mysql", covariate="c", outcomes=None, bins=3, beta=1.0)
    with pytest.raises(ValueError, match=r"columns \['nope'\] not in the data"):
        S.load_domain("collected", "sqlite", covariate="nope", outcomes=None, bins=3, beta=1.0)


def _jdk_files(folder, n_subjects=80, seed=0):
    """A KDL JDK file with real effects: debug -> bytecode, obfuscate -> jar size, gc -> test time."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_subjects):
        javadocs, size = int(rng.integers(0, 6)), float(rng.lognormal(8, 1))
        for debug, obfuscate, optimize, gc in itertools.product((0, 1), repeat=4):
            rows.append({"repo_name": f"r{s}", "trial": 0, "source_ncss": size, "test_classes": 3,
                         "test_functions": 10, "test_ncss": 50, "test_javadocs": javadocs,
                         "debug": debug, "obfuscate": obfuscate, "optimize": optimize, "parallelgc": gc,
                         "num_bytecode_ops": size * (1 + 0.3 * debug) * rng.lognormal(0, 0.05),
                         "total_unit_test_time": (2 + gc) * rng.lognormal(0, 0.3),
                         "allocated_bytes": size * 10 * rng.lognormal(0, 0.2),
                         "jar_file_size_bytes": size * (1 - 0.2 * obfuscate) * rng.lognormal(0, 0.05),
                         "compile_time_ms": 300 * rng.lognormal(0, 0.2)})
    (folder / "jdk").mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "jdk" / "results.csv", index=False)


def test_the_notebook_runs_unchanged_on_kdl_format_data(tmp_path, monkeypatch):
    import papermill

    monkeypatch.setenv("CAUSALEVAL_CACHE", str(tmp_path / "cache"))  # the kernel inherits it
    _jdk_files(tmp_path / "kdl")
    out = tmp_path / "02.ipynb"
    papermill.execute_notebook(
        str(paths.NOTEBOOKS / "02_software_tvd.ipynb"), str(out), cwd=str(paths.NOTEBOOKS),
        kernel_name="python3", progress_bar=False,
        parameters=dict(source="kdl", data_dir=str(tmp_path / "kdl"), domains=["jdk"],
                        outcomes={"jdk": ["num_bytecode_ops", "total_unit_test_time", "jar_file_size_bytes"]},
                        n_trials=2, learners=["pc", "mmhc"], ground_truth_learners=["pc"],
                        n_dags=3, n_nodes=5, n_samples=400, n_sensitivity=4, n_jobs=1,
                        output_dir=str(tmp_path / "figures")))
    assert (tmp_path / "figures" / "figure1.png").exists()
    assert (tmp_path / "figures" / "claims.csv").exists()
    related = pd.read_csv(tmp_path / "figures" / "related_pairs.csv")
    found = set(related.loc[related["related"], ["treatment", "outcome"]].itertuples(index=False, name=None))
    assert {("debug", "num_bytecode_ops"), ("obfuscate", "jar_file_size_bytes"),
            ("parallelgc", "total_unit_test_time")} <= found
    means = pd.read_csv(tmp_path / "figures" / "figure1_mean_tvd.csv")
    assert set(means["domain"]) == {"jdk"} and means[["empirical", "synthetic-pc"]].notna().all().all()


def test_structural_hamming_equals_gadjid_on_cpdags():
    import gadjid

    from causaleval.graphs import CausalGraph, to_cpdag
    from causaleval.effects.sampling import random_dag

    for seed in range(15):
        truth = random_dag(8, 2.0, seed)
        guess = random_dag(8, 2.0, seed + 100)
        expected = gadjid.shd(to_cpdag(truth).to_gadjid(), to_cpdag(guess).to_gadjid())[1]
        assert S.structural_hamming(truth, guess) == expected
    pc_like = CausalGraph.from_edges(["a<->b", "b - c"])
    assert S.structural_hamming(CausalGraph.from_edges(["a->b", "c->b"]), pc_like) == 2


def test_fisher_interval_and_strength_classes():
    low, high = verdicts.correlation_interval(0.64, 30)
    assert (round(low, 2), round(high, 2)) == (0.36, 0.81)
    assert S.strong(low, high) == "undecided"  # straddles 0.7: neither strong nor not
    assert S.strong(*verdicts.correlation_interval(0.95, 30)) == "holds"
    assert S.weak(*verdicts.correlation_interval(0.0, 200)) == "holds"
    middle = verdicts.correlation_interval(0.5, 300)
    assert S.strong(*middle) == S.weak(*middle) == "does not hold"
    assert S.weak(*verdicts.correlation_interval(0.1, 30)) == "undecided"  # 30 networks cannot show weakness


def _fig2(shd, sid, tvd):
    """A Figure 2 table from per-learner lists of values over the same networks."""
    rows = [{"dag": i, "learner": learner, "shd": shd[learner][i], "sid": sid[learner][i], "tvd": tvd[learner][i]}
            for learner in shd for i in range(len(shd[learner]))]
    return pd.DataFrame(rows)


def test_pairwise_calls_and_the_headline_verdict():
    n = 12
    low, high = list(range(n)), list(range(10, 10 + n))
    same = _fig2({"a": low, "b": high}, {"a": low, "b": high}, {"a": low, "b": high})
    calls = S.pairwise_calls(S.measure_long(same), ["measure"], "value", "dag")
    assert calls["call"].tolist() == ["a < b"] * 3
    assert S.headline(calls)[0] == "does not hold"
    tie = _fig2({"a": low, "b": high}, {"a": low, "b": high}, {"a": low, "b": low})
    calls = S.pairwise_calls(S.measure_long(tie), ["measure"], "value", "dag")
    assert calls.set_index("measure")["call"].to_dict() == {"shd": "a < b", "sid": "a < b", "tvd": "tie"}
    verdict, evidence = S.headline(calls)
    assert verdict == "holds" and "TVD tie" in evidence


def test_correlation_claims_are_undecided_when_the_interval_straddles():
    corr = pd.DataFrame([{"learner": "ges", "measures": "SHD-TVD", "pearson": r, "95% low": lo, "95% high": hi,
                          } for r, (lo, hi) in [(0.1, verdicts.correlation_interval(0.1, 30))]])
    assert S.claims._correlation_claim(corr, ["ges"], "SHD-TVD", "weak")[0] == "undecided"
    assert S.claims._correlation_claim(corr, ["ges"], "SHD-TVD", "strong")[0] == "does not hold"


def test_logistic_tables_are_valid_and_additive():
    from causaleval.graphs import CausalGraph

    dag = CausalGraph.from_edges(["a->c", "b->c"])
    net = S.logistic_network(dag, seed=1)
    c = net.cpds["c"]  # [c, a, b]
    assert c.shape == (2, 2, 2) and np.allclose(c.sum(axis=0), 1)
    logit = np.log(c[1] / c[0])
    assert logit[1, 1] - logit[0, 1] == pytest.approx(logit[1, 0] - logit[0, 0])  # no interaction
    assert 0.5 <= abs(logit[1, 0] - logit[0, 0]) <= 2
    with pytest.raises(ValueError, match="node_cards=3"):
        S.random_network("logistic", dag, 3, 1.0, 0)


def test_figure2_rows_carry_sid_bounds_and_the_true_dag_baseline():
    fit = dict(alpha=0.05, ci_test="chi_square", cpdag_rule="extension", smoothing="bdeu", ess=1.0)
    rows = S.figure2_results(n_dags=2, n_nodes=6, expected_neighbours=2.0, cards=2, concentration=1.0,
                             n_samples=300, learners=["pc", "mmhc"], seed=3, n_jobs=1, progress=False, **fit)
    assert (rows["sid_min"] <= rows["sid"]).all() and (rows["sid"] <= rows["sid_max"]).all()
    assert (rows.loc[rows["learner"] == "mmhc", "members"] == 1).all()  # a DAG is its own class
    assert rows.groupby("dag")["tvd_true_dag"].nunique().eq(1).all()
    np.testing.assert_allclose(rows["excess_tvd"], rows["tvd"] - rows["tvd_true_dag"])


def test_a_registered_metric_gets_a_column_and_a_correlation_with_tvd(monkeypatch):
    from causaleval.metrics import custom

    monkeypatch.setattr(custom, "GRAPH_METRICS", dict(custom.GRAPH_METRICS))
    custom.register_metric("edge_count_gap", graph_types=("DAG",))(
        lambda truth, learned: np.abs((learned.matrices != 0).sum(axis=(1, 2)) - (truth.directed_matrix() != 0).sum()))
    fit = dict(alpha=0.05, ci_test="chi_square", cpdag_rule="extension", smoothing="bdeu", ess=1.0)
    rows = S.figure2_results(n_dags=4, n_nodes=6, expected_neighbours=2.0, cards=2, concentration=1.0,
                             n_samples=300, learners=["pc", "mmhc"], seed=3, own_metrics=["edge_count_gap"],
                             n_jobs=1, progress=False, **fit)
    assert rows.loc[rows["learner"] == "pc", "edge_count_gap"].isna().all()  # PC gives CPDAGs: not scored
    assert rows.loc[rows["learner"] == "mmhc", "edge_count_gap"].notna().all()  # MMHC gives DAGs: scored
    corr = S.correlations(rows, ["edge_count_gap"]).set_index(["learner", "measures"])
    assert corr.loc[("mmhc", "edge_count_gap-TVD"), "n"] == 4
    assert corr.loc[("pc", "edge_count_gap-TVD"), "n"] == 0
    assert corr.loc[("pc", "edge_count_gap-TVD"), S.STRONG_COLUMN] == "not tested"
    custom.register_metric("tvd")(lambda truth, learned: np.zeros(len(learned)))
    with pytest.raises(ValueError, match="'tvd' is a column of Figure 2"):
        S.check_params({**DEFAULTS, "metrics": ["tvd"]})


def test_measure_summary_counts_shd_zero_graphs_and_the_sentence_uses_them():
    rows = pd.DataFrame({"dag": [0, 1, 2], "learner": "ges", "shd": [0, 0, 3], "sid": [0.0, 6.0, 9.0],
                         "sid_min": [0.0, 0.0, 4.0], "sid_max": [4.0, 6.0, 12.0], "members": [3, 2, -1],
                         "tvd": [1.0, 2.0, 3.0], "tvd_true_dag": [0.8, 0.9, 1.0]})
    summary = S.measure_summary(rows)
    ges = summary.loc["ges"]
    assert (ges["SHD 0"], ges["SHD 0, SID > 0"], ges["SHD 0, SID min > 0"]) == (2, 1, 0)
    assert ges["SHD 0, TVD range"] == "1.00-2.00" and ges["SHD 0, true DAG TVD range"] == "0.80-0.90"
    assert ges["classes past the limit"] == 1
    assert "ges found the true CPDAG on 2 of 3 networks" in S.baseline_sentence(summary)


def test_the_cache_key_of_the_domains_changes_with_their_data():
    domain = S.load_domain("collected", "sqlite", covariate="num_joins", outcomes=["runtime_ms"], bins=3, beta=1.0)
    frame = domain.data.frame.copy()
    frame.iloc[0, frame.columns.get_loc("runtime_ms")] = 1 - frame["runtime_ms"].iloc[0]
    changed = dataclasses.replace(domain, data=dataclasses.replace(domain.data, frame=frame))
    assert S.data_fingerprint([domain]) == S.data_fingerprint([domain])
    assert S.data_fingerprint([changed]) != S.data_fingerprint([domain])


def test_a_pc_graph_with_a_directed_cycle_gets_its_fallback_dags_sid_as_bounds():
    from causaleval import CausalGraph

    truth = CausalGraph.from_edges(["a->b", "b->c"])
    cyclic = CausalGraph.from_edges(["a->b", "b->c", "c->a"])
    assert S.class_sid_bounds(truth, cyclic, 2.0) == {"sid_min": 2.0, "sid_max": 2.0, "members": 0}
    cpdag = CausalGraph.from_edges(["a - b", "b - c"])
    assert S.class_sid_bounds(truth, cpdag, 9.0)["members"] == 3


@pytest.mark.parametrize("variant", ["", "kdl_jdk"])
def test_committed_claims_and_agreement_use_only_the_vocabulary(variant):
    """The report's front page counts figures/02_software_tvd[/kdl_jdk]/claims.csv and agreement.csv:
    every verdict and status must be a word of causaleval.verdicts, and every claim of the paper's
    list is present with non-empty evidence."""
    from causaleval import report, verdicts

    folder = paths.ROOT / "figures" / S.STUDY / variant
    claims = pd.read_csv(folder / "claims.csv")
    assert set(claims["verdict"]) <= set(verdicts.VERDICTS)
    assert set(claims["claim"]) == set(report.paper_values("gentzel_claims")["claim"])
    assert claims["evidence"].fillna("").str.len().gt(0).all()
    agreement = pd.read_csv(folder / "agreement.csv")
    assert set(agreement["status"]) <= set(verdicts.AGREEMENT) and len(agreement) > 0
