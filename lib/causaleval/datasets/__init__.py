"""Data sources of the kit: pgmpy's shipped networks, and factorial software-system data
(the original KDL files and the kit's own collections) in one tidy layout. Files are read
strictly by :mod:`causaleval.datasets.readers`; a damaged one raises :class:`DataFileError`."""

from causaleval.datasets.factorial import (
    FactorialData,
    binarize,
    normalize_outcomes,
    select_treatments,
)
from causaleval.datasets.kdl import kdl_domains, load_kdl
from causaleval.datasets.networks import available_networks, load_network, network_graph
from causaleval.datasets.readers import DataFileError
from causaleval.datasets.software import collected_domains, load_collected

__all__ = [
    "DataFileError", "FactorialData", "available_networks", "binarize", "collected_domains", "kdl_domains",
    "load_collected", "load_kdl", "load_network", "network_graph", "normalize_outcomes",
    "select_treatments",
]
