"""Factorial experiments in one tidy layout: the data type studies 2 and 3 read.

Gentzel, Garant, Jensen (2019), supplement Sec. 1 and Table 1: every subject (a query,
a program, a web site) is run under every combination of treatments (system settings),
possibly several times (trials), and its outcomes are measured; subject covariates
exist before treatment and do not change with it. One row of ``frame`` is one run::

    subject | trial | treatment_1 .. treatment_k | outcome_1 .. | covariate_1 .. | [status]

``status`` (collected data only) is ``ok``, ``timeout`` or ``error``; a failed run keeps
its row with missing outcomes, so failures are recorded, not dropped.

Both sources produce this type: :mod:`causaleval.datasets.kdl` (the original KDL files)
and :mod:`causaleval.collect` (experiments the kit runs itself).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FactorialData:
    """A factorial experiment with the role of every column attached.

    ``levels`` maps each treatment to its levels in order (the first is the control).
    ``notes`` records what loading did to the data (renamed, dropped or fixed columns).
    """

    name: str
    frame: pd.DataFrame
    subject: str
    trial: str
    treatments: tuple[str, ...]
    outcomes: tuple[str, ...]
    covariates: tuple[str, ...]
    levels: Mapping[str, tuple] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        roles = [self.subject, self.trial, *self.treatments, *self.outcomes, *self.covariates]
        missing = [c for c in roles if c not in self.frame.columns]
        if missing:
            raise ValueError(f"{self.name}: columns {missing} are missing; the table has "
                             f"{list(self.frame.columns)}")
        repeated = sorted({c for c in roles if roles.count(c) > 1})
        if repeated:
            raise ValueError(f"{self.name}: columns {repeated} are given more than one role")
        if not self.treatments:
            raise ValueError(f"{self.name}: no treatment columns")
        if not self.levels:
            levels = {t: tuple(sorted(self.frame[t].dropna().unique())) for t in self.treatments}
            object.__setattr__(self, "levels", levels)

    @property
    def subjects(self) -> np.ndarray:
        return self.frame[self.subject].unique()

    @property
    def cells(self) -> pd.DataFrame:
        """Every combination of treatment levels (the design), one row each."""
        return pd.DataFrame(list(itertools.product(*(self.levels[t] for t in self.treatments))),
                            columns=list(self.treatments))

    def with_notes(self, *notes: str, **changes) -> FactorialData:
        return replace(self, notes=self.notes + notes, **changes)

    def ok(self) -> pd.DataFrame:
        """The runs that finished (all of them when the data carry no ``status``)."""
        if "status" not in self.frame:
            return self.frame
        return self.frame[self.frame["status"] == "ok"]

    def missing_cells(self) -> pd.DataFrame:
        """Subject x trial x cell combinations without a finished run.

        Columns: subject, trial, the treatments, and ``reason`` (``absent`` when the run
        is not in the data at all, else the run's status, such as ``timeout``).
        """
        design = self.cells.merge(
            self.frame[[self.subject, self.trial]].drop_duplicates(), how="cross")
        keys = [self.subject, self.trial, *self.treatments]
        seen = self.frame[keys + (["status"] if "status" in self.frame else [])]
        merged = design.merge(seen.drop_duplicates(keys), on=keys, how="left", indicator=True)
        reason = np.where(merged["_merge"] == "left_only", "absent",
                          merged["status"] if "status" in merged else "ok")
        merged["reason"] = reason
        return merged.loc[merged["reason"] != "ok", keys + ["reason"]].reset_index(drop=True)

    def complete(self) -> FactorialData:
        """Only the subjects with a finished run in every cell of every trial they have
        (what Algorithm 1 of the supplement needs), with a note of how many were left out."""
        gaps = self.missing_cells()
        incomplete = gaps[self.subject].unique()
        if len(incomplete) == 0:
            return self
        kept = self.frame[~self.frame[self.subject].isin(incomplete)]
        if "status" in kept:
            kept = kept.drop(columns="status")
        return self.with_notes(
            f"left out {len(incomplete)} of {len(self.subjects)} subjects without a finished run "
            f"in every treatment cell ({len(gaps)} runs missing or failed)",
            frame=kept.reset_index(drop=True))

    def describe(self) -> pd.DataFrame:
        """One row per column: its role, type and number of distinct values."""
        roles = {self.subject: "subject", self.trial: "trial",
                 **{c: "treatment" for c in self.treatments},
                 **{c: "outcome" for c in self.outcomes},
                 **{c: "covariate" for c in self.covariates}}
        return pd.DataFrame([
            {"column": c, "role": role, "dtype": str(self.frame[c].dtype),
             "distinct": int(self.frame[c].nunique()), "missing": int(self.frame[c].isna().sum())}
            for c, role in roles.items()]).set_index("column")


def select_treatments(data: FactorialData, treatments: Sequence[str] | None = None,
                      fixed: Mapping[str, object] | None = None) -> FactorialData:
    """Keep ``treatments`` (default: all) as treatments; hold every other one at one level.

    An unchosen treatment keeps only the runs at ``fixed[t]`` (default: its first, control
    level) and its column is dropped, so the remaining design is still factorial.
    """
    if treatments is None:
        chosen = data.treatments
    else:
        chosen = tuple(treatments)
        unknown = [t for t in chosen if t not in data.treatments]
        if unknown or not chosen:
            raise ValueError(f"{data.name}: treatments {list(chosen)} must be a non-empty subset "
                             f"of {list(data.treatments)}")
    fixed = dict(fixed or {})
    others = [t for t in data.treatments if t not in chosen]
    stray = sorted(set(fixed) - set(others))
    if stray:
        raise ValueError(f"{data.name}: `fixed` names {stray}, which are not unchosen treatments "
                         f"({others})")
    frame, notes = data.frame, []
    for t in others:
        level = fixed.get(t, data.levels[t][0])
        if level not in data.levels[t]:
            raise ValueError(f"{data.name}: treatment {t!r} has no level {level!r}; levels "
                             f"{list(data.levels[t])}")
        frame = frame.loc[frame[t] == level].drop(columns=t)
        notes.append(f"treatment {t} held at {level!r} (not a treatment here)")
    if not others:
        return data
    return data.with_notes(*notes, frame=frame.reset_index(drop=True), treatments=chosen,
                           levels={t: data.levels[t] for t in chosen})


def binarize(data: FactorialData, rules: Mapping[str, Mapping | str] | None = None) -> FactorialData:
    """Make every treatment binary (Algorithm 1 of the supplement assumes binary treatments).

    ``rules[t]`` is either ``"extremes"`` (the default: the first level -> 0, the last
    level -> 1, runs at middle levels dropped) or a mapping ``level -> 0 | 1``; runs at
    levels the mapping leaves out are dropped. Already binary 0/1 treatments are kept.

    The default reproduces the paper's counts: 11,252 Postgres queries x 2^3 = 90,016
    subject-treatment combinations from index_level, page_cost and memory_level at 0-2.
    """
    rules = dict(rules or {})
    unknown = sorted(set(rules) - set(data.treatments))
    if unknown:
        raise ValueError(f"{data.name}: binarization rules for {unknown}, which are not treatments "
                         f"({list(data.treatments)})")
    coded, notes, levels = {}, [], dict(data.levels)
    keep = np.ones(len(data.frame), dtype=bool)
    for t in data.treatments:
        mapping = _binary_mapping(data, t, rules.get(t, "extremes"))
        if mapping is None:
            continue
        values = data.frame[t].map(mapping)
        at_other = values.isna().to_numpy()
        keep &= ~at_other
        coded[t] = values
        levels[t] = (0, 1)
        kept = ", ".join(f"{k!r}->{v}" for k, v in mapping.items())
        notes.append(f"treatment {t}: {kept}" + (f"; {int(at_other.sum())} runs at other levels "
                                                  "dropped" if at_other.any() else ""))
    if not coded:
        return data
    frame = data.frame.assign(**coded).loc[keep].astype({t: "int8" for t in coded})
    return data.with_notes(*notes, frame=frame.reset_index(drop=True), levels=levels)


def _binary_mapping(data: FactorialData, t: str, rule: Mapping | str) -> dict | None:
    """level -> 0/1 for one treatment; None when it is already coded 0/1 and left alone."""
    present = data.levels[t]
    if rule == "extremes":
        if tuple(present) == (0, 1):
            return None
        if len(present) < 2:
            raise ValueError(f"{data.name}: treatment {t!r} has a single level {present}")
        return {present[0]: 0, present[-1]: 1}
    if isinstance(rule, Mapping):
        bad = set(rule.values()) - {0, 1}
        if bad:
            raise ValueError(f"{data.name}: binarization of {t!r} maps to {sorted(bad)}; "
                             "expected only 0 and 1")
        return dict(rule)
    raise ValueError(f"{data.name}: rule for {t!r} must be 'extremes' or a mapping "
                     f"level -> 0/1, got {rule!r}")


NORMALIZATIONS = ("none", "dataset", "subject")


def normalize_outcomes(data: FactorialData, outcomes: Iterable[str] | None = None,
                       per: str = "subject", offset: float | Mapping[str, float] = 0.0) -> FactorialData:
    """Divide outcomes by the median control-case outcome (Gentzel, Garant and Jensen 2019,
    supplement Sec. 1: "dividing outcome values by a 'baseline' value, the median control-case
    outcome value").

    ``y' = (y + offset) / (median{y : all treatments at their control level} + offset)``,
    the median taken over each subject's control runs (``per="subject"``, the reading
    under which the paper's Table 1 shows values near 1) or over the whole data set
    (``per="dataset"``). ``offset`` is one number or one per outcome (missing ones 0). A zero
    baseline cannot be divided by: the error names the outcome; ``offset=1`` is the usual choice
    for block or byte counts (:func:`zero_baseline_offsets`).
    """
    if per not in NORMALIZATIONS[1:]:
        raise ValueError(f"per must be 'subject' or 'dataset', got {per!r}")
    outcomes = list(outcomes or data.outcomes)
    offsets = pd.Series({o: float(offset.get(o, 0.0) if isinstance(offset, Mapping) else offset) for o in outcomes})
    base = _baselines(data, outcomes, per) + offsets
    for o in outcomes:
        has_runs = data.frame[o].notna()
        if (base.loc[has_runs, o].isna()).any():
            raise ValueError(f"{data.name}: outcome {o!r} has subjects without a control-case run; "
                             "call .complete() first")
        if (base.loc[has_runs, o] == 0).any():
            raise ValueError(f"{data.name}: outcome {o!r} has a zero control-case median; "
                             "pass offset=1 (counts) or leave it out of `outcomes`")
    scaled = (data.frame[outcomes] + offsets) / base
    shifted = [o for o in outcomes if offsets[o]]
    return data.with_notes(
        f"outcomes {outcomes} divided by the median control-case value per {per}"
        + (f" (offset {', '.join(f'{o} {offsets[o]:g}' for o in shifted)})" if shifted else ""),
        frame=data.frame.assign(**{o: scaled[o] for o in outcomes}))


def zero_baseline_offsets(data: FactorialData, outcomes: Iterable[str] | None = None,
                          per: str = "subject") -> dict[str, float]:
    """1 for each outcome whose control-case median is zero somewhere (per subject or over the data
    set: counts and times that can be 0, such as a project's unit-test time without tests), else 0:
    the offsets that make :func:`normalize_outcomes` defined. The paper names no rule for them."""
    outcomes = list(outcomes or data.outcomes)
    base = _baselines(data, outcomes, per)
    return {o: float((base[o] == 0).any()) for o in outcomes}


def _baselines(data: FactorialData, outcomes: list[str], per: str) -> pd.DataFrame:
    """Each run's baseline: the median of its subject's (or the data set's) control-case runs."""
    frame = data.ok()
    control = np.logical_and.reduce([frame[t] == data.levels[t][0] for t in data.treatments])
    if per == "subject":
        base = frame[control].groupby(data.subject)[outcomes].median()
        return data.frame[[data.subject]].join(base, on=data.subject)[outcomes]
    return pd.DataFrame({o: frame.loc[control, o].median() for o in outcomes}, index=data.frame.index)


def discretize(data: FactorialData, bins: int = 3, columns: Iterable[str] | None = None) -> FactorialData:
    """Integer codes 0..b-1 for outcomes and covariates (the paper made every variable discrete).

    A numeric column with more than ``bins`` distinct values is cut at its empirical
    quantiles ``1/bins, ..., (bins-1)/bins`` over the finished runs (value ``x`` gets the
    number of cut points ``< x``: bins closed on the right, as ``pandas.qcut``; repeated
    cut points merge bins, so heavily tied columns get fewer); a column with at most ``bins`` distinct values, or a
    non-numeric one, is coded by the rank of its distinct values. The cut points are kept in ``notes``, so the
    same coding can be stated and reapplied. Failed runs keep a missing value; a finished
    run without a value (a missing covariate) is an error naming the column, as its code
    could not be used downstream.
    """
    if bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}")
    columns = list(columns or (*data.outcomes, *data.covariates))
    roles = set(data.outcomes) | set(data.covariates)
    stray = [c for c in columns if c not in roles]
    if stray:
        raise ValueError(f"{data.name}: can only discretize outcomes and covariates, not {stray}")
    ok = data.ok()
    empty = ok[columns].isna().sum()
    if empty.any():
        column = empty.idxmax()
        raise ValueError(f"{data.name}: {int(empty[column])} finished run(s) without a {column!r} value "
                         f"(columns with gaps: {empty[empty > 0].to_dict()}); expected a value in every "
                         "finished run: leave those subjects out or choose another column")
    coded, notes = {}, []
    for c in columns:
        values = data.frame[c]
        distinct = np.sort(ok[c].dropna().unique())
        if not pd.api.types.is_numeric_dtype(values) or len(distinct) <= bins:
            lookup = {v: i for i, v in enumerate(distinct)}
            coded[c] = values.map(lookup).astype("Int16")
            continue
        cuts = np.unique(np.quantile(ok[c].dropna().to_numpy(dtype=float),
                                     np.arange(1, bins) / bins))
        codes = np.searchsorted(cuts, values.to_numpy(dtype=float), side="left")
        coded[c] = pd.Series(codes, index=values.index).where(values.notna()).astype("Int16")
        notes.append(f"{c}: cut at {np.round(cuts, 6).tolist()}")
    return data.with_notes(f"discretized into at most {bins} bins by quantiles", *notes,
                           frame=data.frame.assign(**coded))


def assignment_probabilities(data: FactorialData, biasing_covariate: str, beta: float) -> np.ndarray:
    """``P(t_j = 1)`` for each subject (rows, sorted by subject) and treatment under Algorithm 1:
    ``logistic(s_ej * beta)``, ``s_ej = +1`` if ``C_e * j`` is even else ``-1``, ``C_e`` the
    dense rank of the subject's covariate value (see :func:`pseudo_observational`)."""
    if beta < 0:
        raise ValueError(f"beta must be >= 0 (Algorithm 1), got {beta}")
    if biasing_covariate not in data.frame.columns:
        raise ValueError(f"{data.name}: no biasing covariate column {biasing_covariate!r}; "
                         f"covariates: {list(data.covariates)}")
    frame = data.ok()
    subject_codes, subjects = pd.factorize(frame[data.subject], sort=True)
    covariate = frame.groupby(subject_codes)[biasing_covariate].agg(["first", "nunique"])
    varying = subjects[covariate["nunique"].to_numpy() > 1]
    if len(varying):
        raise ValueError(f"{data.name}: biasing covariate {biasing_covariate!r} varies within "
                         f"subjects {list(varying[:5])}; it must be fixed per subject")
    rank = pd.Series(covariate["first"]).rank(method="dense").to_numpy().astype(np.int64)
    j = np.arange(1, len(data.treatments) + 1)
    sign = np.where((rank[:, None] * j[None, :]) % 2 == 0, 1.0, -1.0)
    return 1.0 / (1.0 + np.exp(-sign * beta))
