"""Study 4's claims and agreement tables, in the kit's vocabulary (:mod:`causaleval.verdicts`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import report, verdicts
from causaleval.studies.survey_metric_tables.survey import (
    CONSISTENT, INCONSISTENT, PERCENT_COLUMN, ROUNDED_UP, TABLE3_COLUMN,
)


# ============================================================ the report's claims and agreement tables
#: how a statement on tools compares with Table III, as the claims table says it
_CHENG_AGREES = {CONSISTENT: True, INCONSISTENT: False}


def shimoni_cic() -> str:
    """Shimoni et al.'s stated CIC of a reliable 95% interval, as printed (``data/paper_values``)."""
    table = report.paper_values("ibm_benchmark_tracks_paper").set_index("item")
    return f"{float(table.at['cic_reliable_interval', 'value']):g}"


def _fraction(row: Mapping[str, Any]) -> str:
    return f"{row['count']:.0f}/{row['denominator']:.0f} = {row['computed %']:.1f}%"


def percent_row(row: Mapping[str, Any], denominators: Sequence[float]) -> dict[str, Any]:
    """The agreement row of one stated percentage with a count (a row of :func:`percentage_audit`):
    100 count / denominator against the printed value (:func:`causaleval.verdicts.agreement`); a
    differing one is *explained* only by a named alternative that gives the printed value: truncation
    or rounding up, or another denominator the text uses elsewhere (:func:`causaleval.verdicts.explained`).
    The claims table quotes this row, so the cell has one verdict."""
    printed = f"{float(row['percent']):g}"
    out = verdicts.agreement(float(row["computed %"]), printed, item=row["text"])
    if out["status"] == verdicts.DIFFERS:
        up = row[PERCENT_COLUMN] == ROUNDED_UP
        alternatives = [("rounded up" if up else "truncated",
                         float(np.ceil(row["computed %"]) if up else np.floor(row["computed %"])))] + [
            (f"denominator {d:.0f}", 100 * row["count"] / d) for d in denominators if d != row["denominator"]]
        for name, value in alternatives:
            out = verdicts.explained(out, printed, name, value, len(alternatives))
            if out["status"] == verdicts.EXPLAINED:
                break
    return out


