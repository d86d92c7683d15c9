"""Study 4's causal fairness metrics on a linear structural causal model, reconstruction error, and
refutations against DoWhy."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd



# ============================================================ fairness on a linear SCM
#: the worked example's structural equations: C confounds the protected attribute A (binary)
#: and the outcome Y; W mediates A -> Y
FAIRNESS_WEIGHTS = {"alpha": 1.5, "gamma_w": 0.5, "beta": 0.5, "delta": 0.8, "gamma_y": 1.0}


def fairness_scm(alpha: float, gamma_w: float, beta: float, delta: float, gamma_y: float):
    """``C = U_C``, ``A = 1[C + U_A > 0]``, ``W = alpha A + gamma_w C + U_W``,
    ``Y = beta A + delta W + gamma_y C + U_Y``, all noises standard normal."""
    from causaleval.metrics.fairness import LinearSCM

    return LinearSCM.from_equations({"C": {}, "A": {"C": 1.0}, "W": {"A": alpha, "C": gamma_w},
                                     "Y": {"A": beta, "W": delta, "C": gamma_y}}, binary=["A"])


def fairness_truth(alpha: float, gamma_w: float, beta: float, delta: float, gamma_y: float) -> dict[str, float]:
    """Analytic values on :func:`fairness_scm` (x0 = 0, x1 = 1, conditioning on A = 0).
    ``E[C | A = 1] - E[C | A = 0] = 2 / sqrt(pi)`` (C and U_A standard normal, so
    ``E[C | C + U_A > 0] = phi(0) / (sqrt 2 * 1/2) = 1 / sqrt(pi)``)."""
    spurious = (gamma_y + delta * gamma_w) * 2 / np.sqrt(np.pi)
    return {"Ctf-DE": beta, "Ctf-IE": alpha * delta, "Ctf-SE": spurious,
            "PC-fairness, path A -> W -> Y": alpha * delta, "PC-fairness, path A -> Y": beta,
            "counterfactual fairness, predictor on A, W, C": abs(beta + delta * alpha),
            "counterfactual fairness, predictor on W, C (unaware)": abs(delta * alpha),
            "counterfactual fairness, predictor on C and U_W": 0.0,
            "total variation E[Y | A=1] - E[Y | A=0]": beta + delta * alpha + spurious}


def fairness_values(scm: Any, data: pd.DataFrame, weights: Mapping[str, float]) -> dict[str, float]:
    """Every fairness metric of :mod:`causaleval.metrics.fairness` on ``data``, named as in
    :func:`fairness_truth`."""
    from causaleval.metrics import fairness

    w = weights
    full = lambda v: w["beta"] * v["A"] + w["delta"] * v["W"] + w["gamma_y"] * v["C"]  # noqa: E731
    unaware = lambda v: w["delta"] * v["W"] + w["gamma_y"] * v["C"]  # noqa: E731
    fair = lambda v: w["gamma_y"] * v["C"] + (v["W"] - w["alpha"] * v["A"] - w["gamma_w"] * v["C"])  # noqa: E731
    given = {"A": 0}
    return {
        "Ctf-DE": fairness.ctf_de(scm, data, "A", "Y", ["W"]),
        "Ctf-IE": fairness.ctf_ie(scm, data, "A", "Y", ["W"]),
        "Ctf-SE": fairness.ctf_se(scm, data, "A", "Y"),
        "PC-fairness, path A -> W -> Y": fairness.pc_fairness(scm, data, "A", "Y", [("A", "W"), ("W", "Y")],
                                                              given=given),
        "PC-fairness, path A -> Y": fairness.pc_fairness(scm, data, "A", "Y", [("A", "Y")], given=given),
        "counterfactual fairness, predictor on A, W, C": fairness.counterfactual_fairness(scm, data, full, "A"),
        "counterfactual fairness, predictor on W, C (unaware)":
            fairness.counterfactual_fairness(scm, data, unaware, "A"),
        "counterfactual fairness, predictor on C and U_W": fairness.counterfactual_fairness(scm, data, fair, "A"),
        "total variation E[Y | A=1] - E[Y | A=0]": float(data.loc[data["A"] == 1, "Y"].mean()
                                                         - data.loc[data["A"] == 0, "Y"].mean()),
    }


def fairness_example(*, n: int, replications: int, seed: int) -> pd.DataFrame:
    """Each fairness metric on ``replications`` samples of ``n`` units of :func:`fairness_scm`:
    the mean, its 95% interval (mean +- 1.96 sd / sqrt(replications)), the analytic value, and
    whether the interval holds it (a per-unit constant has sd 0: then equality to 1e-9)."""
    w = FAIRNESS_WEIGHTS
    scm = fairness_scm(**w)
    runs = pd.DataFrame([fairness_values(scm, scm.sample(n, seed + r), w) for r in range(replications)])
    truth = pd.Series(fairness_truth(**w))
    half = 1.959963984540054 * runs.std(ddof=1) / np.sqrt(replications)
    mean = runs.mean()
    return pd.DataFrame({"estimate": mean, "95% interval": [f"[{a:.3f}, {b:.3f}]" for a, b in
                                                            zip(mean - half, mean + half, strict=True)],
                         "analytic": truth,
                         "inside MC interval": ((mean - truth).abs() <= half + 1e-9).to_numpy()}).rename_axis("metric")


def explanation_formula(*, n: int, seed: int) -> pd.Series:
    """Zhang and Bareinboim's Theorem 1 on one sample: ``TV = DE_{0,1}(y|0) - IE_{1,0}(y|0) -
    SE_{1,0}(y)``, both sides computed (they agree exactly on any sample of a linear SCM)."""
    from causaleval.metrics import fairness

    scm = fairness_scm(**FAIRNESS_WEIGHTS)
    data = scm.sample(n, seed)
    tv = float(data.loc[data["A"] == 1, "Y"].mean() - data.loc[data["A"] == 0, "Y"].mean())
    rhs = (fairness.ctf_de(scm, data, "A", "Y", ["W"], x0=0, x1=1, given=0)
           - fairness.ctf_ie(scm, data, "A", "Y", ["W"], x0=1, x1=0, given=0)
           - fairness.ctf_se(scm, data, "A", "Y", x0=1, x1=0))
    return pd.Series({"TV": tv, "DE - IE - SE": rhs, "|difference|": abs(tv - rhs)})


#: the reconstruction-error example: X1 -> X2 -> X3, standard normal noise
RECONSTRUCTION_EQUATIONS = {"X1": {}, "X2": {"X1": 1.0}, "X3": {"X2": -0.5}}


def reconstruction_inputs(*, n: int, n_points: int, shift: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``n`` rows of the SCM X1 -> X2 -> X3 and the counterfactuals ``do(X1 = X1 + shift)`` of
    its first ``n_points`` rows: (points, data)."""
    from causaleval.metrics import fairness

    scm = fairness.LinearSCM.from_equations(RECONSTRUCTION_EQUATIONS)
    data = scm.sample(n, seed)
    head = data.iloc[:n_points]
    return scm.counterfactual(head, {"X1": head["X1"].to_numpy() + shift}), data


