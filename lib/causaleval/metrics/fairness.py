"""Counterfactual fairness metrics of the Cheng et al. survey (Sec. IV.A.2, eqs. 24-28) and the
reconstruction error its Table II calls *interpretability*, computed on a linear structural
causal model whose counterfactuals are exact.

The model (:class:`LinearSCM`): ``V_j = b_j + sum_i w_ij V_i + U_j`` with independent
``U_j ~ N(0, s_j^2)``; a *binary* node is ``1[b_j + sum_i w_ij V_i + U_j > 0]``. Counterfactuals
follow abduction, action, prediction (Pearl 2009, Sec. 7.1): the noise of every linear node is
recovered from a row (``U_j = V_j - b_j - sum_i w_ij V_i``), the intervened nodes are set, the
others recomputed. A binary node's noise cannot be recovered, so a counterfactual that changes
one of its parents without intervening on it is refused.

Expectations replace the probabilities of the printed equations (for a binary outcome the mean
is ``P(y = 1)``); ``given`` selects the rows the metric conditions on.

* counterfactual fairness (Kusner et al. 2017, eq. 24): a predictor is fair when
  ``P(y_{a1} | X = x, A = a0) = P(y_{a0} | X = x, A = a0)``; measured as the mean over units with
  ``A = a0`` of ``|yhat_{A<-a1}(u) - yhat_{A<-a0}(u)|`` (0 iff fair, each unit's exogenous state
  being recovered);
* PC-fairness (Wu, Zhang, Wu, Tong 2019, eq. 25): ``E[Y_{a1|pi, a0|pi_bar} | O] - E[Y_{a0} | O]``,
  the path-specific counterfactual effect along the edges ``pi`` (edge-specific propagation:
  a node reads a parent's value from the ``a1`` world through an edge of ``pi``, from the
  ``a0`` world otherwise);
* Ctf-DE, Ctf-IE, Ctf-SE (Zhang and Bareinboim 2018, eqs. 26-28), with W the mediators:
  ``E[Y_{x1, W_{x0}} | x] - E[Y_{x0} | x]``, ``E[Y_{x0, W_{x1}} | x] - E[Y_{x0} | x]``,
  ``E[Y_{x0} | x1] - E[Y | x0]``. They satisfy the causal explanation formula
  ``E[Y | x1] - E[Y | x0] = DE_{x0,x1}(y|x0) - IE_{x1,x0}(y|x0) - SE_{x1,x0}(y)`` (their Thm. 1).
* reconstruction error (Van Looveren and Klaise 2021, the survey's ref. [107]): the mean of
  ``||x - AE(x)||^2`` over counterfactual examples x, AE a linear autoencoder of the data
  (its first ``k`` principal components); far from the data manifold means a large error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class LinearSCM:
    """A linear SCM; ``weights[i, j]`` is the coefficient of ``nodes[i]`` in the equation of
    ``nodes[j]`` (nodes in a topological order, so ``weights`` is strictly upper triangular)."""

    nodes: tuple[str, ...]
    weights: np.ndarray
    intercepts: np.ndarray
    noise_sd: np.ndarray
    binary: frozenset[str] = field(default=frozenset())

    @classmethod
    def from_equations(cls, equations: Mapping[str, Mapping[str, float]], *, binary: Collection[str] = (),
                       intercepts: Mapping[str, float] | None = None,
                       noise_sd: Mapping[str, float] | None = None) -> LinearSCM:
        """``{node: {parent: weight}}`` with the nodes in a topological order."""
        nodes = tuple(equations)
        index = {v: i for i, v in enumerate(nodes)}
        w = np.zeros((len(nodes), len(nodes)))
        for j, (node, parents) in enumerate(equations.items()):
            for parent, weight in parents.items():
                if parent not in index or index[parent] >= j:
                    raise ValueError(f"equation of {node!r}: parent {parent!r} is not an earlier node of {nodes}")
                w[index[parent], j] = weight
        unknown = set(binary) - set(nodes)
        if unknown:
            raise ValueError(f"binary: {sorted(unknown)} are not nodes of {nodes}")
        b = np.array([(intercepts or {}).get(v, 0.0) for v in nodes])
        s = np.array([(noise_sd or {}).get(v, 1.0) for v in nodes])
        if (s <= 0).any():
            raise ValueError("noise_sd: every standard deviation must be positive")
        return cls(nodes, w, b, s, frozenset(binary))

    def _index(self, node: str) -> int:
        if node not in self.nodes:
            raise ValueError(f"node {node!r} is not in the model {self.nodes}")
        return self.nodes.index(node)

    def _propagate(self, noise: np.ndarray, fixed: Mapping[str, np.ndarray], *,
                   factual: np.ndarray | None = None, other: np.ndarray | None = None,
                   edges: Collection[tuple[str, str]] = ()) -> np.ndarray:
        """Values of every node from ``noise`` with ``fixed`` nodes set. With ``other``, a parent
        is read from ``other`` unless its edge to the child is in ``edges``."""
        n = len(noise)
        values = np.zeros((n, len(self.nodes)))
        for j, node in enumerate(self.nodes):
            if node in fixed:
                values[:, j] = np.broadcast_to(np.asarray(fixed[node], dtype=float), (n,))
                continue
            parents = np.flatnonzero(self.weights[:, j])
            inputs = values.copy() if other is None else other.copy()
            for i in parents:
                if other is None or (self.nodes[i], node) in edges:
                    inputs[:, i] = values[:, i]
            if node in self.binary:
                if factual is None:
                    values[:, j] = (self.intercepts[j] + inputs @ self.weights[:, j] + noise[:, j] > 0)
                elif np.array_equal(inputs[:, parents], factual[:, parents]):
                    values[:, j] = factual[:, j]
                else:
                    raise ValueError(f"node {node!r} is binary: its noise cannot be recovered from data, so a "
                                     "counterfactual that changes its parents must intervene on it")
                continue
            values[:, j] = self.intercepts[j] + inputs @ self.weights[:, j] + noise[:, j]
        return values

    def sample(self, n: int, seed: int) -> pd.DataFrame:
        """``n`` rows drawn from the model."""
        noise = np.random.default_rng(seed).normal(size=(n, len(self.nodes))) * self.noise_sd
        return pd.DataFrame(self._propagate(noise, {}), columns=list(self.nodes))

    def _rows(self, data: pd.DataFrame) -> np.ndarray:
        missing = [v for v in self.nodes if v not in data.columns]
        if missing:
            raise ValueError(f"data: no columns for nodes {missing}")
        values = data[list(self.nodes)].to_numpy(float)
        if not np.isfinite(values).all():
            raise ValueError("data: missing or infinite values")
        return values

    def abduct(self, data: pd.DataFrame) -> np.ndarray:
        """The noise of every linear node in each row (NaN for binary nodes)."""
        values = self._rows(data)
        noise = values - self.intercepts - values @ self.weights
        noise[:, [self._index(v) for v in self.binary]] = np.nan
        return noise

    def counterfactual(self, data: pd.DataFrame, interventions: Mapping[str, float | np.ndarray]) -> pd.DataFrame:
        """Each row's counterfactual under ``do(interventions)`` (a value or one value per row)."""
        for node in interventions:
            self._index(node)
        values = self._rows(data)
        out = self._propagate(self.abduct(data), interventions, factual=values)
        return pd.DataFrame(out, columns=list(self.nodes), index=data.index)

    def path_specific(self, data: pd.DataFrame, attribute: str, active: float, baseline: float,
                      edges: Collection[tuple[str, str]]) -> pd.DataFrame:
        """Each row's ``V_{active | pi, baseline | pi_bar}``: the effect of ``attribute = active``
        transmitted only along ``edges`` (pi), the rest of the model seeing ``baseline``."""
        for a, b in edges:
            if self.weights[self._index(a), self._index(b)] == 0:
                raise ValueError(f"edges: {a} -> {b} is not an edge of the model")
        values = self._rows(data)
        noise = self.abduct(data)
        reference = self._propagate(noise, {attribute: baseline}, factual=values)
        out = self._propagate(noise, {attribute: active}, factual=values, other=reference, edges=set(edges))
        return pd.DataFrame(out, columns=list(self.nodes), index=data.index)

    def covariance(self) -> np.ndarray:
        """Population covariance ``(I - W)^{-T} diag(s^2) (I - W)^{-1}`` (linear nodes only)."""
        if self.binary:
            raise ValueError(f"covariance: the model has binary nodes {sorted(self.binary)}")
        inv = np.linalg.inv(np.eye(len(self.nodes)) - self.weights)
        return inv.T @ np.diag(self.noise_sd**2) @ inv

    def mean(self) -> np.ndarray:
        """Population mean ``b (I - W)^{-1}`` (linear nodes only)."""
        self.covariance()
        return self.intercepts @ np.linalg.inv(np.eye(len(self.nodes)) - self.weights)