def claims(audit: pd.DataFrame, claim_audit: pd.DataFrame, calibrated: float,
           simulated: Mapping[str, Any]) -> pd.DataFrame:
    """The papers' statements tested here, one row each (index ``claim``), in the kit's vocabulary.
    Every one checks a paper against its own numbers or definitions (``paper vs itself``; the row
    says whether they agree): Gentzel et al.'s (2019) stated percentages against their counts
    (:func:`percentage_audit`), Cheng et al.'s (2022) statements about their tools against their own
    Table III (:func:`table3_claim_audit`; several readings of one statement are rows of one claim),
    and Shimoni et al.'s (2018, Sec. 2.4.4) stated CIC of a reliable 95% interval against their eq. 6
    (:func:`calibrated_cic`, with the simulated normal interval ``simulated``: a row of
    :func:`interval_summary`). A percentage the text gives no count for is ``not tested``."""
    rows = []
    denominators = sorted(audit["denominator"].dropna().unique())
    for i, r in enumerate(audit.to_dict("records"), start=1):
        statement = f"Gentzel et al. Sec. {r['section']:g}: \"{r['text']}\""
        if pd.isna(r["count"]):
            rows.append(verdicts.claim(f"gentzel_percentage_{i:02d}", statement, verdicts.NOT_TESTED,
                                       "the text gives no count to recompute it from", source="Gentzel et al. 2019"))
            continue
        cell = percent_row(r, denominators)
        rows.append(verdicts.claim(f"gentzel_percentage_{i:02d}", statement, verdicts.PAPER_VS_ITSELF,
                                   f"{cell['status']} (agreement table): {_fraction(r)}"
                                   + (f"; {cell['reason']}" if cell["reason"] else "")
                                   + (f"; under {cell['alternative']}: {cell['value_under_alternative']:.1f}%"
                                      if cell["alternative"] else ""), source="Gentzel et al. 2019"))
    readings = len(claim_audit)
    for i, (reading, r) in enumerate(claim_audit.iterrows(), start=1):
        agrees = _CHENG_AGREES.get(r[TABLE3_COLUMN])
        statement = f"Cheng et al. Sec. V, reading {i} of {readings} of its statements on tools: {reading}"
        if agrees is None:
            rows.append(verdicts.claim(f"cheng_tools_{i}", statement, verdicts.NOT_TESTED,
                                       f"{r[TABLE3_COLUMN]}: none of its metrics is a Table III row",
                                       source="Cheng et al. 2022"))
            continue
        rows.append(verdicts.claim(f"cheng_tools_{i}", statement, verdicts.PAPER_VS_ITSELF,
                                   f"{'agrees' if agrees else 'disagrees'}: the statement says the tools' metrics are "
                                   f"{r['expected']}; their ticks in Table III: {r['Table III ticks']}",
                                   source="Cheng et al. 2022"))
    stated = shimoni_cic()
    status = verdicts.agreement(calibrated, stated, item="CIC")["status"]
    rows.append(verdicts.claim(
        "shimoni_cic", f"Shimoni et al. Sec. 2.4.4: the CIC (eq. 6) of a reliable 95% interval \"should approach "
        f"{stated}\"", verdicts.PAPER_VS_ITSELF,
        f"{status} (agreement table) by eq. 6: a calibrated 95% normal interval has CIC sqrt(2/pi) / "
        f"(2 x 1.96) = {calibrated:.3f}; simulated normal intervals cover {simulated['coverage']:.3f} (95% CI "
        f"{simulated['coverage 95% CI']}) with CIC {simulated['CIC']:.3f}", source="Shimoni et al. 2018"))
    return verdicts.claims_table(rows).set_index("claim")


def agreement(totals: pd.DataFrame, audit: pd.DataFrame, checks: pd.DataFrame, calibrated: float,
              simulated: Mapping[str, Any]) -> pd.DataFrame:
    """Every printed number compared with one computed from the paper's own parts, by the kit's rule
    (:func:`causaleval.verdicts.agreement`, at the printed precision): Gentzel et al.'s Table 1 totals
    (:func:`printed_totals`), the percentages of their text (:func:`percentage_audit`; those without a
    count are not compared; a differing one is *explained* only when a named alternative, truncation or
    another denominator of the text, gives its printed value, shown in the row), the counts their text
    and tables relate (:func:`count_checks`), and Shimoni et al.'s stated CIC against
    :func:`calibrated_cic` (it differs; the reason is a note)."""
    rows = [{"source": "Gentzel et al. Table 1", **verdicts.agreement(float(r["computed"]), f"{float(r['total']):g}",
                                                                      item=f"Total, {line}")}
            for line, r in totals.iterrows()]
    denominators = sorted(audit["denominator"].dropna().unique())
    for r in audit[audit["count"].notna()].to_dict("records"):
        rows.append({"source": f"Gentzel et al. Sec. {r['section']:g}", **percent_row(r, denominators)})
    rows += [{"source": "Gentzel et al. counts", **verdicts.agreement(float(r["computed"]), f"{float(r['stated']):g}",
                                                                      item=check)} for check, r in checks.iterrows()]
    cic = verdicts.agreement(calibrated, shimoni_cic(), item="CIC of a reliable 95% interval")
    cic["reason"] = (f"a calibrated 95% normal interval gives E|e_hat - e| / (r - l) = sqrt(2/pi) / (2 x 1.96) = "
                     f"{calibrated:.3f}; the stated value is its coverage (simulated: {simulated['coverage']:.3f}, "
                     f"95% CI {simulated['coverage 95% CI']})")
    rows.append({"source": "Shimoni et al. Sec. 2.4.4", **cic})
    return verdicts.agreement_table(rows)
