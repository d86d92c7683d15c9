"""Samples from (approximate) posteriors over DAGs, one seeded signature, for study 6.

A posterior method is ``fn(data, *, n_samples, seed, options) -> k x d x d bool stack`` of
DAGs (``a[i, j]``: i -> j), ``data`` a DataFrame of continuous columns and ``options`` the
study's method settings (a mapping). Register your own with :func:`register_posterior`
(e.g. from a plugin module named in the notebook's ``plugins`` parameter)::

    @register_posterior("my_sampler")
    def my_sampler(data, *, n_samples, seed, options):
        ...

    my_sampler.max_nodes = 12  # optional: study 6 does not run it on more variables, and says so

A method that reads options of its own declares them (the grammar of :mod:`causaleval.params`), so
study 6 checks its ``method_options`` before the kernel starts and refuses a misspelt name::

    @register_posterior("my_sampler", options={"my_steps": {"type": "int", "min": 1}})

A method that samples another posterior than the kit's (the BGe posterior under a uniform prior
over DAGs, which ``mc3`` samples and :mod:`causaleval.bayes.exact` enumerates) says which with
``target(d, options) -> (label, log_prior)``: ``log_prior`` its modular structure prior by parent count
(:func:`causaleval.bayes.exact.fair_prior`, ``erdos_renyi_prior``), or None when its target has no
BGe form there; study 6's exact check then measures it against its own target too (:func:`own_target`)::

    @register_posterior("my_sampler", target=lambda d, options: ("BGe, fair prior", exact.fair_prior(d)))

It reads its options through :func:`method_options`, which checks their values by the same declarations
when the method is called from Python (a misspelt name is caught by study 6's check, which sees every
method's declarations). The kit's methods declare and read theirs the same way.

Built in (Emezue et al. 2023, Sec. 3.1 and App. B.3; REFERENCES.md):

* ``bootstrap_pc`` / ``bootstrap_ges``: the non-parametric DAG bootstrap (Friedman,
  Goldszmidt and Wyner 1999): ``n_samples`` resamples of the ``n`` rows with replacement,
  each learned by the kit's PC-stable with Fisher-z tests at ``pc_alpha`` (learner ``pc``,
  :mod:`causaleval.learn.pc`, the same CPDAGs as causal-learn's) or by the kit's GES (:mod:`causaleval.learn.ges`) with
  the Gaussian ``ges_score`` (``bic`` or ``bge``); each CPDAG becomes one DAG by ``cpdag_rule``:
  ``random_extension`` (the kit's Dor-Tarsi extension run on a uniformly random node order,
  so every DAG of the class can come out, not with equal probability) or ``uniform`` (a
  uniform draw from the class's members, enumerated by :func:`extensions.mec_members`).
  A PDAG without a consistent extension (PC can return one) goes through the kit's fallback.
* ``mc3``: structure MCMC (Madigan, York and Allard 1995) on DAGs with the BGe score
  (:class:`causaleval.learn.ges.BGeScore`) and a uniform prior over DAGs. From the empty graph, each
  step draws an ordered pair ``(i, j)`` uniformly and proposes to delete ``i -> j`` if present,
  to reverse ``j -> i`` if present, else to add ``i -> j``; a proposal that closes a cycle is
  rejected. The proposal is symmetric, so a move is accepted with probability
  ``min(1, exp(score' - score))``. After ``mc3_burn_in`` steps, every ``mc3_thin``-th state is kept.
  The chain runs compiled, its BGe family scores too (:mod:`causaleval.bayes._mc3_jit`; the same
  scores and states as the Python chain :func:`mc3_chain`, bit for bit), so the hundreds of millions
  of steps that d = 20 needs take minutes
  (``benchmarks/bench_mc3_chain.py``, ``bench_mc3_reference.py``). With ``mc3_copies = K > 1`` (default
  1) the chain is tempered (parallel tempering, Geyer 1991): ``K`` copies from the empty graph, copy
  ``k`` at inverse temperature ``beta_k = mc3_beta_ratio^k`` (default 0.8) targeting
  ``p(G | D)^beta_k``, each making the move above accepted with probability ``min(1, exp(beta_k
  (score' - score)))``; after every step a uniformly drawn adjacent pair ``(k, k + 1)`` swaps its
  states with probability ``min(1, exp((beta_k - beta_{k+1}) (S_{k+1} - S_k)))``, ``S`` their scores,
  and copy 0's states are kept. A step costs ``K`` MC3 steps; where plain chains stay in a mode,
  the hot copies cross between modes and the swaps bring what they find down to copy 0
  (``benchmarks/bench_mc3_tempering.py``). Tempering runs compiled only, on at most
  ``_mc3_jit.MAX_NODES`` variables.
"""

