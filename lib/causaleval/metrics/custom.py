"""Graph metrics of one's own, added to a study's tables by name (``-p metrics '[my_metric]'``).

A plugin (:mod:`causaleval.plugins`) registers a metric beside its learners::

    from causaleval.metrics import register_metric

    @register_metric("edge count error", graph_types=("DAG", "CPDAG"), better="lower")
    def edge_count_error(truth, learned):         # truth: CausalGraph, learned: GraphBatch
        m = learned.matrices
        found = ((m != 0) | (m.transpose(0, 2, 1) != 0)).sum(axis=(1, 2)) / 2
        return abs(found - truth.skeleton().sum() / 2)

The function takes the truth and a batch of learned graphs over the truth's nodes (truth
first, as every metric of the kit) and returns one finite number per learned graph. A study
scores it only for learners whose output class is in ``graph_types``; elsewhere the cell is
empty, as the paper's tables leave "-". ``better`` (``lower`` or ``higher``) is shown with the
value so a reader knows which way is good.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from causaleval.graphs import GRAPH_CLASSES, CausalGraph, GraphBatch
from causaleval.plugins import check_name

BETTER = ("lower", "higher")

MetricFn = Callable[[CausalGraph, GraphBatch], np.ndarray]


@dataclass(frozen=True)
class GraphMetric:
    name: str
    fn: MetricFn
    graph_types: tuple[str, ...]
    better: str

    def score(self, truth: CausalGraph, learned: GraphBatch) -> np.ndarray:
        """One value per learned graph; refuses an answer of the wrong shape or a non-finite
        value, naming the metric and the graph."""
        values = np.asarray(self.fn(truth, learned), dtype=float)
        if values.shape != (len(learned),):
            raise ValueError(f"metric {self.name!r} returned shape {values.shape} for {len(learned)} "
                             f"learned graphs; expected one number per graph")
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(f"metric {self.name!r} gave {values[bad[0]]} for learned graph "
                             f"{learned.names[bad[0]]!r}; expected a finite number")
        return values


GRAPH_METRICS: dict[str, GraphMetric] = {}


def register_metric(name: str, *, graph_types: tuple[str, ...] = GRAPH_CLASSES,
                    better: str = "lower") -> Callable[[MetricFn], MetricFn]:
    """Decorator adding ``fn`` to :data:`GRAPH_METRICS` under ``name``; a name is taken once
    (the same function registered again is accepted)."""
    unknown = [t for t in graph_types if t not in GRAPH_CLASSES]
    if isinstance(graph_types, str) or unknown or not graph_types:
        raise ValueError(f"metric {name!r}: graph_types {graph_types!r}; expected a tuple of {GRAPH_CLASSES}")
    if better not in BETTER:
        raise ValueError(f"metric {name!r}: better={better!r}; expected one of {BETTER}")

    def wrap(fn: MetricFn) -> MetricFn:
        check_name("metric", name, GRAPH_METRICS[name].fn if name in GRAPH_METRICS else None, fn)
        GRAPH_METRICS[name] = GraphMetric(name, fn, tuple(graph_types), better)
        return fn

    return wrap


def get_metric(name: str) -> GraphMetric:
    try:
        return GRAPH_METRICS[name]
    except KeyError:
        known = ", ".join(sorted(GRAPH_METRICS)) or "none (a plugin registers them)"
        raise ValueError(f"unknown metric {name!r}; registered: {known}") from None
