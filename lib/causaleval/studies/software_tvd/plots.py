"""Study 2's plots."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from causaleval import verdicts
from causaleval.studies.software_tvd.figure2 import LABELS, MEASURES


# ------------------------------------------------------------------------ plots
def plot_figure1(results: pd.DataFrame, panels: Sequence[str]):
    """Boxes of each trial's mean TV (over the (T, O) pairs and both values of T), one
    panel per data kind, on one shared scale."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(panels), figsize=(PANEL_INCHES * len(panels), 3.6), sharey=True, squeeze=False)
    for ax, panel in zip(axes[0], panels):
        sub = results[results["panel"] == panel]
        sns.boxplot(data=sub, x="domain", y="mean_tvd", hue="learner", ax=ax, fliersize=2,
                    hue_order=sorted(results["learner"].unique()))
        ax.set_title(panel)
        ax.set_xlabel("")
        ax.set_ylabel("mean TV over (T, O) pairs and t")
        handles, labels = ax.get_legend_handles_labels()
        ax.get_legend().remove()
    fig.legend(handles, labels, title="learner", loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


PANEL_INCHES = 4.2  # width of one Figure 1 panel
BOUNDS_ALPHA = 0.35  # shading of the SID-bound lines

def plot_measures(results: pd.DataFrame, learner: str):
    """SHD-SID, SHD-TVD and SID-TVD of one learner over the random networks. On the SHD-SID
    panel, vertical bars span the SID bounds over the learned class; on the TVD panels,
    grey crosses mark the true DAG fitted to the same sample (SHD = SID = 0)."""
    import matplotlib.pyplot as plt

    sub = results[results["learner"] == learner]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, (a, b) in zip(axes, (("shd", "sid"), ("shd", "tvd"), ("sid", "tvd"))):
        ax.scatter(sub[a], sub[b], s=14, label=learner)
        if b == "sid":
            ax.vlines(sub[a], sub["sid_min"], sub["sid_max"], color="tab:blue", alpha=BOUNDS_ALPHA, lw=1,
                      label="SID bounds over the class")
            ax.legend(fontsize=7, loc="best")
        if b == "tvd":
            ax.scatter(np.zeros(len(sub)), sub["tvd_true_dag"], s=14, marker="x", color="grey",
                       label="true DAG, same sample")
            ax.legend(fontsize=7, loc="best")
        r = stats.pearsonr(sub[a], sub[b]).statistic
        low, high = verdicts.correlation_interval(r, len(sub))
        ax.set_xlabel(LABELS[a])
        ax.set_ylabel(LABELS[b])
        ax.set_title(f"{learner}: r = {r:.2f} [{low:.2f}, {high:.2f}]", fontsize=9)
    fig.tight_layout()
    return fig


def plot_orders(results: pd.DataFrame):
    """Supp. Figure 4: each measure per learner over the random networks; the TVD panel
    adds the true DAG fitted to the same samples."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    baseline = results.drop_duplicates("dag").assign(learner="true DAG", tvd=lambda f: f["tvd_true_dag"])
    for ax, measure in zip(axes, MEASURES):
        data = pd.concat([results, baseline]) if measure == "tvd" else results
        sns.boxplot(data=data, x="learner", y=measure, ax=ax, fliersize=2)
        ax.set_ylabel(LABELS[measure])
        ax.set_xlabel("")
    fig.tight_layout()
    return fig
