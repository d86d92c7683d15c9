"""Simulated treatments, outcomes and censoring over real covariates: the data-generating
process (DGP) of the IBM causal inference benchmarking framework (Shimoni et al. 2018, Sec. 2.5;
full reference in REFERENCES.md) and its file layout (Sec. 2.2).

A DGP is a small parameter record (:class:`DGP`). Each *instance* draws its own random causal
graph over the covariates and its own functions (Sec. 2.2: "a model is created that adheres to
the complexity parameters"), on a random subset of ``size`` rows:

1. **Graph.** Disjoint random sets of covariates are connected to the simulated nodes, counted
   per region of their Venn diagram as the framework's meta-data do (``n_conf(y)``,
   ``n_conf(yz)``, ...): ``n_y`` drive the outcome only, ``n_yz`` outcome and treatment (the
   confounders), ``n_z`` treatment only, ``n_c`` censoring only, ``n_cy`` censoring and
   outcome, ``n_cz`` censoring and treatment, ``n_cyz`` all three. With
   ``censoring_on_treatment`` the treatment is one more cause of censoring.
2. **Functions.** Covariates are standardised over the whole table and clipped to [-3, 3]
   (so a rare count cubed cannot single out a handful of rows). A node with causes S gets
   ``g(x) = sum_{j in S} sum_{d=1..degree} b_jd x_j^d`` with ``b_jd ~ N(0, 1)``, standardised to
   mean 0 and sd 1 over the instance; with ``link="exp"``, ``g <- standardise(exp(g))``.
3. **Potential outcomes.** ``mu0 = g_y(x)``; individual effect ``tau(x) = effect +
   heterogeneity * h(x)`` with ``h`` a second function of the outcome's causes;
   ``y0 = mu0 + eps``, ``y1 = mu0 + tau + eps`` with one noise ``eps ~ N(0, s^2)`` per row whose
   variance makes ``snr = var(mu0) / (var(mu0) + s^2)``. The true effect of an instance is the
   mean of ``y1 - y0`` (as the framework's scorer computes it from the counterfactual file).
4. **Treatment.** ``P(z = 1 | x) = sigmoid(g_z(x) + b_z)``, ``b_z`` solved so that the mean
   probability over the instance equals ``prevalence``; ``z ~ Bernoulli``.
5. **Censoring.** ``P(censored | x, z) = sigmoid(g_c(x, z) + b_c)``, ``b_c`` solved for a mean of
   ``censoring_rate``; a censored row reports ``y = NA``, the others ``y = y_z``.

Choices the paper leaves open are those above (the clipping, the unit-sd logits, one noise
shared by both potential outcomes, the effect modifier drawn over the outcome's causes); the
framework's meta-data also list a ``log`` link that the paper does not define, left out here.

Files (Sec. 2.2): the covariate table ``x.csv`` keyed by ``sample_id``, per instance
``<ufid>.csv`` (sample_id, z, y; y empty when censored) and ``<ufid>_cf.csv`` (sample_id, y0, y1)
in a track folder (``scaling/``, ``censoring/``), and ``<track>_params.csv`` mapping each ufid to
its DGP's parameters. A ufid is a random 32-digit hexadecimal id, unrelated to its DGP.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit

from causaleval.metrics import ibm
from causaleval.report import atomic_write

CLIP = 3.0
LINKS = ("poly", "exp")
TRACKS = ("scaling", "censoring")
#: the Venn regions of causes, in the framework's meta-data order
REGIONS = ("n_y", "n_yz", "n_z", "n_c", "n_cy", "n_cz", "n_cyz")


@dataclass(frozen=True)
class DGP:
    """One data-generating process (see the module docstring for the meaning of each field)."""

    name: str
    n_y: int = 3
    n_yz: int = 3
    n_z: int = 3
    n_c: int = 0
    n_cy: int = 0
    n_cz: int = 0
    n_cyz: int = 0
    censoring_on_treatment: bool = False
    link: str = "poly"
    degree: int = 1
    prevalence: float = 0.3
    effect: float = 1.0
    heterogeneity: float = 0.5
    snr: float = 0.8
    censoring_rate: float = 0.0

    def check(self, n_covariates: int | None = None) -> DGP:
        """Raise ValueError naming the first field out of range; return self."""
        def fail(field: str, expected: str) -> None:
            raise ValueError(f"DGP {self.name!r}: {field} = {getattr(self, field)!r}; expected {expected}")

        for field in REGIONS:
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                fail(field, "an integer >= 0")
        if self.n_y + self.n_yz + self.n_cy + self.n_cyz < 1:
            fail("n_y", "at least one cause of the outcome (n_y + n_yz + n_cy + n_cyz >= 1)")
        if self.n_z + self.n_yz + self.n_cz + self.n_cyz < 1:
            fail("n_z", "at least one cause of the treatment (n_z + n_yz + n_cz + n_cyz >= 1)")
        if self.link not in LINKS:
            fail("link", f"one of {LINKS}")
        if isinstance(self.degree, bool) or not isinstance(self.degree, (int, np.integer)) or not 1 <= self.degree <= 5:
            fail("degree", "an integer in 1..5")
        if not 0 < self.prevalence < 1:
            fail("prevalence", "a fraction in (0, 1)")
        if not 0 < self.snr <= 1:
            fail("snr", "a fraction in (0, 1]")
        if not 0 <= self.censoring_rate < 1:
            fail("censoring_rate", "a fraction in [0, 1)")
        if not np.isfinite(self.effect):
            fail("effect", "a finite number")
        if not (np.isfinite(self.heterogeneity) and self.heterogeneity >= 0):
            fail("heterogeneity", "a finite number >= 0")
        if self.censoring_rate > 0 and self.n_c + self.n_cy + self.n_cz + self.n_cyz < 1 \
                and not self.censoring_on_treatment:
            fail("censoring_rate", "0 when censoring has no cause (n_c + n_cy + n_cz + n_cyz = 0)")
        if n_covariates is not None and self.n_causes > n_covariates:
            fail("n_y", f"at most {n_covariates} causes in all (the covariate table's usable columns), "
                        f"found {self.n_causes}")
        return self

    @property
    def n_causes(self) -> int:
        """Covariates the graph uses (each region's covariates are distinct)."""
        return sum(getattr(self, r) for r in REGIONS)

    def record(self) -> dict:
        """The fields as a flat dict (a row of the meta-data table)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Instance:
    """One data instance: covariates ``X`` and the simulated columns, indexed by sample_id."""

    ufid: str
    dgp: DGP
    X: pd.DataFrame
    z: pd.Series
    y: pd.Series
    y0: pd.Series
    y1: pd.Series
    censored: pd.Series

    @property
    def effect(self) -> float:
        """The true effect: the mean of ``y1 - y0`` (the framework's scorer)."""
        return float((self.y1 - self.y0).mean())

    def meta(self) -> dict:
        """The instance's row of the meta-data table."""
        return {"ufid": self.ufid, "size": len(self.z), "pct_treated": 100 * float(self.z.mean()),
                "pct_censored": 100 * float(self.censored.mean()), "effect_size": self.effect,
                **{("dgp" if k == "name" else k): v for k, v in self.dgp.record().items()}}


# ------------------------------------------------------------------ covariates
def check_covariates(X: pd.DataFrame, source: str = "covariate table") -> pd.DataFrame:
    """The covariate table as floats indexed by unique sample ids, or a ValueError naming the
    non-numeric columns (encode them first, e.g. :func:`encode_categorical`), missing or
    infinite values, or duplicate ids."""
    if not isinstance(X, pd.DataFrame) or X.empty:
        raise ValueError(f"{source}: expected a non-empty DataFrame of covariates, found {type(X).__name__}")
    bad = [c for c in X.columns if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))]
    if bad:
        kinds = sorted({str(X[c].dtype) for c in bad})
        raise ValueError(f"{source}: non-numeric columns {bad[:10]} (dtype {', '.join(kinds)}); "
                         "expected numbers: encode them first (causaleval.effects.simulation.encode_categorical)")
    values = X.to_numpy(float)
    if not np.isfinite(values).all():
        rows, cols = np.nonzero(~np.isfinite(values))
        raise ValueError(f"{source}: missing or infinite value in column {X.columns[cols[0]]!r} at sample "
                         f"{X.index[rows[0]]!r} ({len(rows)} in all); expected finite numbers")
    if X.index.has_duplicates:
        raise ValueError(f"{source}: duplicate sample ids {X.index[X.index.duplicated()][:5].tolist()}")
    return X.astype(float)