from __future__ import annotations

import functools
import math
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from causaleval import numenv
from causaleval.bayes import _mc3_jit
from causaleval.graphs.bitsets import bits
from causaleval.graphs.extensions import NoExtension, consistent_extension, mec_members
from causaleval.graphs import CausalGraph, _acyclic
from causaleval.params import check_option
from causaleval.plugins import check_name

if TYPE_CHECKING:
    from causaleval.learn.ges import BGeScore

PosteriorFn = Callable[..., np.ndarray]
POSTERIORS: dict[str, PosteriorFn] = {}
#: options each method declares, by method: option name -> declaration (``options_from`` of study 6)
OPTIONS: dict[str, dict[str, dict[str, Any]]] = {}
#: per method, a check that it can run on ``d`` variables with these options (raises ValueError)
SIZE_CHECKS: dict[str, Callable[[int, Mapping[str, Any]], None]] = {}
Target = Callable[[int, Mapping[str, Any]], tuple[str, "tuple[float, ...] | None"]]
#: per method whose target is not the kit's BGe posterior under a uniform prior: its own (module notes)
TARGETS: dict[str, Target] = {}
CPDAG_RULES = ("random_extension", "uniform")


def register_posterior(name: str, options: Mapping[str, Mapping[str, Any]] | None = None,
                       check_size: Callable[[int, Mapping[str, Any]], None] | None = None,
                       target: Target | None = None) -> Callable[[PosteriorFn], PosteriorFn]:
    """Decorator adding ``fn`` to :data:`POSTERIORS` under ``name`` (a name is taken once:
    another function under it is refused, the same one again accepted), with the ``options`` it
    reads declared in :data:`OPTIONS` (module notes), if given ``check_size(d, options)``, which
    raises ValueError when the method cannot run on ``d`` variables with those options
    (:func:`check_size`), and if given its own ``target`` (:data:`TARGETS`, module notes)."""

    def wrap(fn: PosteriorFn) -> PosteriorFn:
        check_name("posterior method", name, POSTERIORS.get(name), fn)
        POSTERIORS[name] = fn
        if options:
            OPTIONS[name] = {key: dict(entry) for key, entry in options.items()}
        if check_size is not None:
            SIZE_CHECKS[name] = check_size
        if target is not None:
            TARGETS[name] = target
        return fn

    return wrap


def check_size(method: str, d: int, options: Mapping[str, Any]) -> None:
    """Raise ValueError, naming the method and option, when ``method`` cannot run on ``d`` variables
    with ``options`` (its registered ``check_size``; a method without one can). A study calls it for
    every data-set size before its kernel starts."""
    if method in SIZE_CHECKS:
        SIZE_CHECKS[method](d, options)


def own_target(method: str, d: int, options: Mapping[str, Any]) -> tuple[str, tuple[float, ...] | None] | None:
    """``method``'s own target on ``d`` variables with ``options`` as ``(label, log_prior)`` (module
    notes), or None when it targets the kit's posterior."""
    return TARGETS[method](d, options) if method in TARGETS else None


#: the warnings each module of :func:`optional_modules` raised when this process imported it
_IMPORT_WARNINGS: dict[str, list[warnings.WarningMessage]] = {}


def optional_modules(method: str, *modules: str) -> tuple[ModuleType, ...]:
    """The modules of the optional ``bayes`` extra that ``method`` needs, imported; a missing one
    is refused with the install command (a method is never silently left out). XLA's dots are
    pinned as soon as JAX is loaded, before a later module (dibs, optax) could compile one. The
    warnings a module raised on its first import here (e.g. the DeprecationWarning SciPy raises when
    sumu imports ``LinAlgError`` from ``scipy.linalg.misc``) are raised again on every call, so a
    caller that records a method's warnings (study 6's counts) records the same ones whichever
    process ran it first."""
    try:
        for name in modules:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                __import__(name)
            _IMPORT_WARNINGS.setdefault(name, caught)  # the first import's; later ones find it in sys.modules
            if "jax" in sys.modules:
                numenv.pin_jax()
    except ImportError as err:
        raise ImportError(f'{method} needs {", ".join(modules)} (the bayes extra): pip install -e ".[bayes]"') from err
    for w in (w for name in modules for w in _IMPORT_WARNINGS[name]):
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return tuple(sys.modules[name] for name in modules)


