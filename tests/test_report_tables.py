"""The ``claims`` and ``agreement`` tables of studies 1, 3 and 4, computed from the committed
tables in ``figures/`` (the suite's CAUSALEVAL_FIGURES is a temporary folder), so no learner runs."""

import pandas as pd
import pytest

from causaleval import paths, report
from causaleval.app import site
from causaleval.studies import asia_mag_nced as S1
from causaleval.studies import over_under_specification as S3
from causaleval.studies import survey_metric_tables as S4

FIGURES = paths.ROOT / "figures"
STATUSES = {"matches", "differs, explained", "differs, unexplained", "not in the paper"}


def _read(study: str, name: str, **kw) -> pd.DataFrame:
    return pd.read_csv(FIGURES / study / f"{name}.csv", **kw)


def _check_claims(claims: pd.DataFrame) -> None:
    """What the front page needs of a claims table: unique claims, a verdict it reads, evidence."""
    assert claims.index.name == "claim" and claims.index.is_unique
    assert {site.verdict(v) for v in claims["verdict"]} <= {"holds", "does not hold", "not tested"}
    assert (claims["evidence"].str.len() > 0).all()


def _check_agreement(agreement: pd.DataFrame) -> None:
    """A known status on every cell, and a reason exactly where a difference is explained."""
    assert set(agreement["status"]) <= STATUSES
    explained = agreement["status"] == "differs, explained"
    assert (agreement.loc[explained, "reason"].str.len() > 0).all()
    assert (agreement.loc[~explained, "reason"] == "").all()


# ------------------------------------------------------------------ study 4
@pytest.fixture(scope="module")
def survey():
    study = S4.STUDY
    table1 = S4.gentzel_table1(report.paper_values("gentzel_survey_table1"))
    intervals = _read(study, "interval_simulation", index_col=["outcome", "interval"])
    return dict(audit=_read(study, "gentzel_percentage_audit"),
                claim_audit=_read(study, "cheng_table3_claim_audit", index_col="claim"),
                checks=_read(study, "gentzel_count_checks", index_col="check"),
                totals=S4.printed_totals(table1, report.paper_values("gentzel_survey_table1_totals")),
                calibrated=S4.calibrated_cic(), normal=intervals.loc[("linear", "normal (1.96 SE)")])


def test_study4_claims_follow_the_audits(survey):
    claims = S4.claims(survey["audit"], survey["claim_audit"], survey["calibrated"], survey["normal"])
    _check_claims(claims)
    assert len(claims) == len(survey["audit"]) + len(survey["claim_audit"]) + 1
    sixty = claims[claims["statement"].str.contains("60% (55/111)", regex=False)].iloc[0]
    assert sixty["verdict"] is False and "55/91 = 60.4%" in sixty["evidence"]
    assert claims["statement"].str.contains("84% (74)", regex=False).sum() == 1
    assert claims["verdict"].isna().sum() == 3 + 1  # three percentages without a count, one uncheckable reading
    assert (claims.filter(like="cheng_tools", axis=0)["verdict"] == False).sum() == 4  # noqa: E712
    cic = claims.loc["shimoni_cic_0_95"]
    assert cic["verdict"] is False and "0.204" in cic["evidence"] and "[0.939, 0.977]" in cic["evidence"]


def test_study4_agreement_names_the_reason_of_each_explained_percentage(survey):
    agreement = S4.agreement(survey["totals"], survey["audit"], survey["checks"], survey["calibrated"],
                             survey["normal"])
    _check_agreement(agreement)
    counted = survey["audit"]["count"].notna().sum()
    assert len(agreement) == len(survey["totals"]) + counted + len(survey["checks"]) + 1
    by_cell = agreement.set_index("cell")
    assert "truncated to 30" in by_cell.loc["Bivariate algorithms account for 30% (34/111)", "reason"]
    assert "55/91" in by_cell.loc["Multivariate algorithms ... 60% (55/111) of papers surveyed", "reason"]
    assert by_cell.loc["84% (74) of surveyed papers used it [synthetic data]", "status"] == "differs, unexplained"
    assert by_cell.loc["CIC of a reliable 95% interval", "status"] == "differs, explained"
    # a printed total that does not equal its cells is a difference no reason covers
    broken = survey["totals"].copy()
    broken.loc["UAI", ["total", "follows"]] = [21, False]
    again = S4.agreement(broken, survey["audit"], survey["checks"], survey["calibrated"], survey["normal"])
    assert again.set_index("cell").loc["Total, UAI", "status"] == "differs, unexplained"


