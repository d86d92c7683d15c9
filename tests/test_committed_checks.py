"""Study 6's committed check tables read as a referee would: each per-method verdict is what the kit's
rule gives on the committed per-data-set rows beside it (:func:`causaleval.bayes.check.check_summary`,
:func:`~causaleval.bayes.check.reference_summary`), for every committed run folder under
``figures/06_bayesian_cd_ate/`` (the full check, ``exact_check/``, which the defaults read back). These read
``figures/`` as committed, so they pass on outputs regenerated from the current code."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from causaleval import paths
from causaleval.bayes import check, posteriors
from causaleval.studies.bayesian_cd_ate.paper import paper_name

STUDY = paths.ROOT / "figures" / "06_bayesian_cd_ate"
PAIRS = [(rows, rows.with_name(f"{rows.stem}_summary.csv"), summarise)
         for name, summarise in (("exact_posterior", check.check_summary), ("reference_check", check.reference_summary))
         for rows in sorted(STUDY.rglob(f"{name}.csv"))]
VERDICTS = ["verdict", "own verdict"]


def _label(pair) -> str:
    return pair[0].relative_to(STUDY).as_posix()


@pytest.mark.parametrize("pair", PAIRS, ids=_label)
def test_each_committed_verdict_follows_from_the_committed_rows(pair):
    rows_path, summary_path, summarise = pair
    assert summary_path.is_file(), f"{_label(pair)} has no summary beside it ({summary_path.name})"
    committed = pd.read_csv(summary_path, keep_default_na=False).set_index("method")
    recomputed = summarise(pd.read_csv(rows_path)).set_index("method")
    assert "verdict" in committed, f"{summary_path.name} has no verdict column"  # nothing compared otherwise
    columns = [c for c in VERDICTS if c in committed]
    assert list(recomputed.index) == list(committed.index)
    pd.testing.assert_frame_equal(recomputed[columns].fillna(""), committed[columns], check_dtype=False)


def test_the_full_check_is_committed_with_every_method_on_every_data_set():
    p = yaml.safe_load((paths.NOTEBOOKS / "params" / "06.exact.yaml").read_text())
    rows = pd.read_csv(STUDY / "exact_check" / "exact_posterior.csv")
    per_data_set = rows.groupby(["d", "n", "seed"])["method"].nunique()
    assert len(per_data_set) == len(p["exact_nodes"]) * len(p["exact_rows"]) * p["exact_seeds"]
    assert (per_data_set == len(p["methods"])).all()
    own = {paper_name(m) for m in p["methods"]  # the methods whose own target has a BGe form (a log prior)
           if (posteriors.own_target(m, min(p["exact_nodes"]), p["method_options"]) or ("", None))[1] is not None}
    assert own and set(rows.loc[rows["own DAG TV"].notna(), "method"]) == own