def _select(data: pd.DataFrame, given: Mapping[str, float] | None) -> pd.DataFrame:
    rows = data
    for node, value in (given or {}).items():
        if node not in data.columns:
            raise ValueError(f"given: no column {node!r} in the data")
        rows = rows[rows[node] == value]
    if rows.empty:
        raise ValueError(f"given: no row has {dict(given or {})}")
    return rows


def counterfactual_fairness(scm: LinearSCM, data: pd.DataFrame, predictor: Callable[[pd.DataFrame], np.ndarray],
                            attribute: str, a0: float = 0, a1: float = 1) -> float:
    """Eq. (24): mean over the units with ``A = a0`` of ``|yhat(V_{A<-a1}) - yhat(V_{A<-a0})|``;
    ``predictor`` maps a frame of node values to predictions."""
    units = _select(data, {attribute: a0})
    treated, base = scm.counterfactual(units, {attribute: a1}), scm.counterfactual(units, {attribute: a0})
    return float(np.mean(np.abs(np.asarray(predictor(treated), float) - np.asarray(predictor(base), float))))


def pc_fairness(scm: LinearSCM, data: pd.DataFrame, attribute: str, outcome: str,
                edges: Collection[tuple[str, str]], a0: float = 0, a1: float = 1,
                given: Mapping[str, float] | None = None) -> float:
    """Eq. (25): ``E[Y_{a1|pi, a0|pi_bar} | O = given] - E[Y_{a0} | O = given]``."""
    units = _select(data, given)
    along = scm.path_specific(units, attribute, a1, a0, edges)[outcome]
    return float(along.mean() - scm.counterfactual(units, {attribute: a0})[outcome].mean())


