"""Structure learners behind one seeded signature, each returning a :class:`CausalGraph`.

A learner is ``fn(data, *, ci_test, alpha, seed) -> CausalGraph`` where ``data`` is a
DataFrame of integer state codes, one column per variable. Register your own with
:func:`register_learner`; every study then accepts its name as a parameter::

    @register_learner("my_algo", output="DAG")
    def my_algo(data, *, ci_test, alpha, seed):
        ...
        return CausalGraph.from_edge_lists(list(data.columns), edges)

Built in (Rehak et al. 2024, Sec. 3.4, used Fisher-Z for the tests and BIC for the score):

* ``hc``: greedy hill climbing (pgmpy ``HillClimbSearch``, discrete BIC score) -> DAG
* ``pc``: PC-stable (:mod:`causaleval.learn.pc`: causal-learn's CPDAGs in its endpoint format, faster;
  registered with ``library="causal-learn"`` because study 1 reads that format) -> CPDAG;
  ``pc_causallearn``: causal-learn's own PC, for comparison
* ``fci``: FCI (causal-learn) -> PAG
* ``ges``: Greedy Equivalence Search with the BDeu score (:mod:`causaleval.learn.ges`: causal-learn's
  CPDAGs, faster) -> CPDAG; ``ges_causallearn``: causal-learn's own GES, for comparison
* ``mmhc``: Max-Min Hill-Climbing (:mod:`causaleval.learn.mmhc`; MMPC skeleton with
  ``chi_square`` or ``g_test``, then pgmpy's BDeu hill climbing inside it) -> DAG
* adapters to causal-learn's and pgmpy's other learners (:mod:`causaleval.learn.adapters`):
  ``pc_pgmpy``, ``ges_pgmpy``, ``exact_astar``, ``exact_dp``, ``grasp``, ``boss``, ``ica_lingam``,
  ``direct_lingam``

``ci_test`` is one of ``fisher_z`` (the paper's), ``chi_square`` or ``g_test`` (the
natural tests for discrete data); the score-based ``hc`` ignores it and ``alpha``.

:func:`learn` checks the data once (:func:`_check_data`) and the returned graph against the
learner's declared output (:func:`_check_output`). A constant column is independent of every
variable given any set: a learner registered with ``constant_columns=True`` (every built-in
one) leaves it without edges, and data with a constant column are refused for any other
learner. The built-in learners do so because their tests and scores are defined there
(discrete tests have zero degrees of freedom, BDeu/BIC gain nothing from a one-state
parent), except Fisher z, whose correlation is undefined (NaN, read as dependence by
causal-learn): ``pc`` and ``fci`` learn on the non-constant columns, and the constant
ones, which PC and FCI would separate from everything at level 0 and never put in a
separating set, are added as isolated nodes.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causaleval.graphs import CIRCLE, CLASS_TEXT, GRAPH_CLASSES, CausalGraph, GraphClass, GraphError
from causaleval.plugins import check_name

CI_TESTS = {"fisher_z": "fisherz", "chi_square": "chisq", "g_test": "gsq"}

LearnerFn = Callable[..., CausalGraph]


@dataclass(frozen=True)
class Learner:
    name: str
    fn: LearnerFn
    output: str  # the graph class it returns: DAG, CPDAG, PAG, MAG
    library: str
    constant_columns: bool = False  # True: gives a constant column no edge (else refused)


LEARNERS: dict[str, Learner] = {}


class LearnerFailed(RuntimeError):
    """An exception inside a user's learner (a plugin), tagged with the learner's name and function."""


def register_learner(name: str, output: str, library: str = "user",
                     constant_columns: bool = False) -> Callable[[LearnerFn], LearnerFn]:
    """Decorator adding ``fn`` to :data:`LEARNERS` under ``name``.

    ``constant_columns=True`` declares that the learner leaves a constant column without
    edges; otherwise :func:`learn` refuses data with a constant column for it.

    A name is taken once: registering another function under a known name (a plugin's
    ``pc``, say) raises ValueError instead of silently replacing the learner every study
    would then run. The same function registered again (a re-imported module, a rerun
    notebook cell) is accepted."""
    if output not in GRAPH_CLASSES:
        raise ValueError(f"learner {name!r}: output {output!r} is not a graph class; expected one of {GRAPH_CLASSES}")

    def wrap(fn: LearnerFn) -> LearnerFn:
        check_name("learner", name, LEARNERS[name].fn if name in LEARNERS else None, fn)
        LEARNERS[name] = Learner(name, fn, output, library, constant_columns)
        return fn

    return wrap


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
    with the Fisher z test, which take continuous columns (:func:`_check_data` lists every
    requirement). The graph must be of the learner's declared class (:func:`_check_output`). An
    exception inside a user's learner is raised as :class:`LearnerFailed`, naming the learner.
    """
    learner = get_learner(name)
    if ci_test not in CI_TESTS:
        raise ValueError(f"unknown ci_test {ci_test!r}; expected one of {', '.join(CI_TESTS)}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise ValueError(f"alpha must be a number in (0, 1), got {type(alpha).__name__} {alpha!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    _check_data(data, fisher_z=ci_test == "fisher_z" and name in ("pc", "pc_causallearn", "fci"),
                constant_columns=learner.constant_columns, learner=name)
    try:
        graph = learner.fn(data, ci_test=ci_test, alpha=alpha, seed=seed)
    except Exception as err:
        if learner.library != "user":  # the kit's own learners name themselves in their errors
            raise
        where = f"{getattr(learner.fn, '__module__', '?')}.{getattr(learner.fn, '__qualname__', '?')}"
        raise LearnerFailed(f"learner {name!r} ({where}, a plugin) raised {type(err).__name__}: {err}") from err
    _check_output(learner, graph)
    return graph.reorder(tuple(map(str, data.columns))).renamed(name)


def library_versions() -> dict[str, str]:
    """Versions of the libraries the built-in learners wrap."""
    from importlib.metadata import version

    return {pkg: version(pkg) for pkg in ("pgmpy", "causal-learn", "gadjid", "numpy", "pandas")}


#: the fewest rows of learner data: Fisher z's marginal tests, discrete tests and scores
MIN_ROWS_FISHER_Z = 4
MIN_ROWS_DISCRETE = 2


def min_rows(fisher_z: bool) -> int:
    """The fewest rows for which a learner's first tests or scores are defined.

    Fisher z (Fisher 1921) tests rho(X, Y | Z) = 0 with ``sqrt(n - |Z| - 3) * atanh(r)``, so
    its marginal tests (``|Z| = 0``) need ``n >= 4`` (causal-learn fails with a bare "math
    domain error" below ``n = 3``). Every conditioning set of up to ``p - 2`` variables would
    need ``n >= p + 1``; that would refuse the small-sample regime PC is run in (Emezue et
    al. 2023: 20 rows, 20 variables), where causal-learn's test at ``|Z| = n - 3`` has
    statistic 0 and separates the pair. Discrete tests and scores (chi-square, G, BDeu, BIC)
    need a column that can take two values, hence two rows (pgmpy's BIC refuses fewer).
    """
    return MIN_ROWS_FISHER_Z if fisher_z else MIN_ROWS_DISCRETE


def _check_data(data: pd.DataFrame, fisher_z: bool = False, constant_columns: bool = True,
                learner: str = "learner") -> None:
    """The one check of learner data; each refusal names the columns, found and expected:
    a DataFrame of at least two columns with distinct names (as strings: nodes are named
    ``str(column)``), at least :func:`min_rows` rows, integer state codes (numbers for
    Fisher z, finite), no missing value, and no constant column unless ``constant_columns``."""
    if not isinstance(data, pd.DataFrame) or data.shape[1] < 2:
        found = f"shape {data.shape}" if isinstance(data, pd.DataFrame) else type(data).__name__
        raise ValueError(f"learner {learner!r}: data must be a DataFrame with at least two variable columns, "
                         f"got {found}")
    names = [str(c) for c in data.columns]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"learner {learner!r}: column names {repeated} occur more than once (compared as "
                         f"strings, as node names are); expected distinct names, got columns {list(data.columns)}")
    accepted = pd.api.types.is_numeric_dtype if fisher_z else pd.api.types.is_integer_dtype
    non_numeric = [c for c in data.columns if not accepted(data[c]) or pd.api.types.is_bool_dtype(data[c])]
    if non_numeric:
        kind = "numeric" if fisher_z else "integer state codes"
        raise ValueError(f"learner {learner!r}: columns {non_numeric} are not {kind}")
    if data.isna().any().any():
        raise ValueError(f"learner {learner!r}: missing values in {list(data.columns[data.isna().any()])}")
    need = min_rows(fisher_z)
    if len(data) < need:
        why = ("Fisher z's statistic sqrt(n - |Z| - 3) * atanh(r) needs n >= 4 for its marginal tests"
               if fisher_z else "discrete tests and scores need a column that can vary")
        raise ValueError(f"learner {learner!r}: found {len(data)} rows, expected at least {need} ({why})")
    if fisher_z:
        infinite = [c for c in data.columns if not np.isfinite(data[c].to_numpy(float)).all()]
        if infinite:
            raise ValueError(f"learner {learner!r}: infinite values in columns {infinite}; expected finite numbers")
    if not constant_columns:
        constant = [c for c in data.columns if data[c].nunique() < 2]
        if constant:
            raise ValueError(f"learner {learner!r}: constant columns {constant} (one value each); expected "
                             "varying columns (this learner does not declare constant_columns=True)")


def _check_output(learner: Learner, graph: CausalGraph) -> None:
    """Refuse a graph that is not of the learner's declared class: a ``DAG`` learner returns a
    DAG (:class:`~causaleval.graphs.GraphClass`), a ``CPDAG`` or ``MAG`` learner no circle-
    marked edge (a CPDAG may be a DAG; the kit's PC writes orientation conflicts as bidirected
    edges and may orient a cycle, as causal-learn's does: the metrics refuse those by name). A
    learner of one's own (``library="user"``) is held to its class: a ``CPDAG`` or ``MAG`` without
    a directed cycle, a ``MAG`` also without a bidirected edge between a node and its ancestor
    (ancestral). ``PAG`` takes any marks."""
    if not isinstance(graph, CausalGraph):
        raise TypeError(f"learner {learner.name!r} returned a {type(graph).__name__}; expected a CausalGraph")
    if learner.output == "DAG" and graph.graph_class != GraphClass.DAG:
        raise GraphError(f"learner {learner.name!r} is declared output='DAG' but returned "
                         f"{CLASS_TEXT[graph.graph_class]}: it has {graph.witness()}")
    m = graph.matrix
    circled = np.argwhere((m == CIRCLE) & (m.T != CIRCLE))
    if learner.output in ("CPDAG", "MAG") and len(circled):
        i, j = (int(x) for x in circled[0])
        raise GraphError(f"learner {learner.name!r} is declared output={learner.output!r} but returned the "
                         f"circle-marked edge {graph._edge_text(i, j)} (a PAG mark)")
    if learner.library == "user" and learner.output in ("CPDAG", "MAG"):
        _check_ancestral(learner, graph)


def _check_ancestral(learner: Learner, graph: CausalGraph) -> None:
    """No directed cycle among the directed edges (``m[i, j] == 1 and m[j, i] == 0``); for a MAG, no
    bidirected edge ``a <-> b`` with ``a`` an ancestor of ``b`` (Richardson and Spirtes 2002)."""
    m = graph.matrix
    directed = (m == 1) & (m.T == 0)
    reach = directed.copy()
    for k in range(len(m)):  # transitive closure (Warshall)
        reach |= reach[:, [k]] & reach[[k], :]
    cyclic = np.flatnonzero(np.diag(reach))
    if cyclic.size:
        raise GraphError(f"learner {learner.name!r} is declared output={learner.output!r} but returned a directed "
                         f"cycle through {graph.nodes[int(cyclic[0])]!r}: {graph.witness()}")
    bidirected = np.argwhere((m == 1) & (m.T == 1) & (reach | reach.T))
    if learner.output == "MAG" and len(bidirected):
        i, j = (int(x) for x in bidirected[0])
        raise GraphError(f"learner {learner.name!r} is declared output='MAG' but returned {graph._edge_text(i, j)} "
                         "between a node and its ancestor (a MAG is ancestral)")


@register_learner("hc", output="DAG", library="pgmpy", constant_columns=True)
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


def _constants_isolated(fn: Callable[[pd.DataFrame], CausalGraph]) -> Callable[[pd.DataFrame], CausalGraph]:
    """``fn`` run on the non-constant columns, the constant ones added as isolated nodes.

    A constant is independent of every variable given any set: PC and FCI remove its edges
    at level 0 and never put it in a separating set, so the rest of the graph is the one
    learned without it. Fisher z cannot say so (its correlation is NaN, which causal-learn
    reads as dependence), hence this wrapper."""

    def run(data: pd.DataFrame) -> CausalGraph:
        varying = data.nunique().to_numpy() > 1
        if varying.all():
            return fn(data)
        names = [str(c) for c in data.columns]
        m = np.zeros((len(names), len(names)), dtype=np.int8)
        if varying.sum() >= 2:
            sub = fn(data.loc[:, varying])
            idx = np.flatnonzero(varying)
            m[np.ix_(idx, idx)] = sub.reorder(tuple(names[i] for i in idx)).matrix
        return CausalGraph(tuple(names), m)

    return run


@register_learner("pc", output="CPDAG", library="causal-learn", constant_columns=True)
def pc(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """PC-stable (Spirtes, Glymour and Scheines 2000; Colombo and Maathuis 2014) as causal-learn runs it
    (``stable=True``, ``uc_rule=0``, ``uc_priority=2``); constant columns stay isolated
    (:func:`_constants_isolated`). The kit's implementation for every test, the same CPDAG as
    causal-learn's (``pc_causallearn``, the cross-check): with Fisher z from the correlation matrix
    (:func:`causaleval.learn.pc.pc_fisher_z`), with ``chi_square`` / ``g_test`` causal-learn's
    ``chisq`` / ``gsq`` p-values (equal to the bit) from contingency tables counted for a whole
    level at once (:func:`causaleval.learn.pc.pc_discrete`); how much faster is measured by
    ``benchmarks/bench_pc.py`` (``benchmarks/README.md``)."""
    from causaleval.learn.pc import pc_discrete, pc_fisher_z

    if ci_test == "fisher_z":
        return _constants_isolated(lambda d: pc_fisher_z(d, alpha))(data)
    return _constants_isolated(lambda d: pc_discrete(d, alpha, CI_TESTS[ci_test]))(data)


@register_learner("pc_causallearn", output="CPDAG", library="causal-learn", constant_columns=True)
def pc_causallearn(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's PC-stable (the cross-check of ``pc``); constant columns stay isolated."""
    from causallearn.search.ConstraintBased.PC import pc as cl_pc

    def run(d: pd.DataFrame) -> CausalGraph:
        result = cl_pc(d.to_numpy(float), alpha, CI_TESTS[ci_test], stable=True,
                       show_progress=False, node_names=[str(c) for c in d.columns])
        return CausalGraph.from_causallearn(result.G, name="pc")

    return _constants_isolated(run)(data)


@register_learner("fci", output="PAG", library="causal-learn", constant_columns=True)
def fci(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """FCI (Spirtes et al. 2000; Zhang 2008), causal-learn; constant columns stay isolated
    (:func:`_constants_isolated`)."""
    from causallearn.search.ConstraintBased.FCI import fci as cl_fci

    def run(d: pd.DataFrame) -> CausalGraph:
        with contextlib.redirect_stdout(io.StringIO()):  # causal-learn prints every oriented edge
            graph, _ = cl_fci(d.to_numpy(float), CI_TESTS[ci_test], alpha, show_progress=False,
                              node_names=[str(c) for c in d.columns])
        return CausalGraph.from_causallearn(graph, name="fci")

    return _constants_isolated(run)(data)


@register_learner("ges", output="CPDAG", library="causaleval", constant_columns=True)
def ges(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """GES (Chickering 2002) with the BDeu score, :mod:`causaleval.learn.ges`; no tests.

    The same operators, tie-breaking and local scores (bit for bit) as causal-learn's
    ``ges(score_func="local_score_BDeu")``, hence the same CPDAG (``ges_causallearn``).
    """
    from causaleval.learn.ges import ges as kit_ges

    return kit_ges(data, score="bdeu").graph


@register_learner("ges_causallearn", output="CPDAG", library="causal-learn", constant_columns=True)
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


@register_learner("mmhc", output="DAG", library="causaleval + pgmpy", constant_columns=True)
def mmhc(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """MMHC (Tsamardinos, Brown, Aliferis 2006); ``ci_test`` is ``chi_square`` or ``g_test``."""
    from causaleval.learn.mmhc import mmhc as fast_mmhc

    if ci_test not in ("chi_square", "g_test"):
        raise ValueError(f"mmhc tests discrete data with chi_square or g_test, not {ci_test!r}")
    return fast_mmhc(data, alpha=alpha, test=ci_test)


# the adapters to causal-learn's and pgmpy's other learners register themselves on import
from causaleval.learn import adapters  # noqa: E402,F401  (after register_learner, which they use)