def encode_categorical(X: pd.DataFrame) -> pd.DataFrame:
    """One 0/1 column per level but the first (alphabetical) of every non-numeric column,
    named ``<column>_<level>``; numeric columns unchanged."""
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    return pd.get_dummies(X, columns=categorical, drop_first=True, dtype=float)


def acic2016_covariates() -> pd.DataFrame:
    """The 4,802 x 58 ACIC 2016 covariates shipped in the causallib wheel (Dorie et al. 2019),
    its three categorical columns (x_2, x_21, x_24) one-hot encoded by :func:`encode_categorical`
    (79 columns), indexed by sample_id ``s0`` .. ``s4801`` (the row number)."""
    from causallib.datasets import load_acic16

    raw, _ = load_acic16(instance=1, raw=True)
    X = encode_categorical(raw)
    return check_covariates(X.set_axis(pd.Index([f"s{i}" for i in range(len(X))], name="sample_id")),
                            "ACIC 2016 covariates")


def standardize(X: pd.DataFrame) -> pd.DataFrame:
    """Columns with spread, as z-scores over the whole table clipped to [-CLIP, CLIP]
    (constant columns dropped: they cannot cause anything)."""
    sd = X.std(ddof=0)
    usable = sd.index[sd > 0]
    return ((X[usable] - X[usable].mean()) / sd[usable]).clip(-CLIP, CLIP)


