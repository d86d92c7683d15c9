"""Study 3's subject curve: the scores on nested subsamples of subjects, over repeated
pseudo-observational samples, and the error floor each model's TVD falls to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

import matplotlib.pyplot as plt
from scipy import optimize

from causaleval.parallel import run_trials
from causaleval.studies.over_under_specification.scores import MODELS, alteration_scores
from causaleval.studies.software_tvd import Domain, empirical_sample

REFERENCES = {"tvd": "consistent model, same sample (paper)", "tvd_truth": "factorial truth"}
CI_Z = 1.96  # the normal 97.5% point: error bars of +-1.96 standard errors
PANEL = (4.2, 3.4)  # inches of one panel of the subject-curve figure


def subject_curve(domain: Domain, dag: Any, *, subject_counts: Sequence[int], n_repeats: int, beta: float,
                  seed: int, smoothing: str, ess: float, level: int = 1, n_jobs: int = -1,
                  progress: bool = True) -> pd.DataFrame:
    """:func:`alteration_scores` on nested subsamples: repeat ``r`` draws one
    pseudo-observational sample (seed ``seed + 1000 (r + 1)``), shuffles its subjects once
    and scores the first ``n`` for every ``n`` in ``subject_counts`` (TVs only: SID and SHD do
    not depend on the sample, the main scores have them)."""
    too_many = [int(n) for n in subject_counts if int(n) > domain.subjects]
    if too_many:  # clip_subject_counts adapts the parameter before this point
        raise ValueError(f"subject_counts {too_many} exceed the {domain.subjects} complete subjects "
                         f"of domain {domain.name!r}; see clip_subject_counts")
    jobs = [{"domain": domain, "dag": dag, "repeat": r, "subject_counts": subject_counts, "beta": beta,
             "seed": seed, "smoothing": smoothing, "ess": ess, "level": level} for r in range(n_repeats)]
    frames = run_trials(_curve_repeat, jobs, n_jobs=n_jobs, desc=f"{domain.name} subsamples", progress=progress)
    return pd.concat(frames, ignore_index=True)


def _curve_repeat(domain: Domain, dag: Any, repeat: int, subject_counts: Sequence[int], beta: float,
                  seed: int, smoothing: str, ess: float, level: int) -> pd.DataFrame:
    repeat_seed = seed + 1000 * (repeat + 1)
    sample = empirical_sample(domain, beta, repeat_seed)
    order = np.random.default_rng(repeat_seed).permutation(len(sample))
    frames = [alteration_scores(domain, dag, sample.iloc[order[:int(n)]], smoothing=smoothing, ess=ess, level=level,
                                structure=False).assign(repeat=repeat) for n in subject_counts]
    return pd.concat(frames, ignore_index=True)


def curve_means(curve: pd.DataFrame) -> pd.DataFrame:
    """Mean over treatments per repeat, then mean and standard error over repeats, per
    (domain, model, subjects) and reference (``tvd`` or ``tvd_truth``)."""
    long = curve.melt(id_vars=["domain", "model", "subjects", "repeat", "treatment"],
                      value_vars=list(REFERENCES), var_name="reference", value_name="value")
    long = long[(long["model"] != "consistent") | (long["reference"] == "tvd_truth")]
    per_repeat = long.groupby(["domain", "reference", "model", "subjects", "repeat"])["value"].mean()
    grouped = per_repeat.groupby(["domain", "reference", "model", "subjects"])
    out = pd.DataFrame({"mean": grouped.mean(), "se": grouped.sem(), "repeats": grouped.size()}).reset_index()
    order = {"domain": list(dict.fromkeys(curve["domain"])), "reference": list(REFERENCES),
             "model": ["consistent", *MODELS]}
    rank = {key: out[key].map({v: i for i, v in enumerate(values)}) for key, values in order.items()}
    return out.assign(**{f"_{k}": v for k, v in rank.items()}).sort_values(
        ["_domain", "_reference", "_model", "subjects"]).drop(columns=[f"_{k}" for k in rank]).reset_index(drop=True)


def error_floor(means: pd.DataFrame) -> pd.DataFrame:
    """Split each curve into a part that more data removes and a part it does not.

    Fits ``mean TVD(n) = floor + b / sqrt(n)`` with ``floor, b >= 0`` by non-negative
    least squares (``scipy.optimize.nnls``) over the subject counts,
    per domain, reference and model: estimation error falls like ``n^(-1/2)``, a bias
    stays as ``floor`` (the extrapolation to infinitely many subjects). ``floor share`` is
    the floor over the mean at the smallest n; ``mostly`` reads it (below one half:
    estimation error, lost efficiency; else bias).
    """
    rows = []
    for (domain, reference, model), g in means.groupby(["domain", "reference", "model"], sort=False):
        design = np.column_stack([np.ones(len(g)), 1 / np.sqrt(g["subjects"].to_numpy(float))])
        (floor, b), _ = optimize.nnls(design, g["mean"].to_numpy(float))
        first = g.loc[g["subjects"].idxmin(), "mean"]
        share = floor / first if first > 0 else np.nan
        rows.append({"domain": domain, "reference": REFERENCES[reference], "model": model,
                     "mean at smallest n": first,
                     "mean at largest n": g.loc[g["subjects"].idxmax(), "mean"], "floor": floor,
                     "b": b, "floor share": share,
                     "mostly": "" if np.isnan(share) else ("estimation error" if share < 0.5 else "bias")})
    return pd.DataFrame(rows)


def plot_curve(means: pd.DataFrame) -> plt.Figure:
    """Mean summed TVD against subjects (log-log), one column per domain, one row per
    reference; panels of a row share their scale, ticks at 1, 2 and 5 times powers of ten."""
    from matplotlib import ticker

    domains = list(dict.fromkeys(means["domain"]))
    references = [r for r in REFERENCES if r in set(means["reference"])]
    fig, axes = plt.subplots(len(references), len(domains),
                             figsize=(PANEL[0] * len(domains), PANEL[1] * len(references)),
                             squeeze=False, sharex=True, sharey="row")
    colors = {"over-specify": "tab:blue", "under-specify": "tab:red", "consistent": "tab:gray"}
    for i, reference in enumerate(references):
        for j, domain in enumerate(domains):
            ax = axes[i, j]
            for model, g in means[(means["domain"] == domain) & (means["reference"] == reference)].groupby("model"):
                ax.errorbar(g["subjects"], g["mean"], yerr=CI_Z * g["se"].fillna(0), marker="o", ms=3,
                            capsize=2, color=colors.get(model), label=model)
            ax.set_xscale("log")
            ax.set_yscale("log")
            for axis in (ax.xaxis, ax.yaxis):
                axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
                axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                axis.set_minor_formatter(ticker.NullFormatter())
            ax.set_title(f"{domain}: vs {REFERENCES[reference]}", fontsize=9)
            ax.set_xlabel("subjects (log scale)")
            ax.set_ylabel(r"mean over T of $\sum_{T',O} TV_{T'=1}(O)$" if j == 0 else "")
            ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def floor_shares(curve: pd.DataFrame) -> pd.DataFrame:
    """Per (domain, model, repeat), against the paper's reference: the share of the TVD at the fewest
    subjects that the fit ``floor + b / sqrt(n)`` leaves at infinitely many (:func:`error_floor` on
    one repeat's curve), so the claim about the floor gets an interval over the repeats."""
    paper_ref = curve[curve["model"].isin(MODELS)]
    per = paper_ref.groupby(["domain", "model", "repeat", "subjects"], sort=False)["tvd"].mean().reset_index()
    rows = []
    for (domain, model, repeat), g in per.groupby(["domain", "model", "repeat"], sort=False):
        design = np.column_stack([np.ones(len(g)), 1 / np.sqrt(g["subjects"].to_numpy(float))])
        (floor, _), _ = optimize.nnls(design, g["tvd"].to_numpy(float))
        first = g.loc[g["subjects"].idxmin(), "tvd"]
        rows.append({"domain": domain, "model": model, "repeat": repeat,
                     "floor share": floor / first if first > 0 else np.nan})
    return pd.DataFrame(rows)
