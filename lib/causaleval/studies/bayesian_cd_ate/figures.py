"""Study 6's figures: Figure 2 (precision and recall against the density filter) and Figure 3 (the
ATE distributions on Sachs of the paper's pair and of the chosen one)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from causaleval.studies.bayesian_cd_ate.paper import by_pair, paper_name

PANEL_INCHES = 3.2  # width of one panel of Figure 2


def figure2(pairs: pd.DataFrame) -> Any:
    """Precision (top) and recall (bottom) against the density filter, one column per
    setting, one line per method: mean and standard deviation over all (seed, pair) values."""
    import matplotlib.pyplot as plt

    settings_ = list(dict.fromkeys(pairs["setting"]))
    fig, axes = plt.subplots(2, len(settings_), figsize=(PANEL_INCHES * len(settings_), 5), squeeze=False, sharex=True)
    for c, setting in enumerate(settings_):
        sub = pairs[pairs["setting"] == setting]
        for method, g in sub.groupby("method", sort=False):
            stats = g.groupby("density")[["precision", "recall"]].agg(["mean", "std"])
            for r, metric in enumerate(("precision", "recall")):
                axes[r, c].errorbar(stats.index, stats[(metric, "mean")], yerr=stats[(metric, "std")],
                                    marker="o", capsize=3, label=paper_name(method))
        axes[0, c].set_title(setting)
        axes[1, c].set_xlabel("density filter")
    axes[0, 0].set_ylabel("precision")
    axes[1, 0].set_ylabel("recall")
    axes[0, -1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def figure3(distributions: pd.DataFrame) -> Any:
    """The ATE distributions on Sachs per method (the first seed), one column per pair
    (:func:`~.paper.by_pair`: the paper's own pair, then the chosen one): a stem of height = mass at
    each distinct value (the distributions are discrete), on a common symmetric axis per column at
    least [-0.5, 0.5] wide, so a distribution with all its mass at one value stays readable."""
    import matplotlib.pyplot as plt

    first = distributions[distributions["seed"] == distributions["seed"].min()]
    columns = by_pair(first)
    methods = list(dict.fromkeys(first["method"]))
    fig, axes = plt.subplots(len(methods), len(columns), figsize=(5 * len(columns), 1.4 * len(methods)),
                             sharex="col", squeeze=False)
    for c, (role, sub) in enumerate(columns.items()):
        reach = max(0.5, 1.1 * float(sub["ate"].abs().max()))
        for ax, method in zip(axes[:, c], methods):
            g = sub[sub["method"] == method]
            color = "C0" if method.startswith("MEC") else "C1"
            ax.vlines(g["ate"], 0, g["mass"], color=color, lw=2)
            ax.plot(g["ate"], g["mass"], "o", color=color, ms=4)
            if len(g):
                top = g.loc[g["mass"].idxmax()]
                ax.annotate(f"{top['mass']:.2f} at {top['ate']:.3g}", (0.99, 0.8), xycoords="axes fraction",
                            ha="right", fontsize=7)
            ax.set_xlim(-reach, reach)
            ax.set_ylim(0, 1.05)
            if c == 0:
                ax.set_ylabel(paper_name(method), rotation=0, ha="right", fontsize=8)
        pair = sub[["treatment", "outcome"]].iloc[0]
        axes[0, c].set_title(f"{role}: {pair['treatment']} -> {pair['outcome']}", fontsize=9)
        axes[-1, c].set_xlabel(f"ATE of {pair['treatment']} on {pair['outcome']} (z-scored data)")
    fig.tight_layout()
    return fig
