"""Structure learners behind one seeded signature, each returning a :class:`CausalGraph`.

A learner is ``fn(data, *, ci_test, alpha, seed) -> CausalGraph`` where ``data`` is a
DataFrame of integer state codes, one column per variable. Register your own with
:func:`register_learner`; every study then accepts its name as a parameter::

    @register_learner("my_algo", output="DAG")
    def my_algo(data, *, ci_test, alpha, seed):
        ...
        return CausalGraph.from_edge_lists(list(data.columns), edges)

Built in (paper 003 Sec. 3.4 used Fisher-Z for the tests and BIC for the score):

* ``hc``: greedy hill climbing (pgmpy ``HillClimbSearch``, discrete BIC score) -> DAG
* ``pc``: PC-stable (causal-learn) -> CPDAG
* ``fci``: FCI (causal-learn) -> PAG
* ``ges``: Greedy Equivalence Search with the BDeu score (:mod:`causaleval.ges`: causal-learn's
  CPDAGs, faster) -> CPDAG; ``ges_causallearn``: causal-learn's own GES, for comparison
* ``mmhc``: Max-Min Hill-Climbing (:mod:`causaleval.mmhc`; MMPC skeleton with
  ``chi_square`` or ``g_test``, then pgmpy's BDeu hill climbing inside it) -> DAG

``ci_test`` is one of ``fisher_z`` (the paper's), ``chi_square`` or ``g_test`` (the
natural tests for discrete data); the score-based ``hc`` ignores it and ``alpha``.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from causaleval.graphs import CausalGraph

CI_TESTS = {"fisher_z": "fisherz", "chi_square": "chisq", "g_test": "gsq"}

LearnerFn = Callable[..., CausalGraph]


@dataclass(frozen=True)
class Learner:
    name: str
    fn: LearnerFn
    output: str  # the graph class it returns: DAG, CPDAG, PAG, MAG
    library: str


LEARNERS: dict[str, Learner] = {}


GRAPH_CLASSES = ("DAG", "CPDAG", "PAG", "MAG")


def register_learner(name: str, output: str, library: str = "user") -> Callable[[LearnerFn], LearnerFn]:
    """Decorator adding ``fn`` to :data:`LEARNERS` under ``name``.

    A name is taken once: registering another function under a known name (a plugin's
    ``pc``, say) raises ValueError instead of silently replacing the learner every study
    would then run. The same function registered again (a re-imported module, a rerun
    notebook cell) is accepted."""
    if output not in GRAPH_CLASSES:
        raise ValueError(f"learner {name!r}: output {output!r} is not a graph class; expected one of {GRAPH_CLASSES}")

    def wrap(fn: LearnerFn) -> LearnerFn:
        known = LEARNERS.get(name)
        if known is not None and _origin(known.fn) != _origin(fn):
            raise ValueError(f"learner {name!r} is already registered by {_origin(known.fn)}; "
                             f"{_origin(fn)} must choose another name")
        LEARNERS[name] = Learner(name, fn, output, library)
        return fn

    return wrap


def _origin(fn: Callable) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def get_learner(name: str) -> Learner:
    try:
        return LEARNERS[name]
    except KeyError:
        raise ValueError(f"unknown learner {name!r}; known: {', '.join(sorted(LEARNERS))}") from None


def learn(
    name: str, data: pd.DataFrame, *, ci_test: str = "fisher_z", alpha: float = 0.05, seed: int = 0
) -> CausalGraph:
    """Run learner ``name`` on ``data`` and return its graph, named after the learner.

    Data are integer state codes, except for the constraint-based learners (``pc``, ``fci``)
    with the Fisher z test, which take continuous columns.
    """
    learner = get_learner(name)
    if ci_test not in CI_TESTS:
        raise ValueError(f"unknown ci_test {ci_test!r}; expected one of {', '.join(CI_TESTS)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    _check_data(data, continuous=ci_test == "fisher_z" and name in ("pc", "fci"))
    graph = learner.fn(data, ci_test=ci_test, alpha=alpha, seed=seed)
    return graph.reorder(tuple(map(str, data.columns))).renamed(name)


def library_versions() -> dict[str, str]:
    """Versions of the libraries the built-in learners wrap."""
    from importlib.metadata import version

    return {pkg: version(pkg) for pkg in ("pgmpy", "causal-learn", "gadjid", "numpy", "pandas")}


def _check_data(data: pd.DataFrame, continuous: bool = False) -> None:
    if not isinstance(data, pd.DataFrame) or data.shape[1] < 2:
        raise ValueError("learners need a DataFrame with at least two variable columns")
    accepted = pd.api.types.is_numeric_dtype if continuous else pd.api.types.is_integer_dtype
    non_numeric = [c for c in data.columns if not accepted(data[c]) or pd.api.types.is_bool_dtype(data[c])]
    if non_numeric:
        kind = "numeric" if continuous else "integer state codes"
        raise ValueError(f"learner data: columns {non_numeric} are not {kind}")
    if data.isna().any().any():
        raise ValueError(f"learner data: missing values in {list(data.columns[data.isna().any()])}")


@register_learner("hc", output="DAG", library="pgmpy")
def hill_climbing(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """Greedy hill climbing over DAGs with pgmpy's discrete BIC score (Koller and Friedman 2009).

    pgmpy scans its candidate edge operations as a ``set`` and keeps the first of equally
    good ones; BIC is score-equivalent, so adding a -> b and b -> a tie. With string node
    names that order follows Python's per-process hash seed and the learned DAG changes
    from run to run. Integer column labels hash to themselves, so we learn on those.
    """
    from pgmpy.causal_discovery import HillClimbSearch

    names = [str(c) for c in data.columns]
    est = HillClimbSearch(scoring_method="bic-d", return_type="dag", show_progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data.set_axis(range(len(names)), axis=1))
    edges = [(names[u], names[v]) for u, v in est.causal_graph_.edges()]
    return CausalGraph.from_edge_lists(names, edges, name="hc")


@register_learner("pc", output="CPDAG", library="causal-learn")
def pc(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """PC-stable (Spirtes, Glymour and Scheines 2000; Colombo and Maathuis 2014), causal-learn."""
    from causallearn.search.ConstraintBased.PC import pc as cl_pc

    result = cl_pc(data.to_numpy(float), alpha, CI_TESTS[ci_test], stable=True,
                   show_progress=False, node_names=[str(c) for c in data.columns])
    return CausalGraph.from_causallearn(result.G, name="pc")


@register_learner("fci", output="PAG", library="causal-learn")
def fci(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """FCI (Spirtes et al. 2000; Zhang 2008), causal-learn."""
    from causallearn.search.ConstraintBased.FCI import fci as cl_fci

    with contextlib.redirect_stdout(io.StringIO()):  # causal-learn prints every oriented edge
        graph, _ = cl_fci(data.to_numpy(float), CI_TESTS[ci_test], alpha, show_progress=False,
                          node_names=[str(c) for c in data.columns])
    return CausalGraph.from_causallearn(graph, name="fci")


@register_learner("ges", output="CPDAG", library="causaleval")
def ges(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """GES (Chickering 2002) with the BDeu score, :mod:`causaleval.ges`; no tests.

    The same operators, tie-breaking and local scores (bit for bit) as causal-learn's
    ``ges(score_func="local_score_BDeu")``, hence the same CPDAG (``ges_causallearn``).
    """
    from causaleval.ges import ges as kit_ges

    return kit_ges(data, score="bdeu").graph


@register_learner("ges_causallearn", output="CPDAG", library="causal-learn")
def ges_causallearn(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """GES (Chickering 2002) with causal-learn's discrete BDeu local score; no tests.

    causal-learn's BDeu score calls pandas ``get_group`` in a way pandas 2 warns about on
    every call (a FutureWarning naming causal-learn's file); those warnings are silenced here.
    """
    from causallearn.search.ScoreBased.GES import ges as cl_ges

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module="causallearn")
        result = cl_ges(data.to_numpy(float), score_func="local_score_BDeu",
                        node_names=[str(c) for c in data.columns])
    return CausalGraph.from_causallearn(result["G"], name="ges_causallearn")


@register_learner("mmhc", output="DAG", library="causaleval + pgmpy")
def mmhc(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """MMHC (Tsamardinos, Brown, Aliferis 2006); ``ci_test`` is ``chi_square`` or ``g_test``."""
    from causaleval.mmhc import mmhc as fast_mmhc

    if ci_test not in ("chi_square", "g_test"):
        raise ValueError(f"mmhc tests discrete data with chi_square or g_test, not {ci_test!r}")
    return fast_mmhc(data, alpha=alpha, test=ci_test)
