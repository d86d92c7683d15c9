"""causaleval: a reproducible paper kit for evaluating causal discovery and effect estimation.

Heavy libraries (pgmpy, causal-learn, gadjid) are imported inside the functions that
need them, so ``import causaleval`` stays fast.
"""

from causaleval.graphs import CausalGraph, GraphBatch, GraphClass, GraphError, latent_projection, to_cpdag

__version__ = "0.1.0"
__all__ = ["CausalGraph", "GraphBatch", "GraphClass", "GraphError", "latent_projection", "to_cpdag", "__version__"]
