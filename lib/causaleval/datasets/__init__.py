"""Data sources of the kit: pgmpy's shipped networks and a user's own (BIF/XMLBIF files, edge
lists with observations), and factorial software-system data (the original KDL files, the kit's
own collections and a user's long CSV files) in one tidy layout. Files are read strictly by
:mod:`causaleval.datasets.readers`; a damaged one raises :class:`DataFileError`."""

from causaleval.datasets.factorial import (
    FactorialData,
    binarize,
    normalize_outcomes,
    select_treatments,
)
from causaleval.datasets.kdl import kdl_domains, load_kdl
from causaleval.datasets.networks import (
    available_networks,
    draw_samples,
    fingerprint,
    load_network,
    network_graph,
)
from causaleval.datasets.readers import DataFileError
from causaleval.datasets.software import collected_domains, load_collected
from causaleval.datasets.user import (
    csv_domains,
    load_factorial_csv,
    read_bif,
    read_edge_list,
    read_observations,
)

__all__ = [
    "DataFileError", "FactorialData", "available_networks", "binarize", "collected_domains", "csv_domains",
    "draw_samples", "fingerprint", "kdl_domains", "load_collected", "load_factorial_csv", "load_kdl",
    "load_network", "network_graph", "normalize_outcomes", "read_bif", "read_edge_list", "read_observations",
    "select_treatments",
]
