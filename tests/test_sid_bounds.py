"""SID of an equivalence class: bounds over its DAGs (Peters and Buehlmann 2015)."""

import math

from causaleval import metrics
from causaleval.graphs import CausalGraph, to_cpdag


def test_true_cpdag_has_lower_bound_zero_and_positive_upper_bound():
    """The chain a -> b -> c has class {a->b->c, a<-b->c, a<-b<-c}; the learned CPDAG a - b - c
    is the true class, so its best member (the truth) has SID 0, while one member taken
    alone (as the SID of a consistent extension is) can score up to the class maximum."""
    truth = CausalGraph.from_edges(["a->b", "b->c"])
    bounds = metrics.sid_bounds(truth, to_cpdag(truth))
    members = [CausalGraph.from_edges(e, nodes=truth.nodes) for e in
               (["a->b", "b->c"], ["b->a", "b->c"], ["b->a", "c->b"])]
    each = [float(metrics.sid(truth, m)) for m in members]
    assert bounds == {"sid_min": min(each), "sid_max": max(each), "members": 3}
    assert bounds["sid_min"] == 0.0 and bounds["sid_max"] > 0


def test_a_dag_is_its_own_class():
    truth = CausalGraph.from_edges(["a->b", "b->c"])
    guess = CausalGraph.from_edges(["a->b", "c->b"])
    s = metrics.sid(truth, guess)
    assert metrics.sid_bounds(truth, guess) == {"sid_min": s, "sid_max": s, "members": 1}


def test_conflict_marks_are_read_as_undirected_and_a_class_past_the_limit_is_nan():
    truth = CausalGraph.from_edges(["a->b", "b->c", "a->c", "c->d"])
    pc_like = CausalGraph.from_edges(["a<->b", "b->c", "a->c", "c->d"])
    bounds = metrics.sid_bounds(truth, pc_like)
    assert bounds["members"] == 2 and bounds["sid_min"] == 0.0 < bounds["sid_max"]
    chain = CausalGraph.from_edges([f"x{i}->x{i + 1}" for i in range(17)])
    past = metrics.sid_bounds(chain, to_cpdag(chain))
    assert past["members"] == -1 and math.isnan(past["sid_min"]) and math.isnan(past["sid_max"])
