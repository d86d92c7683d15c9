"""Study 2's claims table, in the kit's vocabulary (:mod:`causaleval.verdicts`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from causaleval import verdicts
from causaleval.studies.software_tvd.figure2 import (
    MEASURES, STRONG, WEAK, headline, measure_long, pairwise_calls, strong, weak,
)


# ----------------------------------------------------------------------- claims
def _calls_with(calls: pd.DataFrame, learner: str) -> pd.Series:
    return calls.loc[calls["pair"].str.split(", ").map(lambda p: learner in p), "call"]


def _best(calls: pd.DataFrame, learner: str) -> bool:
    """``learner`` is significantly better than every other learner in ``calls``."""
    own = _calls_with(calls, learner)
    return bool(len(own)) and bool(own.str.startswith(f"{learner} <").all())


def _worse_than_someone(calls: pd.DataFrame, learner: str) -> bool:
    """Some other learner is significantly better than ``learner`` in ``calls``."""
    return bool(_calls_with(calls, learner).str.endswith(f"< {learner}").any())


def _worst(calls: pd.DataFrame, learner: str) -> bool:
    own = _calls_with(calls, learner)
    return bool(len(own)) and bool(own.str.endswith(f"< {learner}").all())


def _better_than_someone(calls: pd.DataFrame, learner: str) -> bool:
    return bool(_calls_with(calls, learner).str.startswith(f"{learner} <").any())


def _ranking(calls: pd.DataFrame, learner: str, best: bool) -> str:
    """``learner`` best (or worst) of all: holds when every call says so; does not hold when some call
    says the opposite; else (ties) undecided."""
    if not len(_calls_with(calls, learner)):
        return verdicts.NOT_TESTED
    if (_best if best else _worst)(calls, learner):
        return verdicts.HOLDS
    against = _worse_than_someone if best else _better_than_someone
    return verdicts.DOES_NOT_HOLD if against(calls, learner) else verdicts.UNDECIDED


def _correlation_claim(corr: pd.DataFrame, learners: Sequence[str], measures: str, want: str) -> tuple[str, str]:
    """``want`` = "strong" or "weak" for every learner, each the verdict of the correlation table's
    column for it (:func:`strong`: the 95% interval above :data:`STRONG`; :func:`weak`: inside
    (-:data:`WEAK`, :data:`WEAK`)), so the table and the claim say the same. The claim holds when
    every learner's does, does not hold when one's does not, else is undecided."""
    sub = corr[(corr["measures"] == measures) & corr["learner"].isin(learners)]
    decide = strong if want == "strong" else weak
    found = [decide(r["95% low"], r["95% high"]) for _, r in sub.iterrows()]
    evidence = "; ".join(f"{r['learner']}: r = {r['pearson']:.2f} [{r['95% low']:.2f}, {r['95% high']:.2f}] "
                         f"(threshold {STRONG if want == 'strong' else WEAK:g})" for _, r in sub.iterrows())
    return _all(found), evidence or "no such learner"


def _all(found: Sequence[str]) -> str:
    """One verdict of several that must all hold."""
    if not found or verdicts.NOT_TESTED in found:
        return verdicts.NOT_TESTED
    if verdicts.DOES_NOT_HOLD in found:
        return verdicts.DOES_NOT_HOLD
    return verdicts.HOLDS if set(found) == {verdicts.HOLDS} else verdicts.UNDECIDED


def claims_table(claims: pd.DataFrame, fig1: pd.DataFrame, fig2: pd.DataFrame, corr: pd.DataFrame) -> pd.DataFrame:
    """Each claim of the paper with the computed evidence and its verdict here, in the kit's
    vocabulary. Orders use :func:`pairwise_calls` (Wilcoxon over paired trials or networks),
    Holm-corrected over every test a claim rests on; a correlation claim is decided by its interval."""
    by_measure = pairwise_calls(measure_long(fig2), ["measure"], "value", "dag", holm=True)
    panels = pairwise_calls(fig1, ["domain", "panel"], "mean_tvd", "trial", holm=True)
    learners = sorted(fig2["learner"].unique())

    def calls(**where: str) -> pd.DataFrame:
        """Rows of the measure calls (if ``measure`` is given) or the panel calls matching ``where``."""
        frame = by_measure if "measure" in where else panels
        return frame[(frame[list(where)] == pd.Series(where)).all(axis=1)]

    def listing(frame: pd.DataFrame, label: str) -> str:
        return "; ".join(f"{getattr(r, label)} {r.pair}: {r.call} (p={r.p:.2g})" for r in frame.itertuples())

    def panel_differences(a: str, b: str) -> tuple[str, str]:
        """Pairs whose (Holm-corrected) call differs between panels ``a`` and ``b`` of a domain:
        holds when one pair gets opposite significant calls, else undecided (a tie decides nothing)."""
        wide = panels[panels["panel"].isin([a, b])].pivot(index=["domain", "pair"], columns="panel", values="call")
        if a not in wide or b not in wide:
            return verdicts.NOT_TESTED, f"needs panels {a} and {b}"
        opposite = wide[(wide[a] != wide[b]) & (wide[a] != "tie") & (wide[b] != "tie")]
        differ = wide[wide[a] != wide[b]]
        return ((verdicts.HOLDS if len(opposite) else verdicts.UNDECIDED),
                f"{b} vs {a} (Holm over {len(panels)} tests): {len(opposite)} of {len(wide)} (domain, pair) calls "
                f"opposite, {len(differ)} differ"
                + "".join(f"; {d} {p}: {r[a]} vs {r[b]}" for (d, p), r in differ.iterrows()))

    def empirical_vs_synthetic() -> tuple[str, str]:
        results = [panel_differences("empirical", p) for p in sorted(set(panels["panel"]) - {"empirical"})]
        found = [v for v, _ in results]
        verdict = (verdicts.HOLDS if verdicts.HOLDS in found else
                   verdicts.NOT_TESTED if not found or set(found) == {verdicts.NOT_TESTED} else verdicts.UNDECIDED)
        return verdict, " | ".join(e for _, e in results)

    def structural_mmhc_pc() -> tuple[str, str]:
        shd, sid, tvd = (calls(measure=m, pair="mmhc, pc")["call"].tolist() for m in MEASURES)
        if not (shd and sid and tvd):
            return verdicts.NOT_TESTED, "needs mmhc and pc"
        # "statistically indistinguishable" by TV: the paper's own test not rejecting
        ok = shd == sid == ["mmhc < pc"] and tvd == ["tie"]
        against = "pc < mmhc" in shd + sid or tvd != ["tie"]  # a significant call the claim rules out
        return ((verdicts.HOLDS if ok else verdicts.DOES_NOT_HOLD if against else verdicts.UNDECIDED),
                f"SHD: {shd[0]}; SID: {sid[0]}; TVD: {tvd[0]}"
                + ("" if ok or against else " (a tie in SHD or SID decides nothing)"))

    def pc_worst(panel: str) -> tuple[str, str]:
        sub = panels[panels["panel"] == panel]
        if sub.empty:
            return verdicts.NOT_TESTED, f"no panel {panel}"
        return _all([_ranking(g, "pc", best=False) for _, g in sub.groupby("domain")]), listing(sub, "domain")

    def ges_not_best_structural() -> tuple[str, str]:
        found = [_ranking(calls(measure=m), "ges", best=True) for m in ("shd", "sid")]
        verdict = (verdicts.DOES_NOT_HOLD if verdicts.HOLDS in found else
                   verdicts.HOLDS if all(any(c.startswith(f"{o} <") for c in _calls_with(calls(measure=m), "ges"))
                                         for m in ("shd", "sid") for o in ("mmhc", "pc") if o in learners)
                   else verdicts.UNDECIDED)
        return verdict, listing(pd.concat([calls(measure="shd"), calls(measure="sid")]), "measure")

    checks = {
        "shd_sid_strong": lambda: _correlation_claim(corr, learners, "SHD-SID", "strong"),
        "shd_tvd_weak_ges": lambda: _correlation_claim(corr, ["ges"], "SHD-TVD", "weak"),
        "shd_tvd_strong_pc": lambda: _correlation_claim(corr, ["pc"], "SHD-TVD", "strong"),
        "ges_best_tvd_synthetic": lambda: (_ranking(calls(measure="tvd"), "ges", best=True),
                                           listing(calls(measure="tvd"), "measure")),
        "ges_not_best_structural": ges_not_best_structural,
        "tvd_orders_differently": lambda: headline(by_measure),
        "mmhc_beats_pc_structural_not_tv": structural_mmhc_pc,
        "orders_differ_empirical_synthetic": empirical_vs_synthetic,
        "generators_differ": lambda: panel_differences("synthetic-pc", "synthetic-ges"),
        "pc_worst_mmhc_generated": lambda: pc_worst("synthetic-mmhc"),
        "ges_best_empirical": lambda: (
            _all([_ranking(g, "ges", best=True) for _, g in panels[panels["panel"] == "empirical"].groupby("domain")]),
            listing(panels[panels["panel"] == "empirical"], "domain")),
    }
    rows = []
    for claim in claims.itertuples():
        if claim.claim not in checks:
            raise ValueError(f"gentzel_claims.csv: no check for claim {claim.claim!r}")
        outcome, evidence = checks[claim.claim]()
        if outcome == verdicts.NOT_TESTED and not evidence:
            evidence = "the run lacks what the claim needs"
        rows.append(verdicts.claim(claim.claim, claim.statement, outcome, evidence, source=claim.source,
                                   test="Wilcoxon signed-rank, Holm; correlations by their 95% intervals"))
    return verdicts.claims_table(rows).set_index("claim")


def agreement(source: str, domains: Sequence[str]) -> pd.DataFrame:
    """The cells the paper prints for study 2 beside ours: none is printed as a number (Figures 1, 2
    and 4-7 are plots), so each panel is a ``not comparable`` row saying so, and the patterns they show
    are tested as claims (:func:`claims_table`). On the kit's own domains the data are not the paper's
    either."""
    rows = []
    for domain in domains:
        data = "the paper's own file" if source == "kdl" else f"the kit's own {source} domain, not the paper's data"
        rows.append(verdicts.not_comparable(f"Figure 1, {domain}", np.nan, np.nan,
                                            f"{data}; the paper prints Figure 1 as a plot, no numbers to compare "
                                            "(its orderings are tested as claims)"))
    rows.append(verdicts.not_comparable("Figure 2, supplement Figures 4-6", np.nan, np.nan,
                                        "random networks of the kit's generator with the paper's stated settings; "
                                        "the paper prints plots, no numbers (its correlations and orders are "
                                        "tested as claims)"))
    return verdicts.agreement_table(rows)