# ------------------------------------------------------------------ simulation
def _function(Z: np.ndarray, dgp: DGP, rng: np.random.Generator) -> np.ndarray:
    """A random polynomial of the columns of Z (exp link applied), standardised over the rows."""
    terms = np.concatenate([Z**d for d in range(1, dgp.degree + 1)], axis=1)
    g = _unit(terms @ rng.standard_normal(terms.shape[1]))
    return _unit(np.exp(g)) if dgp.link == "exp" else g


def _unit(g: np.ndarray) -> np.ndarray:
    sd = g.std()
    return (g - g.mean()) / sd if sd > 0 else np.zeros_like(g)


def _calibrated(logit: np.ndarray, rate: float) -> np.ndarray:
    """``sigmoid(logit + b)`` with b such that the mean probability is ``rate``."""
    b = brentq(lambda b: expit(logit + b).mean() - rate, -60, 60, xtol=1e-12)
    return expit(logit + b)


def check_size(size: int, n_rows: int) -> None:
    """Refuse an instance size that is not an integer in 2..n_rows (rows are drawn without replacement)."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 2 <= size <= n_rows:
        raise ValueError(f"size {size!r}: expected 2..{n_rows} (the covariate table's rows; "
                         "instances are drawn without replacement)")


def simulate(dgp: DGP, covariates: pd.DataFrame, size: int, seed: Sequence[int] | int, ufid: str,
             standardized: pd.DataFrame | None = None) -> Instance:
    """One instance of ``dgp`` on ``size`` rows of ``covariates`` drawn without replacement,
    seeded by ``seed`` (pass ``standardized = standardize(covariates)`` to reuse it)."""
    Z_all = standardize(check_covariates(covariates)) if standardized is None else standardized
    dgp.check(Z_all.shape[1])
    check_size(size, len(covariates))
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(covariates), size, replace=False))
    Z = Z_all.to_numpy()[rows]
    chosen = rng.permutation(Z_all.shape[1])
    cut = np.cumsum([getattr(dgp, r) for r in REGIONS])
    region = dict(zip(REGIONS, np.split(chosen[: cut[-1]], cut[:-1])))
    causes = {node: np.concatenate([region[r] for r in REGIONS if node in r[2:]]).astype(int) for node in "yzc"}

    mu0 = _function(Z[:, causes["y"]], dgp, rng)
    tau = dgp.effect + dgp.heterogeneity * _function(Z[:, causes["y"]], dgp, rng)
    noise_sd = np.sqrt((1 - dgp.snr) / dgp.snr) * mu0.std()
    eps = noise_sd * rng.standard_normal(size)
    y0, y1 = mu0 + eps, mu0 + tau + eps
    z = (rng.random(size) < _calibrated(_function(Z[:, causes["z"]], dgp, rng), dgp.prevalence)).astype(int)
    censored = np.zeros(size, bool)
    if dgp.censoring_rate > 0:
        parents = Z[:, causes["c"]]
        if dgp.censoring_on_treatment:
            parents = np.column_stack([parents, z])
        censored = rng.random(size) < _calibrated(_function(parents, dgp, rng), dgp.censoring_rate)
    ids = covariates.index[rows]
    series = lambda v, name: pd.Series(v, index=ids, name=name)  # noqa: E731
    y = np.where(censored, np.nan, np.where(z == 1, y1, y0))
    return Instance(ufid, dgp, covariates.iloc[rows], series(z, "z"), series(y, "y"), series(y0, "y0"),
                    series(y1, "y1"), series(censored, "censored"))


def ufids(n: int, seed: Sequence[int] | int) -> list[str]:
    """``n`` distinct random 32-digit hexadecimal ids (unrelated to any DGP)."""
    rng = np.random.default_rng(seed)
    out = [rng.bytes(16).hex() for _ in range(n)]
    if len(set(out)) != n:
        raise RuntimeError("ufids: a repeated id; use another seed")
    return out


def make_track(dgps: Sequence[DGP], covariates: pd.DataFrame, sizes: Sequence[int], n_instances: int,
               seed: int) -> list[Instance]:
    """``n_instances`` instances of every DGP at every size. Instance k of DGP d at size n is
    seeded by ``[seed, d, n, k]``; ufids come from a separate stream and are handed out in a
    shuffled order, so neither the id nor the file order reveals the DGP."""
    names = [d.name for d in dgps]
    if len(set(names)) != len(names):
        raise ValueError(f"DGP names must be unique, found {names}")
    Z = standardize(check_covariates(covariates))
    for d in dgps:
        d.check(Z.shape[1])
    for n in sizes:
        check_size(n, len(covariates))
    keys = [(i, d, int(n), k) for i, d in enumerate(dgps) for n in sizes for k in range(n_instances)]
    ids = ufids(len(keys), [seed, 1])
    order = np.random.default_rng([seed, 2]).permutation(len(keys))
    return [simulate(d, covariates, n, [seed, i, n, k], ids[order[j]], standardized=Z)
            for j, (i, d, n, k) in enumerate(keys)]


def meta_data(instances: Sequence[Instance]) -> pd.DataFrame:
    """The meta-data table: one row per ufid with its size, realised treated and censored
    percentages, true effect and its DGP's parameters."""
    return pd.DataFrame([i.meta() for i in instances]).set_index("ufid")


