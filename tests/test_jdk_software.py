"""Study 2 (Gentzel, Garant, Jensen 2019) on the paper's own JDK file at small settings: the
Figure 1 pipeline (empirical and synthetic panels, learner orders with paired tests) runs on it
and gives finite TVDs. The file's licence is unknown, so it is never in the repository: read from
``CAUSALEVAL_KDL_DIR`` (the suite points it at ``../shared/data/kdl`` when that exists) or
``data/kdl``, and skipped, saying so, without it."""

import numpy as np
import pytest

from causaleval.datasets.kdl import kdl_path

pytestmark = pytest.mark.skipif(not kdl_path("jdk").exists(),
                                reason=f"the paper's JDK file is not at {kdl_path('jdk')} (licence unknown, not "
                                       "shipped; set CAUSALEVAL_KDL_DIR to the folder holding jdk/results.csv)")


def test_study_2_figure1_pipeline_runs_on_the_jdk_file():
    from causaleval.studies import software_tvd as S

    domain = S.load_domain("kdl", "jdk", covariate="test_javadocs", outcomes=None, bins=3, beta=1.0)
    assert domain.name == "jdk" and len(domain.pairs) > 0
    learners = ["pc", "ges", "mmhc"]
    fit = dict(ci_test="chi_square", alpha=0.05, cpdag_rule="extension", smoothing="bdeu", ess=1.0)
    results = S.figure1_results([domain], ground_truth_learners=["pc"], learners=learners, n_trials=2,
                                beta=1.0, seed=0, n_jobs=1, progress=False, **fit)
    assert set(results["panel"]) == {"empirical", "synthetic-pc"}
    assert set(results["learner"]) == set(learners) and len(results) == 2 * 2 * len(learners)
    tvd = results["mean_tvd"].to_numpy()
    assert np.isfinite(tvd).all() and (tvd >= 0).all() and (tvd <= 1).all()
    orders = S.paired_orders(results, ["domain", "panel"], "mean_tvd", "trial")
    assert len(orders) == 2 and all(set(o.split(" < ")) == set(learners) for o in orders["order"])
