"""Validation on entry, once per input kind: node names (:func:`node_names`), mark matrices and
stacks (:func:`mark_stack`), the edge-string grammar (:data:`EDGE_MARKS`, :func:`parse_edge`) and
the alignment of labelled matrices. Every refusal is a :class:`GraphError` naming the graph and
the edge string, node or entry."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from causaleval.graphs.marks import ARROW, CIRCLE, NONE, GraphError

#: edge token -> (mark at the left node's end, mark at the right node's end)
EDGE_MARKS: dict[str, tuple[int, int]] = {
    "->": (NONE, ARROW),
    "<-": (ARROW, NONE),
    "<->": (ARROW, ARROW),
    "-": (CIRCLE, CIRCLE),
    "--": (CIRCLE, CIRCLE),
    "o-o": (CIRCLE, CIRCLE),
    "o->": (CIRCLE, ARROW),
    "<-o": (ARROW, CIRCLE),
    "o-": (CIRCLE, NONE),
    "-o": (NONE, CIRCLE),
}
#: canonical token for each pair of marks, used when printing edges
_TOKEN = {marks: tok for tok, marks in EDGE_MARKS.items() if tok not in ("--", "o-o")}
_MIRROR = {"<-": "->", "<-o": "o->", "-o": "o-"}
#: marks the compact form (no spaces) may use: none has a circle, as node names may hold "o"
_COMPACT_MARKS = ("->", "<-", "<->", "-", "--")
_MARK_RUN = re.compile(r"[<>-]+")
_GRAMMAR = ("expected '<node> <mark> <node>' with spaces around the mark (marks: "
            + ", ".join(EDGE_MARKS) + ") or, without spaces, 'a->b', 'a<-b', 'a<->b', 'a-b'")


def node_names(nodes: Any, label: str) -> tuple[str, ...]:
    """Node names as a tuple of strings, or a :class:`GraphError` naming ``label`` and the name.

    A name is a ``str`` (an integer label, e.g. a DataFrame's column number, becomes its
    decimal string); it is not empty, not only whitespace, has no leading or trailing
    whitespace, and appears once."""
    if isinstance(nodes, str) or not isinstance(nodes, Iterable):
        raise GraphError(f"{label}: node names must be a sequence of strings, got {nodes!r}")
    out = []
    for v in nodes:
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            v = str(v)
        elif not isinstance(v, str):
            raise GraphError(f"{label}: node name {v!r} is a {type(v).__name__}; expected a string")
        if not v.strip() or v != v.strip():
            raise GraphError(f"{label}: node name {v!r} (position {len(out)}) is empty or starts or ends "
                             "with whitespace; expected a non-empty name without surrounding spaces")
        out.append(v)
    if len(set(out)) != len(out):
        dup = sorted({v for v in out if out.count(v) > 1})
        raise GraphError(f"{label}: duplicate node names {dup}; each node needs its own name")
    return tuple(out)


def mark_stack(matrices: Any, nodes: tuple[str, ...], names: Sequence[str], label: str) -> np.ndarray:
    """A validated read-only int8 copy of a (B, N, N) stack of mark matrices.

    Refuses (with a :class:`GraphError` naming ``label``, the graph and the entry by its
    nodes) a wrong shape, non-numeric dtypes, entries other than -1, 0, 1 (NaN, inf, 0.5,
    2, ...) and a nonzero diagonal (a self-loop). Integer stacks are range-checked by one
    min/max pass; the caller's array is never modified or frozen."""
    m = np.asarray(matrices)
    n = len(nodes)
    if m.ndim != 3 or m.shape[1:] != (n, n):
        shape = m.shape[1:] if m.ndim == 3 else m.shape
        raise GraphError(f"{label}: expected a square {n}x{n} matrix (a row and a column per node), got shape {shape}")
    if m.dtype.kind == "O":  # e.g. numbers in an object column: take them if they are numbers
        try:
            m = m.astype(float)
        except (TypeError, ValueError):
            pass
    if m.dtype.kind not in "biuf":
        raise GraphError(f"{label}: matrix holds {m.dtype} values; expected the numbers -1, 0, 1")
    if m.dtype.kind in "iu":
        bad_any = m.size > 0 and (m.min() < -1 or m.max() > 1)
    else:
        bad_any = m.dtype.kind == "f" and not ((m == -1) | (m == 0) | (m == 1)).all()
    if bad_any:
        b, i, j = (int(x[0]) for x in np.nonzero(~((m == -1) | (m == 0) | (m == 1))))
        raise GraphError(f"{label}: {_who(names, b)}entry [{nodes[i]}, {nodes[j]}] is {m[b, i, j].item()!r}; "
                         "expected -1, 0 or 1")
    diag = np.diagonal(m, axis1=1, axis2=2)
    if diag.any():
        b, i = (int(x[0]) for x in np.nonzero(diag))
        raise GraphError(f"{label}: {_who(names, b)}self-loop at node {nodes[i]!r} (diagonal entry "
                         f"{m[b, i, i].item()!r}); the diagonal must be 0")
    out = np.array(m, dtype=np.int8)  # always a copy: the caller keeps a writable array
    out.setflags(write=False)
    return out