def method_options(method: str, options: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``method`` declares (:data:`OPTIONS`), from ``options`` over ``defaults``, each
    checked against its declaration by :func:`causaleval.params.check_option` (the error names the
    method, the option, its value and what was expected); a declared option with no default that
    ``options`` does not give is refused, and so is a default ``method`` did not declare. Other names
    in ``options`` are not read: study 6 passes every method the same mapping, and checks its names
    against all declarations before the kernel starts. Numpy scalars are read as Python ones and an
    integer given for a ``float`` option as a float."""
    declared = OPTIONS.get(method, {})
    undeclared = [key for key in defaults if key not in declared]
    if undeclared:
        raise ValueError(f"posterior method {method!r} has defaults for {', '.join(map(repr, undeclared))} but does "
                         "not declare them: register_posterior(name, options={name: {'type': ...}, ...})")
    out = dict(defaults)
    out.update({k: v.item() if isinstance(v, np.generic) else v for k, v in options.items() if k in declared})
    missing = [key for key in declared if key not in out]
    if missing:
        raise ValueError(f"{method}: option(s) {', '.join(map(repr, missing))} not given and without a default")
    for key, value in out.items():
        check_option(method, key, declared[key], value)
        if isinstance(value, int) and not isinstance(value, bool) and "int" not in declared[key]["type"]:
            out[key] = float(value)
    return out


def standardized(method: str, data: pd.DataFrame) -> np.ndarray:
    """``data``'s columns centred and scaled to unit (population) standard deviation,
    ``(x - mean) / sd``, for the methods that score standardised data; a constant column is
    refused, naming ``method`` and the column."""
    x = data.to_numpy(float)
    sd = x.std(0)
    if not (sd > 0).all():
        raise ValueError(f"{method}: column {data.columns[int(np.argmin(sd > 0))]!r} is constant; "
                         "expected every column to vary")
    return (x - x.mean(0)) / sd


def sample_posterior(name: str, data: pd.DataFrame, *, n_samples: int, seed: int,
                     options: Mapping[str, Any]) -> np.ndarray:
    """``n_samples`` DAGs from the method ``name``, checked to be a ``k x d x d`` acyclic stack.
    ``options`` may hold other methods' options (study 6 passes every method one mapping), but a name
    that no registered method declares (:data:`OPTIONS`; a misspelling) is refused."""
    if name not in POSTERIORS:
        raise ValueError(f"posterior method {name!r} unknown; registered: {', '.join(sorted(POSTERIORS))}")
    unknown = [key for key in options if not any(key in declared for declared in OPTIONS.values())]
    if unknown:
        raise ValueError(f"posterior method {name!r}: option(s) {', '.join(map(repr, unknown))} declared by no "
                         f"registered method; {name!r} declares "
                         f"{', '.join(map(repr, OPTIONS.get(name, {}))) or 'none'}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"posterior method {name!r}: n_samples={n_samples!r}; expected a positive integer")
    if "jax" in sys.modules:  # a user's JAX method too computes with the kit's dots (numenv.pin_jax)
        numenv.pin_jax()
    raw = np.asarray(POSTERIORS[name](data, n_samples=n_samples, seed=seed, options=options))
    d = data.shape[1]
    if raw.shape != (n_samples, d, d):
        raise ValueError(f"posterior method {name!r} returned shape {raw.shape}; expected ({n_samples}, {d}, {d})")
    dags = _as_bool(name, raw)
    cyclic = np.flatnonzero(~_acyclic(dags))
    if len(cyclic):
        raise ValueError(f"posterior method {name!r}: sample {int(cyclic[0])} is not a DAG (it has a directed cycle)")
    return dags


#: warnings meant for the developers of the code that raised them (Python's own reading of these two
#: categories), left out of a method's notes: they say nothing of the DAGs drawn (e.g. sumu's import of
#: ``LinAlgError`` from a SciPy namespace about to go)
DEVELOPER_WARNINGS = (DeprecationWarning, PendingDeprecationWarning)


def sample_noted(name: str, data: pd.DataFrame, *, n_samples: int, seed: int,
                 options: Mapping[str, Any]) -> tuple[np.ndarray, str]:
    """:func:`sample_posterior` and the method's warnings, each once in order of first appearance,
    joined as ``Category: message`` (kept for a table's notes, not printed), except
    :data:`DEVELOPER_WARNINGS`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dags = sample_posterior(name, data, n_samples=n_samples, seed=seed, options=options)
    kept = (w for w in caught if not issubclass(w.category, DEVELOPER_WARNINGS))
    return dags, "; ".join(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in kept))


def _as_bool(name: str, raw: np.ndarray) -> np.ndarray:
    """A method's ``k x d x d`` stack as booleans, refused (naming the method and the first bad sample)
    unless every entry is a bool or the number 0 or 1: NaN, an infinity or 0.5 is no edge and no
    missing edge."""
    if raw.dtype == bool:
        return raw
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"posterior method {name!r} returned {raw.dtype} entries; expected booleans or 0/1")
    bad = ~np.isin(raw, (0, 1))
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"posterior method {name!r}: sample {where[0]} holds {raw[where].item()!r} at "
                         f"{where[1:]}; expected booleans or 0/1 (NaN is no edge)")
    return raw.astype(bool)


