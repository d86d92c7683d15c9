"""Study 5's figures: the scores against the instance size, run times, and the censoring track."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd

from causaleval.effects import estimators as E

CENSORING_FIGSIZE = (11, 3.2)  # inches of the censoring figure


def plot_by_size(by_size: pd.DataFrame, scores: Sequence[str] = ("rmse", "enormse", "bias", "coverage", "cic",
                                                                  "encis")) -> plt.Figure:
    """One panel per score against the instance size, one line per method (eqs. 1-7)."""
    fig, axes = plt.subplots(2, 3, figsize=(11, 6))
    for ax, score in zip(axes.flat, scores):
        for method, g in by_size[score].groupby(level="method", sort=False):
            ax.plot(g.index.get_level_values("size"), g.to_numpy(), marker="o", label=method)
        _size_axis(ax, by_size.index.get_level_values("size").unique())
        ax.set_title(score.upper() if score != "bias" else "bias", fontsize=9)
        if score == "coverage":
            ax.axhline(E.LEVEL, color="grey", lw=0.8, ls="--")
        if score == "bias":
            ax.axhline(0, color="grey", lw=0.8, ls="--")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _size_axis(ax: plt.Axes, sizes: Sequence[int]) -> None:
    """A log axis of instance sizes labelled at the sizes themselves."""
    ax.set_xscale("log")
    ax.set_xticks(list(sizes), [f"{n:,}" for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("instance size n")


def plot_runtime(table: pd.DataFrame) -> plt.Figure:
    """Median point-fit run time against size, one line per method (log-log)."""
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for method, row in table.iterrows():
        ax.plot(row.index, row.to_numpy(), marker="o", label=method)
    _size_axis(ax, table.columns)
    ax.set_yscale("log")
    ax.set_ylabel("seconds per fit (median)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_censoring(scores: pd.DataFrame) -> plt.Figure:
    """RMSE, bias and coverage of each estimator, complete-case beside censoring-weighted."""
    fig, axes = plt.subplots(1, 3, figsize=CENSORING_FIGSIZE)
    frame = scores.copy()
    frame["estimator"] = frame.index.str.replace(r" \(.*\)$", "", regex=True)
    frame["variant"] = frame.index.str.extract(r"\((.*)\)$", expand=False).to_numpy()
    order = list(dict.fromkeys(frame["estimator"]))
    for ax, score in zip(axes, ("rmse", "bias", "coverage")):
        table = frame.pivot(index="estimator", columns="variant", values=score).reindex(order)
        table.plot.barh(ax=ax)
        ax.invert_yaxis()
        ax.set_title(score.upper() if score != "bias" else "bias", fontsize=9)
        ax.set_ylabel("")
        ax.legend(fontsize=7)
    for ax in axes[1:]:
        ax.set_yticklabels([])
    fig.tight_layout()
    return fig