def reconstruction_example(*, sizes: Sequence[int], n_points: int, shift: float, n_components: int,
                           seed: int) -> pd.DataFrame:
    """The reconstruction error of the counterfactual points of :func:`reconstruction_inputs`
    and of the same rows unchanged, under the linear autoencoder of the first ``n`` rows for
    each ``n`` in ``sizes``, beside the population value it converges to (the model's own
    principal components)."""
    from causaleval.metrics import fairness

    scm = fairness.LinearSCM.from_equations(RECONSTRUCTION_EQUATIONS)
    cf, data = reconstruction_inputs(n=max(sizes), n_points=n_points, shift=shift, seed=seed)
    points = {"counterfactual": cf, "factual": data.iloc[:n_points]}
    rows = [{"points": kind, "rows": n,
             "sample autoencoder": fairness.reconstruction_error(x, data.iloc[:n], n_components)}
            for kind, x in points.items() for n in sizes]
    out = pd.DataFrame(rows)
    analytic = {kind: fairness.population_reconstruction_error(scm, x, n_components) for kind, x in points.items()}
    return out.assign(**{"population (analytic)": out["points"].map(analytic)}).set_index(["points", "rows"])


# ============================================================ refutations (against DoWhy)
def refutation_data(*, n: int, effect: float, seed: int) -> pd.DataFrame:
    """``W ~ N(0, 1)``, ``T = 1[W + N(0, 1) > 0]``, ``Y = effect T + W + N(0, 1)``."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=n)
    t = (w + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"W": w, "T": t, "Y": effect * t + w + rng.normal(size=n)})


def refutation_table(data: pd.DataFrame, *, n_simulations: int, seed: int) -> pd.DataFrame:
    """The three refutation tests of the least-squares effect of T on Y (adjusting for W), by
    the kit and by DoWhy on the same draws, plus DoWhy's data-subset refuter with an integer
    seed."""
    from causaleval.metrics import refutation as rf

    rows = []
    for test in (rf.PLACEBO, rf.RANDOM_COMMON_CAUSE, rf.DATA_SUBSET):
        ours = rf.refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=seed)
        theirs = rf.dowhy_refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=seed)
        rows.append({"test": test, "estimate": ours.estimate, "new effect": ours.new_effect, "p-value": ours.p_value,
                     "DoWhy new effect": theirs.new_effect, "DoWhy p-value": theirs.p_value,
                     "same as DoWhy": bool(np.isclose(ours.new_effect, theirs.new_effect, rtol=1e-9, atol=1e-12)
                                    and np.isclose(ours.p_value, theirs.p_value, rtol=1e-6, atol=1e-9))})
    bug = rf.dowhy_refute(data, "T", "Y", ["W"], rf.DATA_SUBSET, n_simulations=n_simulations, seed=seed,
                          integer_seed=True)
    rows.append({"test": "data subset, DoWhy given an integer seed", "estimate": bug.estimate,
                 "DoWhy new effect": bug.new_effect, "DoWhy p-value": bug.p_value})
    return pd.DataFrame(rows).set_index("test")