# ------------------------------------------------------------------ study 3
def test_study3_claims_take_their_verdicts_from_the_claim_tables():
    study = S3.STUDY
    ratio, by_treatment = _read(study, "claim_ratio"), _read(study, "claim_ratio_by_treatment")
    zero_sid, efficiency = _read(study, "claim_zero_sid"), _read(study, "claim_efficiency")
    claims = S3.claims(ratio, by_treatment, zero_sid, efficiency)
    _check_claims(claims)
    # Postgres's 0.35 / 0.06 = 5.8 lies outside 2-5
    assert claims.loc["ratio_paper_table", "verdict"] == False  # noqa: E712
    assert "Postgres 0.35 / 0.06 = 5.8" in claims.loc["ratio_paper_table", "evidence"]
    assert "3 of 4" in claims.loc["ratio_sqlite", "evidence"]
    assert claims.loc["zero_sid_postgres", "verdict"] == True  # noqa: E712
    flipped = zero_sid.assign(holds=[False, True])
    assert S3.claims(ratio, by_treatment, flipped, efficiency).loc["zero_sid_sqlite", "verdict"] == False  # noqa: E712
def test_study3_agreement_compares_cells_at_the_printed_precision():
    table = _read(S3.STUDY, "table2", header=[0, 1], index_col=[0, 1, 2, 3])
    agreement = S3.agreement(table)
    _check_agreement(agreement)
    ours = table.xs("ours", level="values")
    assert len(agreement) == ours.size
    assert (agreement.loc[agreement["domain"] == "sqlite", "status"] == "not in the paper").all()
    cell = agreement.set_index(["domain", "model type", "metric", "statistic"])
    assert cell.loc[("postgres", "over-specify", "SHD", "median"), "status"] == "matches"
    assert cell.loc[("postgres", "under-specify", "TVD", "median"), "status"] == "differs, unexplained"
    assert cell.loc[("postgres", "under-specify", "TVD", "median"), "subjects"] == "ours 2000, paper 5000"
    # 0.604 rounds to the printed 0.60 but not to 0.61
    shifted = table.sort_index()
    shifted.loc[("ours", "postgres", 2000, "under-specify"), ("TVD", "max")] = 0.6074
    assert S3.agreement(shifted).set_index(["domain", "model type", "metric", "statistic"]).loc[
        ("postgres", "under-specify", "TVD", "max"), "status"] == "matches"


# ------------------------------------------------------------------ study 1
def test_study1_claims_cover_the_statements_the_notebook_tests():
    study = S1.STUDY
    consistency, behaviour = _read(study, "paper_consistency"), _read(study, "figure6_behaviour")
    table3 = _read(study, "table3_bounds")
    claims = S1.claims(_read(study, "table1_nced_mag"), consistency, _read(study, "shd_variants"), behaviour, table3)
    _check_claims(claims)
    stated = behaviour[["paper sensitive", "paper linear"]].notna().sum().sum()
    assert len(claims) == 1 + len(consistency) + 1 + stated + table3["metric"].nunique()
    assert claims.loc["table1_highest", "verdict"] == False  # noqa: E712
    assert "pc and fci tie at k = 0.5" in claims.loc["table1_highest", "evidence"]
    assert claims.filter(like="consistency_", axis=0)["verdict"].sum() == consistency["holds"].sum()
    # Sachs PC's printed 10 lies closer to one error per pair
    assert claims.loc["shd_term_by_term", "verdict"] == False  # noqa: E712
    assert claims.loc["figure6_a_PRC AUC_linear", "verdict"] == False  # noqa: E712
    assert claims.loc["table3_SHD (DAG)", "statement"].endswith("no upper bound]")


def test_study1_agreement_explains_a_cell_only_by_a_computed_reason():
    study = S1.STUDY
    spread, readings = _read(study, "spread_vs_paper"), _read(study, "readings")
    consistency = _read(study, "paper_consistency")
    agreement = S1.agreement(spread, readings, consistency)
    _check_agreement(agreement)
    assert len(agreement) == len(spread)
    assert (agreement["status"] == "matches").sum() == spread["within 2 sd"].sum()
    cell = agreement.set_index(["network", "algorithm", "metric"])
    assert "causal-learn endpoint matrix" in cell.loc[("asia", "fci", "TPR"), "reason"]
    assert "contradicts itself" in cell.loc[("sachs", "hc", "nCED (k=0.2)"), "reason"]
    assert cell.loc[("asia", "hc", "FPR"), "status"] == "differs, unexplained"  # hc is not re-read
    assert cell.loc[("asia", "fci", "nCED (k=0), MAG"), "status"] == "differs, unexplained"  # gap not halved
    # a reading that does not close the starred cells' gap explains none of them
    flat = readings.assign(**{"starred-cell gap": readings["starred-cell gap"].iloc[0]})
    again = S1.agreement(spread, flat, consistency).set_index(["network", "algorithm", "metric"])
    assert again.loc[("asia", "fci", "TPR"), "status"] == "differs, unexplained"
    assert again.loc[("asia", "pc", "TPR"), "status"] == "differs, explained"  # the paper's repeated PC row


def test_study1_agreement_of_a_network_the_paper_does_not_report_is_empty_but_readable(tmp_path):
    study = S1.STUDY
    spread = _read(study, "spread_vs_paper").iloc[:0]
    agreement = S1.agreement(spread, _read(study, "readings"), _read(study, "paper_consistency"))
    agreement.to_csv(tmp_path / "agreement.csv", index=False)
    assert len(agreement) == 0 and site.read_agreement(tmp_path) == {}
