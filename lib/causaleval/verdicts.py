"""One vocabulary for every study's ``claims`` and ``agreement`` tables, and the rules behind it.

Claims (a statement of a paper, tested):

* ``holds`` / ``does not hold``: the evidence decides it: an interval lies wholly on one side of
  the claim's threshold, or a test (Holm-corrected where one claim rests on several) rejects.
* ``undecided``: the interval straddles the threshold (or the corrected tests decide nothing).
* ``not tested``: the run could not test it; the row says why.
* ``by construction``: true because of how the kit computes it (an implementation check); shown
  apart, never counted as evidence about the paper.
* ``paper vs itself``: a check of the paper's internal consistency; its own table, not evidence
  about the paper's method.
* ``depends on reading``: the statement is true under some of the named readings of the paper
  (of a figure, a definition, a term) and false under others; the row gives each reading's
  outcome (:func:`by_reading`). Used only where the readings give both outcomes.

A tie decides nothing: an interval containing the claim's threshold, or a test that does not
reject, gives ``undecided``, never ``does not hold``; a claim over several comparisons is
Holm-corrected.

Only the first three count on the report's front page (:data:`EVIDENCE`).

Agreement (our number beside the paper's, cell by cell), :func:`agreement`:

* ``matches``: statistically indistinguishable at the paper's precision: the paper's value lies in
  our mean's confidence interval over independent runs (t interval, :func:`mean_interval`), or
  within half a unit of the paper's last printed digit, whichever is wider; the row says which.
* ``differs``; ``differs, explained``: the cell matches, by the same rule, under a named
  alternative (test, reading, sample size) whose value and interval the row shows (:func:`explained`);
* ``not comparable``: the data are not the paper's (nor the paper's generator); the row says why.
* ``undecided``: the paper's value lies in our interval (or within its printed precision), but the
  interval is wider than the ``resolution`` the comparison must resolve (e.g. the spread of the
  paper's own values over its methods in that column): such a match carries no information.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np
import pandas as pd

HOLDS, DOES_NOT_HOLD, UNDECIDED = "holds", "does not hold", "undecided"
NOT_TESTED, BY_CONSTRUCTION, PAPER_VS_ITSELF = "not tested", "by construction", "paper vs itself"
DEPENDS_ON_READING = "depends on reading"
EVIDENCE = (HOLDS, DOES_NOT_HOLD, UNDECIDED)
VERDICTS = EVIDENCE + (NOT_TESTED, BY_CONSTRUCTION, PAPER_VS_ITSELF, DEPENDS_ON_READING)

MATCHES, DIFFERS, EXPLAINED, NOT_COMPARABLE = "matches", "differs", "differs, explained", "not comparable"
AGREEMENT = (MATCHES, DIFFERS, EXPLAINED, NOT_COMPARABLE, UNDECIDED)

CLAIM_COLUMNS = ("claim", "statement", "source", "verdict", "statistic", "low", "high", "threshold", "test",
                 "evidence")
AGREEMENT_COLUMNS = ("item", "ours", "low", "high", "n_runs", "paper", "rule", "status", "alternative",
                     "value_under_alternative", "low_under_alternative", "high_under_alternative", "reason")
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` independent runs with its two-sided confidence interval.

    ``low, high = mean -/+ t_{n-1, (1+level)/2} * sd / sqrt(n)`` (``sd`` with ``ddof=1``); undefined
    (NaN) for fewer than two runs, and ``[mean, mean]`` when every run gives the same value."""

    mean: float
    low: float
    high: float
    n: int
    level: float = LEVEL

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @classmethod
    def from_summary(cls, mean: float, sd: float, n: int, level: float = LEVEL) -> Interval:
        """The t interval of a mean known by its runs' standard deviation (``ddof=1``) and count."""
        from scipy import stats

        if n < 2 or math.isnan(sd):
            return cls(float(mean), math.nan, math.nan, int(n), level)
        half = float(stats.t.ppf((1 + level) / 2, n - 1) * sd / math.sqrt(n))
        return cls(float(mean), float(mean) - half, float(mean) + half, int(n), level)


