"""A user's graph metric, as a plugin file: the absolute difference between the number of
learned and true adjacencies (lower is better)."""

from causaleval.metrics import register_metric


@register_metric("edge count error", graph_types=("DAG", "CPDAG"), better="lower")
def edge_count_error(truth, learned):
    m = learned.matrices
    found = ((m != 0) | (m.transpose(0, 2, 1) != 0)).sum(axis=(1, 2)) / 2
    return abs(found - truth.skeleton().sum() / 2)
