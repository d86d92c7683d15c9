"""Study 6's two checks of methods at other settings than the run's, read back and set beside its own.

Study 6 runs DiBS and BCD Nets at settings its time budget affords (DiBS 200 SVGD steps; BCD Nets
2,000 steps at learning rate 1e-2); their authors run them longer: DiBS 1,000 steps (dibs-lib's
example of marginal BGe inference; Lorch et al. 2021), BCD Nets 20,000 steps at 1e-3 (Cundy, Grover
and Ermon 2021). The committed runs of the two checks at those settings
(``notebooks/params/06.dibs_authors.yaml``, ``06.bcd_authors.yaml``) are read back here, one folder of
``checks_beside`` each (:func:`read_beside`), every method relabelled with the options it ran with
(:func:`label`). :func:`beside` sets their rows under this run's rows of the same methods on the same
data sets, and recomputes every verdict by the current rule (:func:`causaleval.bayes.check.check_summary`,
:func:`~causaleval.bayes.check.reference_summary`). A folder whose exact check drew its data sets with
another ``noise_sd`` is refused (its rows would be on other data).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from causaleval import params, paths, report
from causaleval.bayes import check
from causaleval.bayes.posteriors import OPTIONS
from causaleval.studies.bayesian_cd_ate.exact_check import check_stamp
from causaleval.studies.bayesian_cd_ate.paper import PAPER_NAMES

EXACT_KEYS = ["d", "n", "seed"]
REFERENCE_KEYS = ["data", "d", "n", "seed"]


class Beside(NamedTuple):
    """The checks of one folder of ``checks_beside``: where they come from (``source``, a sentence) and
    their ``exact`` and ``reference`` rows (empty where the folder ran none), methods relabelled."""

    source: str
    exact: pd.DataFrame
    reference: pd.DataFrame


def label(method: str, options: Mapping[str, Any]) -> str:
    """A method's paper name with the options of its own that a run set, e.g. ``bcdnets (bcd_steps 20000,
    bcd_lr 0.001)``, or ``(its defaults)`` when the run set none. ``method`` is the paper's name."""
    kit_name = next((k for k, v in PAPER_NAMES.items() if v == method), method)
    own = [f"{k} {v}" for k, v in options.items() if k in OPTIONS.get(kit_name, {})]
    return f"{method} ({', '.join(own) if own else 'its defaults'})"


def _relabelled(rows: pd.DataFrame, options: Mapping[str, Any]) -> pd.DataFrame:
    if rows.empty:
        return rows
    return rows.assign(method=[label(m, options) for m in rows["method"]])


def read_beside(folder: str, p: Mapping[str, Any]) -> Beside:
    """The checks committed in ``folder`` (relative to ``notebooks/``, where the kernel runs), read back
    with their methods relabelled (:func:`label`). Refused, naming the folder and the parameter, when it
    holds no readable exact-posterior check or drew its data with another ``noise_sd`` than ``p``."""
    where = paths.NOTEBOOKS / folder
    stamp = check_stamp(where, "checks_beside", "expected the folder of a committed run of study 6's checks "
                        "(e.g. notebooks/params/06.bcd_authors.yaml's)")
    ran = stamp["parameters"]
    if ran.get("noise_sd") != p["noise_sd"]:
        raise params.ParameterError(f"checks_beside: {folder} ran with noise_sd = {ran.get('noise_sd')!r}, "
                                    f"this run with {p['noise_sd']!r}; its exact check is on other data sets")
    options = ran.get("method_options", {})
    commit = (stamp["code"].get("commit") or "unknown")[:7]
    methods = ", ".join(label(PAPER_NAMES.get(m, m), options) for m in ran.get("methods", []))
    source = (f"{paths.display(where)}: {methods}, run at commit {commit} (`exact_seeds` {ran.get('exact_seeds')} of "
              f"`seeds` {ran.get('seeds')}, `exact_draws` {ran.get('exact_draws')}, `exact_draws_by_method` "
              f"{ran.get('exact_draws_by_method')}, `reference_nodes` {ran.get('reference_nodes')})")
    return Beside(source, *(_relabelled(report.read_table(where, name, text=("notes",)), options)
                            for name in ("exact_posterior", "reference_check")))


def _same_data(ours: pd.DataFrame | None, theirs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``ours`` rows of the methods ``theirs`` holds (by paper name) on the data sets it holds."""
    if ours is None or ours.empty or theirs.empty:
        return pd.DataFrame()
    names = {m.split(" (")[0] for m in theirs["method"]}
    data = theirs[list(keys)].drop_duplicates()
    return ours[ours["method"].isin(names)].merge(data, on=list(keys))


def beside(exact: pd.DataFrame | None, reference: pd.DataFrame, others: Sequence[Beside],
           options: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The exact-posterior and reference rows of ``others`` (:func:`read_beside`) under this run's rows
    (``exact``, ``reference``, relabelled with this run's ``options``) of the same methods on the same data
    sets (per data set this run's row first), and the verdicts of both: ``(exact rows, their check_summary,
    reference rows, their reference_summary)``; an empty frame where ``others`` have no rows."""
    out = []
    for ours, column, keys in ((exact, "exact", EXACT_KEYS), (reference, "reference", REFERENCE_KEYS)):
        theirs = [getattr(o, column) for o in others if not getattr(o, column).empty]
        rows = pd.concat([_relabelled(_same_data(ours, t, keys), options) for t in theirs] + theirs,
                         ignore_index=True) if theirs else pd.DataFrame()
        rows = rows.drop_duplicates(subset=[*keys, "method"]) if not rows.empty else rows
        summary = pd.DataFrame() if rows.empty else (check.check_summary(rows) if column == "exact"
                                                     else check.reference_summary(rows))
        out += [rows.sort_values(list(keys), kind="stable").reset_index(drop=True) if not rows.empty else rows, summary]
    return out[0], out[1], out[2], out[3]