def cpdag_to_dag(cpdag: CausalGraph, rule: str, rng: np.random.Generator) -> np.ndarray:
    """One DAG of the class of ``cpdag`` by ``rule`` (module notes), as a bool matrix."""
    if rule == "uniform":
        try:
            members = _members(cpdag)
        except NoExtension:
            members = None
        if members is not None:
            return members[rng.integers(len(members))]
    elif rule != "random_extension":
        raise ValueError(f"cpdag_rule {rule!r} unknown; expected one of {', '.join(CPDAG_RULES)}")
    order = rng.permutation(cpdag.n)
    shuffled = CausalGraph(tuple(cpdag.nodes[i] for i in order), cpdag.matrix[np.ix_(order, order)], cpdag.name)
    dag = consistent_extension(shuffled).directed_matrix()
    back = np.argsort(order)
    return dag[np.ix_(back, back)]


@functools.lru_cache(maxsize=256)
def _members_cached(nodes: tuple[str, ...], matrix: bytes, d: int) -> np.ndarray:
    graph = CausalGraph(nodes, np.frombuffer(matrix, dtype=np.int8).reshape(d, d))
    return np.stack([m.directed_matrix() for m in mec_members(graph)])


def _members(cpdag: CausalGraph) -> np.ndarray:
    return _members_cached(cpdag.nodes, cpdag.matrix.astype(np.int8).tobytes(), cpdag.n)


