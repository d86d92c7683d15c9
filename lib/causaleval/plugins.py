"""User code named by a study's ``plugins`` parameter, imported before the study runs.

A plugin is a module name importable from the kernel (``my_lab.algos``) or the path of a
``.py`` file (``my_lab/algos.py``); importing it runs its registrations, e.g.
:func:`causaleval.learners.register_learner`, after which the study accepts the new names
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
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType


#: source files of the plugins imported in this process, for :func:`fingerprint`
_LOADED: dict[str, Path | None] = {}


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
    modules = [_load_one(p) for p in plugins]
    for plugin, module in zip(plugins, modules):
        source = getattr(module, "__file__", None)
        _LOADED[plugin] = Path(source) if source else None
    return modules


def loaded() -> tuple[str, ...]:
    """The plugins imported in this process, in import order (for worker processes)."""
    return tuple(_LOADED)


def fingerprint() -> str:
    """SHA-256 over the names and source bytes of every plugin imported in this process, so
    cached results (:func:`causaleval.report.cached_frame`) are not reused after a plugin
    changes; empty without plugins."""
    if not _LOADED:
        return ""
    digest = hashlib.sha256()
    for plugin, source in sorted(_LOADED.items()):
        digest.update(plugin.encode() + b"\0" + (source.read_bytes() if source and source.is_file() else b"") + b"\0")
    return digest.hexdigest()


def _load_one(plugin: object) -> ModuleType:
    if not isinstance(plugin, str) or not plugin.strip():
        raise PluginError(f"parameter plugins: {plugin!r} is not a module name or a .py path")
    try:
        return _import_file(Path(plugin)) if is_path(plugin) else importlib.import_module(plugin)
    except PluginError:
        raise
    except Exception as err:  # the plugin's own code failed: say which plugin
        raise PluginError(f"plugin {plugin!r} failed to import: {type(err).__name__}: {err}") from err


def _import_file(path: Path) -> ModuleType:
    path = path.resolve()
    if path.suffix != ".py" or not path.is_file():
        raise PluginError(f"plugin file {str(path)!r} does not exist or is not a .py file")
    name = f"causaleval_plugin_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