def _mediated(scm: LinearSCM, units: pd.DataFrame, attribute: str, outcome: str, mediators: Sequence[str],
              x: float, x_mediators: float) -> pd.Series:
    """``Y_{x, W_{x_mediators}}`` per row: the mediators at their values under ``x_mediators``."""
    if not mediators:
        raise ValueError("mediators: expected at least one mediator W")
    w = scm.counterfactual(units, {attribute: x_mediators})
    return scm.counterfactual(units, {attribute: x, **{m: w[m].to_numpy() for m in mediators}})[outcome]


def ctf_de(scm: LinearSCM, data: pd.DataFrame, attribute: str, outcome: str, mediators: Sequence[str],
           x0: float = 0, x1: float = 1, given: float = 0) -> float:
    """Eq. (26): ``E[Y_{x1, W_{x0}} | X = given] - E[Y_{x0} | X = given]``."""
    units = _select(data, {attribute: given})
    return float(_mediated(scm, units, attribute, outcome, mediators, x1, x0).mean()
                 - scm.counterfactual(units, {attribute: x0})[outcome].mean())


def ctf_ie(scm: LinearSCM, data: pd.DataFrame, attribute: str, outcome: str, mediators: Sequence[str],
           x0: float = 0, x1: float = 1, given: float = 0) -> float:
    """Eq. (27): ``E[Y_{x0, W_{x1}} | X = given] - E[Y_{x0} | X = given]``."""
    units = _select(data, {attribute: given})
    return float(_mediated(scm, units, attribute, outcome, mediators, x0, x1).mean()
                 - scm.counterfactual(units, {attribute: x0})[outcome].mean())


def ctf_se(scm: LinearSCM, data: pd.DataFrame, attribute: str, outcome: str, x0: float = 0, x1: float = 1) -> float:
    """Eq. (28): ``E[Y_{x0} | X = x1] - E[Y | X = x0]``."""
    treated = scm.counterfactual(_select(data, {attribute: x1}), {attribute: x0})[outcome]
    return float(treated.mean() - _select(data, {attribute: x0})[outcome].mean())


def reconstruction_error(points, data, n_components: int) -> float:
    """Mean of ``||x - AE(x)||^2`` over ``points``, AE the linear autoencoder of ``data``: centre
    by the data mean, project on the first ``n_components`` right singular vectors, map back."""
    x, d = np.atleast_2d(np.asarray(points, dtype=float)), np.atleast_2d(np.asarray(data, dtype=float))
    if x.shape[1] != d.shape[1]:
        raise ValueError(f"points have {x.shape[1]} features, data {d.shape[1]}")
    if not 1 <= n_components <= min(d.shape):
        raise ValueError(f"n_components={n_components}: expected 1..{min(d.shape)}")
    if not (np.isfinite(x).all() and np.isfinite(d).all()):
        raise ValueError("points or data hold missing or infinite values")
    mean = d.mean(axis=0)
    basis = np.linalg.svd(d - mean, full_matrices=False)[2][:n_components]
    centred = x - mean
    return float(np.mean(np.sum((centred - centred @ basis.T @ basis) ** 2, axis=1)))


def population_reconstruction_error(scm: LinearSCM, points, n_components: int) -> float:
    """The same error under the model's own principal components (its population covariance):
    the value a sample autoencoder converges to."""
    x = np.atleast_2d(np.asarray(points, dtype=float))
    eigenvalues, vectors = np.linalg.eigh(scm.covariance())
    basis = vectors[:, np.argsort(eigenvalues)[::-1][:n_components]].T
    centred = x - scm.mean()
    return float(np.mean(np.sum((centred - centred @ basis.T @ basis) ** 2, axis=1)))
