"""A user's learner, as a plugin file: registers ``empty_dag``, which learns no edge at all
(the worst-case baseline of a structure-learning table)."""

from causaleval.graphs import CausalGraph
from causaleval.learn.learners import register_learner


@register_learner("empty_dag", output="DAG")
def empty_dag(data, *, ci_test, alpha, seed):
    return CausalGraph.empty([str(c) for c in data.columns])