def sample_spread(one: float, values: Iterable[float], level: float = LEVEL) -> Interval:
    """A value that comes from one sample (``one``) with the range where ``level`` of single samples
    fall: the empirical ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``values`` (one value
    per independent sample). Like with like: a paper's single-sample value is compared with the
    spread of single samples, not with the interval of a mean over many."""
    x = np.asarray(list(values), dtype=float)
    if len(x) < 2:
        return Interval(float(one), math.nan, math.nan, len(x), level)
    low, high = np.quantile(x, [(1 - level) / 2, (1 + level) / 2])
    return Interval(float(one), float(low), float(high), len(x), level)


def mean_interval(values: Iterable[float], level: float = LEVEL) -> Interval:
    """The t interval of the mean of ``values`` (one value per independent run; NaNs refused)."""
    from scipy import stats

    x = np.asarray(list(values), dtype=float)
    if np.isnan(x).any():
        raise ValueError(f"mean_interval: {int(np.isnan(x).sum())} of {len(x)} values are NaN; an undefined "
                         "run must be left out (and counted) before the interval")
    if len(x) == 0:
        return Interval(math.nan, math.nan, math.nan, 0, level)
    mean = float(x.mean())
    if len(x) < 2:
        return Interval(mean, math.nan, math.nan, 1, level)
    half = float(stats.t.ppf((1 + level) / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return Interval(mean, mean - half, mean + half, len(x), level)


def difference_interval(a: Iterable[float], b: Iterable[float], paired: bool = True,
                        level: float = LEVEL) -> Interval:
    """Interval of ``mean(b) - mean(a)``: the t interval of the paired differences (same seeds), or
    Welch's interval for independent samples."""
    from scipy import stats

    x, y = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
    if paired:
        if len(x) != len(y):
            raise ValueError(f"difference_interval: paired samples need equal lengths, got {len(x)} and {len(y)}")
        return mean_interval(y - x, level)
    if len(x) < 2 or len(y) < 2:
        return Interval(float(y.mean() - x.mean()) if len(x) and len(y) else math.nan, math.nan, math.nan,
                        min(len(x), len(y)), level)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / ((vx ** 2 / (len(x) - 1)) + (vy ** 2 / (len(y) - 1))) if se > 0 else 1.0
    half = float(stats.t.ppf((1 + level) / 2, df) * se)
    diff = float(y.mean() - x.mean())
    return Interval(diff, diff - half, diff + half, min(len(x), len(y)), level)


def correlation_interval(r: float, n: int, level: float = LEVEL, spread: float = 1.0) -> tuple[float, float]:
    """Interval for a correlation by Fisher's z: ``tanh(atanh(r) -+ z_q * spread / sqrt(n - 3))``,
    ``z_q`` the ``(1 + level) / 2`` normal quantile (Fisher 1921); ``spread = 1.06`` for Spearman's rho
    (Fieller, Hartley and Pearson 1957). Undefined (NaN) below four pairs or for an undefined r."""
    from scipy import stats

    if n < 4 or not np.isfinite(r):
        return (math.nan, math.nan)
    half = stats.norm.ppf((1 + level) / 2) * spread / np.sqrt(n - 3)
    z = np.arctanh(np.clip(r, -1 + 1e-12, 1 - 1e-12))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def threshold_verdict(low: float, high: float, threshold: float, side: str) -> str:
    """``holds`` when the interval ``[low, high]`` lies wholly on the claimed ``side`` of
    ``threshold`` (``">"``: above; ``"<"``: below), ``does not hold`` when it lies wholly on the
    other side (touching the threshold counts as the other side), ``undecided`` when it straddles,
    ``not tested`` when the interval is undefined."""
    if side not in (">", "<"):
        raise ValueError(f"threshold_verdict: side must be '>' or '<', got {side!r}")
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return NOT_TESTED
    if low > high:
        raise ValueError(f"threshold_verdict: interval [{low}, {high}] has low > high")
    above, below = low > threshold, high < threshold
    if side == ">":
        return HOLDS if above else DOES_NOT_HOLD if high <= threshold else UNDECIDED
    return HOLDS if below else DOES_NOT_HOLD if low >= threshold else UNDECIDED


def holm(pvalues: Sequence[float], alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down rejections: sort ``p_(1) <= ... <= p_(m)``; reject ``H_(i)`` while
    ``p_(i) <= alpha / (m - i + 1)``, stop at the first that is not (Holm 1979). Returns a bool
    array in the input order; controls the family-wise error rate at ``alpha``."""
    p = np.asarray(pvalues, dtype=float)
    if np.isnan(p).any():
        raise ValueError("holm: a p-value is NaN; leave untested comparisons out and say so")
    reject = np.zeros(len(p), dtype=bool)
    for rank, index in enumerate(np.argsort(p, kind="stable")):
        if p[index] > alpha / (len(p) - rank):
            break
        reject[index] = True
    return reject


def any_of(pvalues: Sequence[float], alpha: float = 0.05) -> tuple[str, str]:
    """Verdict of a claim "at least one of these differs" from its tests' p-values, Holm-corrected:
    ``holds`` when at least one is rejected, otherwise ``undecided`` (not rejecting is no evidence
    that all are equal). Returns ``(verdict, what was tested)``."""
    if len(pvalues) == 0:
        return NOT_TESTED, "no comparison could be made"
    reject = holm(pvalues, alpha)
    return (HOLDS if reject.any() else UNDECIDED,
            f"{int(reject.sum())} of {len(reject)} tests reject at family-wise {alpha} (Holm)")


def all_of(pvalues: Sequence[float], alpha: float = 0.05) -> tuple[str, str]:
    """Verdict of a claim "every one of these differs": ``holds`` when Holm rejects all,
    ``undecided`` otherwise. Returns ``(verdict, what was tested)``."""
    if len(pvalues) == 0:
        return NOT_TESTED, "no comparison could be made"
    reject = holm(pvalues, alpha)
    return (HOLDS if reject.all() else UNDECIDED,
            f"{int(reject.sum())} of {len(reject)} tests reject at family-wise {alpha} (Holm)")


def one_sided_p(values: Sequence[float]) -> tuple[float, float]:
    """``(p_greater, p_less)``: one-sample t-test p-values of ``mean > 0`` and ``mean < 0`` over
    independent runs. With fewer than two runs, or no spread (every run the same value, up to
    rounding: 1e-12 of the largest magnitude; the t statistic is then undefined, or a huge artefact of
    the rounding, and a constant shows no run-to-run variation to test against), nothing is decided (1, 1)."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if np.isnan(x).any():
        raise ValueError("one_sided_p: a value is NaN; leave undefined runs out and count them")
    if len(x) < 2 or np.ptp(x) <= 1e-12 * max(1.0, float(np.abs(x).max())):
        return 1.0, 1.0
    t = stats.ttest_1samp(x, 0.0)
    half = float(t.pvalue) / 2
    return (half, 1 - half) if t.statistic > 0 else (1 - half, half)


def all_greater(differences: Mapping[str, Sequence[float]], alpha: float = 0.05) -> tuple[str, str]:
    """Verdict of "every one of these quantities is above 0", each given by its values over
    independent runs (e.g. paired differences between two methods over seeds): one-sided t-tests,
    Holm-corrected over the components. ``holds`` when Holm rejects every "<= 0"; ``does not hold``
    when Holm rejects some ">= 0" (that component is significantly below 0); else ``undecided``.
    Returns ``(verdict, what was tested)``."""
    if not differences:
        return NOT_TESTED, "no comparison could be made"
    names = list(differences)
    ps = [one_sided_p(differences[n]) for n in names]
    greater, less = holm([p[0] for p in ps], alpha), holm([p[1] for p in ps], alpha)
    described = "; ".join(f"{n}: {float(np.mean(differences[n])):+.3g} (n={len(differences[n])})"
                          if len(differences[n]) else f"{n}: no runs (n=0)" for n in names)
    tested = f"{int(greater.sum())} of {len(names)} above 0 at family-wise {alpha} (one-sided t, Holm): {described}"
    if greater.all():
        return HOLDS, tested
    if less.any():
        below = ", ".join(n for n, r in zip(names, less) if r)
        return DOES_NOT_HOLD, f"{tested}; significantly below 0: {below}"
    return UNDECIDED, tested


def welch_p(a: tuple[float, float, int], b: tuple[float, float, int], alternative: str = "two-sided") -> float:
    """The p-value of Welch's t-test of two means given as ``(mean, sd, n)`` (``sd`` with ``ddof=1``; Welch 1947):
    ``t = (m_a - m_b) / sqrt(s_a^2 / n_a + s_b^2 / n_b)`` on the Welch-Satterthwaite degrees of
    freedom; ``alternative`` ``"greater"`` tests ``m_a > m_b``. Nothing is decided (1.0) with fewer
    than two runs on a side or no spread on either: a tie of constants is no evidence."""
    from scipy import stats

    (m_a, s_a, n_a), (m_b, s_b, n_b) = a, b
    if min(n_a, n_b) < 2 or math.isnan(s_a) or math.isnan(s_b) or (s_a == 0 and s_b == 0):
        return 1.0
    return float(stats.ttest_ind_from_stats(m_a, s_a, n_a, m_b, s_b, n_b, equal_var=False,
                                            alternative=alternative).pvalue)


def printed_half_unit(printed: Any) -> float:
    """Half a unit of the last printed digit of a paper's value: ``"0.41"`` -> 0.005, ``"17"`` -> 0.5,
    ``"2.0e-3"`` -> 0.05e-3. Give the value as the paper prints it (text), so trailing zeros count."""
    text = str(printed).strip()
    try:
        exponent = Decimal(text).as_tuple().exponent
    except InvalidOperation:
        raise ValueError(f"printed_half_unit: {printed!r} is not a number as printed") from None
    if not isinstance(exponent, int):
        raise ValueError(f"printed_half_unit: {printed!r} is not a finite number")
    return 0.5 * 10.0 ** exponent


def agreement(ours: Iterable[float] | float | Interval, paper: Any, *, item: str, level: float = LEVEL,
              resolution: float | None = None, kind: str = "interval") -> dict[str, Any]:
    """One agreement row: ``matches`` when the paper's value (``paper``, as printed) lies in our
    mean's interval over independent runs (``ours``: one value per run, or the :class:`Interval`
    itself) or within half a unit of its last printed digit of our mean, whichever is wider; else
    ``differs``. ``rule`` says which rule decided (the interval, named by ``kind``, ``printed
    precision``, or both).
    With a ``resolution``, a match whose interval is wider than it (``high - low > resolution``) is
    ``undecided``: the interval cannot tell apart values that far apart."""
    if isinstance(ours, Interval):
        interval = ours
    else:
        interval = mean_interval([float(ours)] if np.isscalar(ours) else [float(v) for v in ours], level)
    value, half = float(paper), printed_half_unit(paper)
    in_interval = interval.defined and interval.low <= value <= interval.high
    in_precision = abs(interval.mean - value) <= half + 1e-12 * max(1.0, abs(value))
    rules = [r for r, ok in ((kind, in_interval), ("printed precision", in_precision)) if ok]
    width = interval.high - interval.low
    too_wide = bool(rules) and resolution is not None and interval.defined and width > resolution
    rule = (" and ".join(rules) if rules else
            f"{kind} and printed precision" if interval.defined else "printed precision (one run)")
    return {"item": item, "ours": interval.mean, "low": interval.low, "high": interval.high, "n_runs": interval.n,
            "paper": value,
            "rule": rule + (f"; the interval is wider than the resolution {resolution:.3g}" if too_wide else ""),
            "status": DIFFERS if not rules else UNDECIDED if too_wide else MATCHES, "alternative": "",
            "value_under_alternative": math.nan, "low_under_alternative": math.nan, "high_under_alternative": math.nan,
            "reason": ""}


def explained(row: Mapping[str, Any], paper: Any, alternative: str, values: Iterable[float] | float | Interval,
              tried: int = 1) -> dict[str, Any]:
    """``row`` (a ``differs`` agreement row for the paper's value ``paper``, as printed) re-judged
    under a named ``alternative``: ``differs, explained`` when the cell matches, by the rule of
    :func:`agreement`, with ``values`` (per run) under the alternative; otherwise unchanged. The
    alternative's value and its interval are shown either way; ``tried`` counts the alternatives tried
    for the cell."""
    if row["status"] != DIFFERS:
        return dict(row)
    redo = agreement(values, paper, item=str(row["item"]))
    out = dict(row)
    out["alternative"] = alternative + (f" (1 of {tried} readings tried)" if tried > 1 else "")
    out["value_under_alternative"] = redo["ours"]
    out["low_under_alternative"], out["high_under_alternative"] = redo["low"], redo["high"]
    if redo["status"] == MATCHES:
        out["status"] = EXPLAINED
        out["reason"] = f"matches under {alternative} ({redo['rule']})"
    return out


def not_comparable(item: str, ours: float, paper: float, reason: str) -> dict[str, Any]:
    """An agreement row whose data are not the paper's, or whose quantity depends on a setting the run
    does not share with the paper (``reason`` says which): shown, never judged."""
    if not reason:
        raise ValueError(f"not_comparable({item!r}): a reason is required")
    return {"item": item, "ours": ours, "low": math.nan, "high": math.nan, "n_runs": 0, "paper": paper,
            "rule": "", "status": NOT_COMPARABLE, "alternative": "", "value_under_alternative": math.nan,
            "low_under_alternative": math.nan, "high_under_alternative": math.nan, "reason": reason}


def claim(claim_id: str, statement: str, verdict: str, evidence: str, *, source: str = "",
          statistic: float = math.nan, low: float = math.nan, high: float = math.nan,
          threshold: float = math.nan, test: str = "") -> dict[str, Any]:
    """One claims row, checked: ``verdict`` must be one of :data:`VERDICTS`, and a ``not tested``
    row must say why in ``evidence``."""
    if verdict not in VERDICTS:
        raise ValueError(f"claim {claim_id!r}: verdict {verdict!r} is not one of {VERDICTS}")
    if verdict == NOT_TESTED and not evidence:
        raise ValueError(f"claim {claim_id!r}: a 'not tested' claim must say why in its evidence")
    if verdict in EVIDENCE and math.isnan(statistic) and not evidence:
        raise ValueError(f"claim {claim_id!r}: a verdict of {verdict!r} needs a statistic or evidence")
    return {"claim": claim_id, "statement": statement, "source": source, "verdict": verdict,
            "statistic": statistic, "low": low, "high": high, "threshold": threshold, "test": test,
            "evidence": evidence}


def by_reading(outcomes: Mapping[str, bool]) -> tuple[str | None, str]:
    """A statement judged under each named reading (``{reading: true under it}``):
    ``depends on reading`` when the readings give both outcomes, else None (the caller judges the
    statement as one); and the outcomes as text, e.g. ``"true under a, b; false under c"``."""
    true = [r for r, ok in outcomes.items() if ok]
    false = [r for r, ok in outcomes.items() if not ok]
    text = "; ".join(f"{word} under {', '.join(names)} ({len(names)} of {len(outcomes)} readings)"
                     for word, names in (("true", true), ("false", false)) if names)
    return (DEPENDS_ON_READING if true and false else None), text


def claims_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Claims rows (:func:`claim`) as a table with the standard columns, checked: unique ids, known
    verdicts."""
    table = pd.DataFrame(list(rows), columns=list(CLAIM_COLUMNS))
    check_claims(table, "claims table")
    return table


def check_claims(table: pd.DataFrame, label: str) -> None:
    """Refuse a claims table with an unknown verdict, a missing column or a repeated claim id."""
    missing = [c for c in ("claim", "statement", "verdict", "evidence") if c not in table.columns]
    if missing:
        raise ValueError(f"{label}: missing column(s) {missing}")
    unknown = sorted(set(table["verdict"]) - set(VERDICTS))
    if unknown:
        raise ValueError(f"{label}: verdict(s) {unknown} are not in the vocabulary {VERDICTS}")
    repeated = table["claim"][table["claim"].duplicated()].tolist()
    if repeated:
        raise ValueError(f"{label}: claim id(s) {repeated} appear more than once")


def agreement_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Agreement rows as a table with the standard columns, statuses checked."""
    table = pd.DataFrame(list(rows))
    for column in AGREEMENT_COLUMNS:
        if column not in table.columns:
            table[column] = "" if column in ("rule", "alternative", "reason") else math.nan
    extra = [c for c in table.columns if c not in AGREEMENT_COLUMNS]
    table = table[list(AGREEMENT_COLUMNS) + extra]
    unknown = sorted(set(table["status"]) - set(AGREEMENT))
    if unknown:
        raise ValueError(f"agreement table: status(es) {unknown} are not in the vocabulary {AGREEMENT}")
    return table


def counts(table: pd.DataFrame) -> dict[str, int]:
    """Verdict counts of a claims table, every category of :data:`VERDICTS` present (0 when absent)."""
    check_claims(table, "claims table")
    found = table["verdict"].value_counts()
    return {v: int(found.get(v, 0)) for v in VERDICTS}
