"""Study 2's pipeline: parameter checks, and the notebook unchanged on KDL-format data."""

import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval import paths
from causaleval.studies import software_tvd as S

DEFAULTS = dict(source="collected", domains=["sqlite"], covariates={"sqlite": "num_joins"},
                learners=["pc", "ges", "mmhc"], ground_truth_learners=["pc"], cpdag_rule="extension",
                beta=1.0, n_trials=1, bins=3, n_dags=1, n_nodes=5, n_samples=100)


@pytest.mark.parametrize("change,message", [
    ({"source": "csv"}, "parameter source='csv'"),
    ({"learners": ["pc", "lingam"]}, "unknown learner 'lingam'"),
    ({"beta": -0.5}, "beta=-0.5"),
    ({"cpdag_rule": "any"}, "cpdag_rule='any'"),
    ({"n_trials": 0}, "n_trials=0"),
    ({"domains": ["sqlite", "jdk"]}, r"no biasing covariate for domains \['jdk'\]"),
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
                        n_dags=3, n_nodes=5, n_samples=400, n_jobs=1,
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
    from causaleval.sampling import random_dag

    for seed in range(15):
        truth = random_dag(8, 2.0, seed)
        guess = random_dag(8, 2.0, seed + 100)
        expected = gadjid.shd(to_cpdag(truth).to_gadjid(), to_cpdag(guess).to_gadjid())[1]
        assert S.structural_hamming(truth, guess) == expected
    pc_like = CausalGraph.from_edges(["a<->b", "b - c"])
    assert S.structural_hamming(CausalGraph.from_edges(["a->b", "c->b"]), pc_like) == 2