# ------------------------------------------------------------------ files
def write_track(instances: Sequence[Instance], root: str | os.PathLike, track: str) -> Path:
    """Write ``<root>/<track>/<ufid>.csv`` and ``<ufid>_cf.csv`` for every instance and
    ``<root>/<track>_params.csv`` (the meta-data); return the track folder."""
    if track not in TRACKS:
        raise ValueError(f"track {track!r}: expected one of {TRACKS}")
    folder = Path(root) / track
    ibm.write_instances({i.ufid: pd.DataFrame({"z": i.z, "y": i.y}) for i in instances}, folder, kind="factual")
    ibm.write_instances({i.ufid: pd.DataFrame({"y0": i.y0, "y1": i.y1}) for i in instances}, folder,
                        kind="counterfactual")
    meta = meta_data(instances)
    atomic_write(Path(root) / f"{track}_params.csv", lambda p: meta.to_csv(p))
    return folder


def write_covariates(covariates: pd.DataFrame, root: str | os.PathLike) -> Path:
    """The covariate file ``<root>/x.csv`` keyed by sample_id."""
    path = Path(root) / "x.csv"
    Path(root).mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda p: covariates.rename_axis("sample_id").to_csv(p))


def read_instance(folder: str | os.PathLike, ufid: str,
                  covariates: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """``(X, z, y)`` of one factual file, its rows' covariates looked up by sample_id
    (an id missing from the covariate table is refused with the file named)."""
    path = Path(folder) / f"{ufid}.csv"
    factual = ibm.read_factual(path)
    unknown = factual.index.difference(covariates.index.astype(str))
    if len(unknown):
        raise ValueError(f"{path}: sample ids {list(unknown[:5])} not in the covariate table")
    X = covariates.set_axis(covariates.index.astype(str)).loc[factual.index]
    return X, factual["z"].astype(int), factual["y"]


def dgp_grid(base: Mapping[str, object], vary: Mapping[str, Sequence[object]]) -> list[DGP]:
    """Every combination of the ``vary`` values over the ``base`` fields, each named by its
    varied values (``n_yz=1,degree=3``)."""
    keys = list(vary)
    out = []
    for values in itertools.product(*(vary[k] for k in keys)):
        fields = {**base, **dict(zip(keys, values))}
        name = ",".join(f"{k}={v}" for k, v in zip(keys, values)) or "base"
        out.append(DGP(name=name, **fields))
    return out
