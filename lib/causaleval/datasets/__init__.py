"""Data sources of the kit: pgmpy's shipped networks (more loaders come with later studies)."""

from causaleval.datasets.networks import available_networks, load_network, network_graph

__all__ = ["available_networks", "load_network", "network_graph"]
