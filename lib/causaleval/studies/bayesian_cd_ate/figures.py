"""Study 6's figures: Figure 2 (precision and recall against the density filter) and Figure 3 (the
ATE distributions of one pair on Sachs)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from causaleval.studies.bayesian_cd_ate.paper import paper_name

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
    """The ATE distribution of the figure's pair on Sachs per method (the first seed): a stem of
    height = mass at each distinct value (the distributions are discrete), on a common symmetric axis
    at least [-0.5, 0.5] wide, so a distribution with all its mass at one value stays readable."""
    import matplotlib.pyplot as plt

    first = distributions[distributions["seed"] == distributions["seed"].min()]
    methods = list(dict.fromkeys(first["method"]))
    fig, axes = plt.subplots(len(methods), 1, figsize=(6, 1.4 * len(methods)), sharex=True, squeeze=False)
    reach = max(0.5, 1.1 * float(first["ate"].abs().max()))
    for ax, method in zip(axes[:, 0], methods):
        g = first[first["method"] == method]
        color = "C0" if method.startswith("MEC") else "C1"
        ax.vlines(g["ate"], 0, g["mass"], color=color, lw=2)
        ax.plot(g["ate"], g["mass"], "o", color=color, ms=4)
        top = g.loc[g["mass"].idxmax()]
        ax.annotate(f"{top['mass']:.2f} at {top['ate']:.3g}", (0.99, 0.8), xycoords="axes fraction",
                    ha="right", fontsize=7)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(paper_name(method), rotation=0, ha="right", fontsize=8)
    pair = first[["treatment", "outcome"]].iloc[0]
    axes[-1, 0].set_xlabel(f"ATE of {pair['treatment']} on {pair['outcome']} (z-scored data)")
    fig.tight_layout()
    return fig
