"""The paper's own JDK file (Gentzel, Garant, Jensen 2019): its shape and a few values as the kit
reads them, and studies 2 and 3 run on it at small settings. The file's licence is unknown, so it is
never in the repository: these tests read it from ``CAUSALEVAL_KDL_DIR`` (the suite points it at
``../shared/data/kdl`` when that exists) or ``data/kdl``, and are skipped, saying so, without it."""

import pandas as pd
import pytest

from causaleval import report
from causaleval.datasets.kdl import kdl_path, load_kdl

pytestmark = pytest.mark.skipif(not kdl_path("jdk").exists(),
                                reason=f"the paper's JDK file is not at {kdl_path('jdk')} (licence unknown, not "
                                       "shipped; set CAUSALEVAL_KDL_DIR to the folder holding jdk/results.csv)")


def test_the_jdk_file_reads_as_the_paper_describes_it():
    data = load_kdl("jdk")
    assert len(pd.read_csv(kdl_path("jdk"))) == 37_840
    assert len(data.subjects) == 473 and data.frame[data.trial].nunique() == 5
    assert set(data.treatments) == {"debug", "obfuscate", "optimize", "parallelgc"}
    assert {"num_bytecode_ops", "total_unit_test_time", "allocated_bytes", "jar_file_size_bytes",
            "compile_time_ms"} <= set(data.outcomes)
    assert "test_javadocs" in data.frame.columns
    assert len(data.frame) == 473 * 16 * 5  # every subject under every cell, five trials
    cells = data.frame.groupby(list(data.treatments)).size()
    assert len(cells) == 16 and (cells == 473 * 5).all()


def test_study_3_on_the_jdk_file_tests_the_papers_claims_on_its_data():
    from causaleval.studies import over_under_specification as S
    from causaleval.studies import software_tvd
    from causaleval.datasets import consistent

    domain = software_tvd.load_domain("kdl", "jdk", covariate="test_javadocs", outcomes=None, bins=3, beta=1.0)
    dag = consistent.consistent_dag(domain.data, domain.covariate, software_tvd.related_table(domain, 0.05))
    scores = S.alteration_scores(domain, dag, software_tvd.empirical_sample(domain, 1.0, 0), smoothing="bdeu", ess=1.0)
    curve = S.subject_curve(domain, dag, subject_counts=[200, 473], n_repeats=3, beta=1.0, seed=0, smoothing="bdeu",
                            ess=1.0, n_jobs=1, progress=False)
    paper = S.paper_table2(report.paper_values("gentzel_supp_table2"))
    table = S.beside_paper(S.table2(scores), paper)
    agreement = S.agreement(table, curve, "kdl")
    assert set(agreement["status"]) <= {"matches", "differs"} and len(agreement) == 18  # comparable: the paper's data
    claims = S.claims(S.ratio_claim(S.table2(scores), paper), curve, scores, S.floor_shares(curve))
    assert claims.loc["ratio_jdk", "statistic"] < 1  # on the paper's own data, under costs less than over


def test_the_readings_grid_on_the_jdk_file_runs_the_papers_figure_1_treatments_too():
    from causaleval.studies import over_under_specification as S

    base = dict(normalize="subject", covariate="test_javadocs", outcomes=None, bins=3, beta=1.0, alpha=0.05,
                smoothing="bdeu", ess=1.0, level=1, seed=0, sid_covariate=False)
    axes = {"normalize": ("subject",), "test": ("friedman",), "alpha": (0.05,), "bins": (3,), "beta": (1.0,)}
    assert S.grid_covariates("kdl", "jdk", "test_javadocs") == ["test_javadocs", "source_ncss"]
    grid = S.grid_table("kdl", "jdk", base, ["test_javadocs"], n_samples=2, axes=axes, n_jobs=1)
    assert len(grid) == 2 * 3 and set(grid["treatments"]) == {"all", "as in Figure 1"}
    assert grid["cells matching"].str.fullmatch(r"\d of 6").all() and grid["distance to paper"].is_monotonic_increasing
    summary = S.grid_summary(grid, base)
    assert summary["protocol"]["treatments"] == "all" and summary["readings"] == 6