def _who(names: Sequence[str], b: int) -> str:
    """The graph of a batch an error is about (``names`` empty: the label names it already)."""
    return f"graph {names[b]!r}: " if names else ""


def _parse_edge(text: Any, label: str) -> tuple[str, tuple[int, int], str]:
    """(node, (mark at its end, mark at the other's end), node) of one edge string, by the
    grammar of :meth:`CausalGraph.from_edges`; a :class:`GraphError` otherwise."""
    if not isinstance(text, str):
        raise GraphError(f"{label}: edge {text!r} is a {type(text).__name__}; expected a string such as "
                         "'a -> b' (pairs (u, v) go to CausalGraph.from_edge_lists)")
    tokens = text.split()
    bad = f"{label}: cannot read edge {text!r}:"
    if len(tokens) == 3:
        a, mark, b = tokens
        if mark not in EDGE_MARKS:
            raise GraphError(f"{bad} {mark!r} is not an edge mark; {_GRAMMAR}")
        for v in (a, b):
            if "<" in v or ">" in v or v[0] == "-" or v[-1] == "-":
                raise GraphError(f"{bad} node {v!r} holds '<' or '>' or starts or ends with '-' (a chain such as "
                                 f"'a->b->c'? one edge per string); {_GRAMMAR}")
        return a, EDGE_MARKS[mark], b
    if len(tokens) != 1:
        raise GraphError(f"{bad} {'it is empty' if not tokens else f'{len(tokens)} words'}; {_GRAMMAR}")
    token = tokens[0]
    runs = list(_MARK_RUN.finditer(token))
    if len(runs) != 1:
        raise GraphError(f"{bad} {'no' if not runs else 'more than one'} edge mark (one edge per string; a node "
                         f"name with '-' needs spaces around the mark, e.g. 'x-ray -> b'); {_GRAMMAR}")
    run = runs[0]
    mark, a, b = run.group(), token[:run.start()], token[run.end():]
    if mark not in _COMPACT_MARKS:
        raise GraphError(f"{bad} {mark!r} is not an edge mark; {_GRAMMAR}")
    if not a or not b:
        raise GraphError(f"{bad} no node {'before' if not a else 'after'} {mark!r}; {_GRAMMAR}")
    readings = [f"'{a} {mark} {b}'"]
    if a[-1] == "o" and len(a) > 1 and "o" + mark in EDGE_MARKS:
        readings.append(f"'{a[:-1]} o{mark} {b}'")
    if b[0] == "o" and len(b) > 1 and mark + "o" in EDGE_MARKS:
        readings.append(f"'{a} {mark}o {b[1:]}'")
    if len(readings) == 3 and f"o{mark}o" in EDGE_MARKS:
        readings.append(f"'{a[:-1]} o{mark}o {b[1:]}'")
    if len(readings) > 1:
        raise GraphError(f"{bad} ambiguous, an 'o' touching the mark may be a letter or a circle mark: "
                         f"{' or '.join(readings)}? Write it with spaces around the mark")
    return a, EDGE_MARKS[mark], b


def _integer_label(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _lookup(index: dict[str, int], node: Any, label: str) -> int:
    try:
        return index[str(node) if _integer_label(node) else node]
    except (KeyError, TypeError):
        known = list(index) if len(index) <= 20 else f"{len(index)} nodes"
        raise GraphError(f"{label}: edge mentions {node!r}, not among its nodes {known}") from None


def _square(matrix: Any, nodes: tuple[str, ...], label: str) -> np.ndarray:
    """One validated read-only N x N mark matrix (:func:`mark_stack` on a stack of one).

    A labelled matrix (a pandas DataFrame) is aligned by its labels, never read by position:
    its row and column labels (as strings) must each be the nodes, in any order."""
    if hasattr(matrix, "index") and hasattr(matrix, "columns"):
        matrix = _aligned(matrix, nodes, label)
    m = np.asarray(matrix)
    if m.ndim != 2:
        raise GraphError(f"{label}: expected a square {len(nodes)}x{len(nodes)} matrix, got shape {m.shape}")
    return mark_stack(m[None], nodes, (), label)[0]


def _aligned(frame: Any, nodes: tuple[str, ...], label: str) -> np.ndarray:
    """The values of a DataFrame ``frame`` with rows and columns put in ``nodes`` order by label."""
    axes = {"row": [str(v) for v in frame.index], "column": [str(v) for v in frame.columns]}
    for axis, labels in axes.items():
        if sorted(labels) != sorted(nodes):
            raise GraphError(f"{label}: the matrix's {axis} labels {labels} are not the nodes {list(nodes)}; a "
                             "DataFrame is aligned by its labels (pass .to_numpy() to read it in node order)")
    rows, cols = ([labels.index(v) for v in nodes] for labels in axes.values())
    return np.asarray(frame)[np.ix_(rows, cols)]


def _permutation(current: Sequence[str], target: Sequence[str], label: str) -> list[int]:
    """Indices that put ``current`` in ``target`` order; a GraphError if the sets differ."""
    if set(target) != set(current) or len(target) != len(current):
        missing = sorted(set(target) - set(current))
        extra = sorted(set(current) - set(target))
        raise GraphError(
            f"{label}: node sets differ (missing {missing}, unexpected {extra}); "
            "metrics compare graphs on the same variables"
        )
    return [list(current).index(v) for v in target]
