"""User code named by a study's ``plugins`` parameter, imported before the study runs.

A plugin is a module name importable from the kernel (``my_lab.algos``) or the path of a
``.py`` file (``my_lab/algos.py``); importing it runs its registrations, e.g.
:func:`causaleval.learn.learners.register_learner`, after which the study accepts the new names
as parameters::

    python -m causaleval run asia_mag_nced -p plugins '[my_lab/algos.py]' -p algorithms '[hc, my_algo]'

A relative path is resolved against the folder ``causaleval run`` was called from (the CLI
makes it absolute before the kernel starts) or, in a plain papermill or Jupyter run, against
the kernel's working folder. A file is imported once per kernel, under a module name derived
from its resolved path, so rerunning the cell does not register twice.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType


#: the plugins imported in this process and SHA-256 of their source as imported, for :func:`fingerprint`
_LOADED: dict[str, str] = {}


class PluginError(ValueError):
    """A plugin that could not be found or imported (names the plugin and the cause)."""


def is_path(plugin: str) -> bool:
    """A plugin given as a file path rather than a module name."""
    return plugin.endswith(".py") or "/" in plugin or "\\" in plugin


def resolve(plugins: Sequence[str], base: Path) -> list[str]:
    """The plugins with relative file paths made absolute against ``base``."""
    return [str((base / p).resolve()) if is_path(p) else p for p in plugins]


def load(plugins: Sequence[str]) -> list[ModuleType]:
    """Import every plugin in order and return the modules.

    Raises :class:`PluginError` naming the plugin when it is not a string, when a file does
    not exist or when its import fails (with the original exception chained).
    """
    if isinstance(plugins, str) or not isinstance(plugins, Sequence):
        raise PluginError(f"parameter plugins: expected a list of module names or .py paths, "
                          f"got {plugins!r}")
    return [_load_one(p) for p in plugins]


def loaded() -> tuple[str, ...]:
    """The plugins imported in this process, in import order (for worker processes)."""
    return tuple(_LOADED)


def fingerprint() -> str:
    """SHA-256 over the names and sources, as imported, of every plugin imported in this
    process, so cached results (:func:`causaleval.report.cached_frame`) are neither reused
    after a plugin changes nor stored under an edited plugin's key; empty without plugins."""
    if not _LOADED:
        return ""
    text = "".join(f"{plugin}\0{digest}\0" for plugin, digest in sorted(_LOADED.items()))
    return hashlib.sha256(text.encode()).hexdigest()


#: the registries a plugin adds to ("module:attribute"); a plugin that fails to import
#: leaves none of its entries behind
REGISTRIES = ("causaleval.learn.learners:LEARNERS", "causaleval.metrics.custom:GRAPH_METRICS",
              "causaleval.effects.estimators:ESTIMATORS", "causaleval.bayes.posteriors:POSTERIORS")


def check_name(kind: str, name: str, known: Callable | None, fn: Callable) -> None:
    """Refuse ``fn`` under ``name`` when another function holds it (``known``): a plugin's
    ``pc`` must not silently replace the built-in every study would then run. The same
    function registered again (a re-imported module, a rerun notebook cell) is accepted."""
    if known is not None and _origin(known) != _origin(fn):
        raise ValueError(f"{kind} {name!r} is already registered by {_origin(known)}; "
                         f"{_origin(fn)} must choose another name")


def _origin(fn: Callable) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _registries() -> list[dict]:
    found = []
    for entry in REGISTRIES:
        module, _, attr = entry.partition(":")
        if module in sys.modules and isinstance(getattr(sys.modules[module], attr, None), dict):
            found.append(getattr(sys.modules[module], attr))
    return found


def _load_one(plugin: object) -> ModuleType:
    if not isinstance(plugin, str) or not plugin.strip():
        raise PluginError(f"parameter plugins: {plugin!r} is not a module name or a .py path")
    before = [(registry, dict(registry)) for registry in _registries()]
    try:
        module, digest = _import_file(Path(plugin)) if is_path(plugin) else _import_module(plugin)
    except PluginError:
        raise
    except (Exception, SystemExit) as err:  # the plugin's own code failed: say which plugin
        for registry, entries in before:  # and take back what it registered before failing
            registry.clear()
            registry.update(entries)
        raise PluginError(f"plugin {plugin!r} failed to import: {type(err).__name__}: {err}") from err
    if digest:
        _LOADED.setdefault(plugin, digest)
    return module


def _import_module(name: str) -> tuple[ModuleType, str]:
    """Import a module plugin; its digest is of the source file as found just before."""
    if name in sys.modules:  # imported before: its digest is the one recorded then
        return sys.modules[name], ""
    spec = importlib.util.find_spec(name)
    source = Path(spec.origin) if spec and spec.origin and Path(spec.origin).is_file() else None
    digest = hashlib.sha256(source.read_bytes() if source else name.encode()).hexdigest()
    return importlib.import_module(name), digest


def _import_file(path: Path) -> tuple[ModuleType, str]:
    """Import a file plugin from the bytes it is hashed from, so the digest is of the code
    that runs; a file imported before is served from ``sys.modules``."""
    path = path.resolve()
    if path.suffix != ".py" or not path.is_file():
        raise PluginError(f"plugin file {str(path)!r} does not exist or is not a .py file")
    name = f"causaleval_plugin_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules:  # imported before: its digest is the one recorded then
        return sys.modules[name], ""
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module, digest