def _bootstrap(data: pd.DataFrame, n_samples: int, seed: int, rule: str,
               learn: Callable[[pd.DataFrame], CausalGraph]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(data)
    out = []
    for _ in range(n_samples):
        rows = rng.integers(0, n, n)
        cpdag = learn(data.iloc[rows].reset_index(drop=True))
        out.append(cpdag_to_dag(cpdag.reorder(list(data.columns)), rule, rng))
    return np.stack(out)


_CPDAG_RULE = {"type": "str", "choices_from": "causaleval.bayes.posteriors:CPDAG_RULES"}


@register_posterior("bootstrap_pc", options={"pc_alpha": {"type": "float", "above": 0, "below": 1},
                                             "cpdag_rule": _CPDAG_RULE})
def bootstrap_pc(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """Bootstrap PC-stable (Fisher-z at the option ``pc_alpha``), see the module notes."""
    from causaleval.learn.learners import pc

    opts = method_options("bootstrap_pc", options, {})
    return _bootstrap(data, n_samples, seed, opts["cpdag_rule"],
                      lambda d: pc(d, ci_test="fisher_z", alpha=opts["pc_alpha"], seed=seed))


@register_posterior("bootstrap_ges", options={"ges_score": {"type": "str", "choices": ["bic", "bge"]},
                                              "cpdag_rule": _CPDAG_RULE})
def bootstrap_ges(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """Bootstrap GES with the Gaussian score of the option ``ges_score``, see the module notes."""
    from causaleval.learn.ges import ges

    opts = method_options("bootstrap_ges", options, {})
    return _bootstrap(data, n_samples, seed, opts["cpdag_rule"], lambda d: ges(d, score=opts["ges_score"]).graph)


def _mc3_size(d: int, options: Mapping[str, Any]) -> None:
    """Tempered copies run only in the compiled chain, on at most ``_mc3_jit.MAX_NODES`` variables."""
    copies = options.get("mc3_copies", MC3_DEFAULTS["mc3_copies"])
    if copies > 1 and d > _mc3_jit.MAX_NODES:
        raise ValueError(f"mc3: mc3_copies={copies} (parallel tempering) runs on at most {_mc3_jit.MAX_NODES} "
                         f"variables, not {d}; expected mc3_copies=1")


MC3_DEFAULTS = {"mc3_copies": 1, "mc3_beta_ratio": 0.8}


@register_posterior("mc3", options={"mc3_burn_in": {"type": "int", "min": 0}, "mc3_thin": {"type": "int", "min": 1},
                                    "mc3_copies": {"type": "int", "min": 1},
                                    "mc3_beta_ratio": {"type": "float", "above": 0, "below": 1}},
                    check_size=_mc3_size)
def mc3(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """Structure MCMC with the BGe score, tempered when ``mc3_copies > 1``, see the module notes."""
    from causaleval.learn.ges import BGeScore

    opts = method_options("mc3", options, MC3_DEFAULTS)
    burn_in, thin, copies = opts["mc3_burn_in"], opts["mc3_thin"], opts["mc3_copies"]
    d = data.shape[1]
    _mc3_size(d, opts)
    blocks = mc3_proposals(np.random.default_rng(seed), d, burn_in + n_samples * thin, copies)
    local = BGeScore(data.to_numpy(dtype=float))
    if d > _mc3_jit.MAX_NODES:
        return mc3_chain(local, d, blocks, burn_in, thin, n_samples)
    return _mc3_compiled(local, d, blocks, burn_in, thin, n_samples, mc3_betas(copies, opts["mc3_beta_ratio"]))


def mc3_betas(copies: int, ratio: float) -> np.ndarray:
    """The tempered copies' inverse temperatures, the geometric ladder ``beta_k = ratio^k``, ``k = 0 ..
    copies - 1`` (copy 0 the posterior itself)."""
    return ratio ** np.arange(copies, dtype=float)


# proposals drawn at a time, over all copies (160 MB), so a chain's length is not bounded by memory
MC3_BLOCK = 10_000_000
Proposals = Iterable[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def mc3_proposals(rng: np.random.Generator, d: int, steps: int, copies: int = 1) -> Iterator[
        tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """MC3's random draws for ``steps`` steps of ``copies`` copies on ``d`` variables, in blocks of
    :data:`MC3_BLOCK` proposals (the last shorter): per block, the proposed ordered pairs (uniform over
    ``d (d - 1)``; ``steps x copies``), then the logs of the uniforms of their acceptance tests and,
    with two copies or more, the adjacent pairs of copies whose swap is proposed (uniform over ``copies -
    1``) and the logs of the uniforms of the swaps' tests (empty for one copy, whose draws are those of
    the untempered chain)."""
    per_block = max(MC3_BLOCK // copies, 1)
    for start in range(0, steps, per_block):
        size = min(per_block, steps - start)
        pairs, log_u = rng.integers(0, d * (d - 1), (size, copies)), np.log(rng.random((size, copies)))
        if copies == 1:
            yield pairs, log_u, np.empty(0, np.int64), np.empty(0)
        else:
            yield pairs, log_u, rng.integers(0, copies - 1, size), np.log(rng.random(size))


def mc3_chain(local: Callable[[int, tuple[int, ...]], float], d: int, blocks: Proposals,
              burn_in: int, thin: int, n_samples: int) -> np.ndarray:
    """MC3's chain (module notes) in Python, from the empty graph: step ``s`` (counted over the
    ``blocks`` of :func:`mc3_proposals`) proposes the ordered pair ``divmod(pair, d - 1)`` (the second
    index shifted past the first) and accepts when its log uniform is below the change of the score
    ``local``; after ``burn_in`` steps every ``thin``-th state is kept. The statement of the chain and
    its cross-check: ``mc3`` runs the compiled one (:mod:`causaleval.bayes._mc3_jit`, the same
    states bit for bit), this one beyond its ``MAX_NODES`` variables."""
    scores: dict[tuple[int, int], float] = {}  # by (node, parent bit mask): the chain revisits families

    def family(v: int, mask: int) -> float:
        value = scores.get((v, mask))
        if value is None:
            value = scores[(v, mask)] = local(v, bits(mask))
        return value

    parents = [0] * d
    out = np.zeros((n_samples, d, d), dtype=bool)
    step = 0
    for pairs, log_u, *_ in blocks:
        if pairs.shape[1] != 1:
            raise ValueError(f"mc3_chain runs one copy; the proposals are for {pairs.shape[1]}")
        for pair, log_uniform in zip(pairs[:, 0].tolist(), log_u[:, 0].tolist()):
            i, j = divmod(pair, d - 1)
            j += j >= i
            moves = _mc3_move(parents, i, j)
            if moves is not None:
                delta = sum(family(v, new) - family(v, parents[v]) for v, new in moves)
                if log_uniform < delta:
                    for v, new in moves:
                        parents[v] = new
            if step >= burn_in and (step - burn_in + 1) % thin == 0:
                k = (step - burn_in) // thin
                for v in range(d):
                    out[k, bits(parents[v]), v] = True
            step += 1
    return out


def _mc3_compiled(local: BGeScore, d: int, blocks: Proposals, burn_in: int, thin: int, n_samples: int,
                  betas: Sequence[float] = (1.0,), swaps: np.ndarray | None = None) -> np.ndarray:
    """:func:`mc3_chain` by :func:`causaleval.bayes._mc3_jit.advance`, which scores the families by
    ``local``'s matrix and terms itself (the same floats as ``local``), in calls of at most ``CHUNK``
    copy steps; with ``len(betas)`` tempered copies at those inverse temperatures (module notes), the blocks
    drawn for as many, copy 0's states kept and the accepted swaps of each adjacent pair of copies
    added into ``swaps`` when given."""
    betas = np.asarray(betas, dtype=float)
    table = _mc3_jit.new_table()
    base, coef = bge_terms(local, d)
    parents = np.zeros((len(betas), d), dtype=np.int64)
    score = np.zeros(len(betas))  # all copies start at the empty graph: only differences of scores matter
    counts = np.zeros(max(len(betas) - 1, 1), dtype=np.int64)
    out = np.zeros((n_samples, d, d), dtype=bool)
    per_call = max(_mc3_jit.CHUNK // len(betas), 1)  # steps of every copy: CHUNK copy steps a call
    offset = 0
    for pairs, log_u, swap_pair, swap_log_u in blocks:
        if pairs.shape[1] != len(betas):
            raise ValueError(f"proposals for {pairs.shape[1]} copies, inverse temperatures for {len(betas)}")
        if len(betas) > 1 and not (len(swap_pair) == len(swap_log_u) == len(pairs)
                                   and np.all((swap_pair >= 0) & (swap_pair < len(betas) - 1))):
            raise ValueError(f"a block of {len(pairs)} steps of {len(betas)} copies needs as many swap proposals, "
                             f"each an adjacent pair 0 .. {len(betas) - 2}; got {len(swap_pair)} pairs, "
                             f"{len(swap_log_u)} uniforms")
        for at in range(0, len(pairs), per_call):
            end = min(at + per_call, len(pairs))
            _mc3_jit.advance(parents, score, betas, pairs, log_u, swap_pair, swap_log_u, offset, at, end, burn_in,
                             thin, local.r, base, coef, table, out, counts)
        offset += len(pairs)
    if swaps is not None:
        swaps += counts[:len(swaps)]
    return out


def bge_terms(local: BGeScore, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``local.terms(k)`` for ``k = 0 .. d - 1`` parents, as the arrays ``base`` and ``c`` of the compiled chain."""
    base, coef = zip(*(local.terms(k) for k in range(d)))
    return np.array(base), np.array(coef)


def _mc3_move(parents: list[int], i: int, j: int) -> list[tuple[int, int]] | None:
    """The new parent sets of the proposal for the pair ``(i, j)``, or None when it closes a cycle."""
    if parents[j] >> i & 1:  # delete i -> j
        return [(j, parents[j] & ~(1 << i))]
    if parents[i] >> j & 1:  # reverse j -> i into i -> j
        without = list(parents)
        without[i] &= ~(1 << j)
        if _reaches(without, j, i):
            return None
        return [(i, without[i]), (j, parents[j] | 1 << i)]
    if _reaches(parents, j, i):  # add i -> j
        return None
    return [(j, parents[j] | 1 << i)]


def _reaches(parents: list[int], a: int, b: int) -> bool:
    """Is there a directed path from ``a`` to ``b`` (``a`` among the ancestors of ``b``)?"""
    seen = frontier = 1 << b
    while frontier:
        step = 0
        for v in bits(frontier):
            step |= parents[v]
        frontier = step & ~seen
        seen |= frontier
        if seen >> a & 1:
            return True
    return False


def log_score(local: Callable[[int, tuple[int, ...]], float], dag: np.ndarray) -> float:
    """The decomposable score ``sum_v local(v, Pa(v))`` of a DAG (for checks and tests)."""
    return math.fsum(local(v, tuple(np.flatnonzero(dag[:, v]).tolist())) for v in range(dag.shape[0]))
