"""Study parameters: declared types, ranges and choices, checked at the boundary.

Every study notebook ``notebooks/NN_<study>.ipynb`` has a schema beside it,
``notebooks/NN_<study>.params.yaml``, with one entry per name of its ``parameters`` cell
(a test keeps the two in step and checks the notebook's defaults against the schema)::

    n_graphs: {type: int, min: 1}
    ks: {type: "list[float]", min: 0, max: 1, min_items: 1}
    ci_test: {type: str, choices_from: "causaleval.learn.learners:CI_TESTS"}
    outcomes: {type: "dict[str, list[str]]"}
    output_dir: {type: "str | None"}

* ``type``: ``int``, ``float`` (an int is accepted; NaN and infinities are not), ``str``,
  ``bool``, ``None``, ``list[T]``, ``dict[K, V]`` and unions ``T | U``. A bool is not an
  int, and a string where a list is expected is refused (never iterated character by
  character): write ``-p latent '[smoke]'``.
* ``min`` / ``max`` (inclusive) and ``above`` / ``below`` (exclusive) bound every number
  inside the value, ``not`` (a list) excludes values (``n_jobs: {type: int, min: -1, not: [0]}``),
  ``choices`` (a list)
  or ``choices_from`` (``module:attribute``, a collection, a mapping's keys, or a function
  returning one) restrict every scalar inside it, ``min_items`` bounds every list's length.
* ``options`` (on a ``dict[str, ...]``) declares the keys it may hold, grouped by what reads
  them (e.g. by posterior method; study 6's ``method_options`` takes all its groups from
  ``options_from``, where each method declares its own)::

      method_options:
        type: "dict[str, int | float | str]"
        options:
          dibs: {dibs_steps: {type: int, min: 1}, dibs_particles: {type: "int | None", min: 1}}
        options_from: "causaleval.bayes.posteriors:OPTIONS"  # groups a plugin declares

  each key is checked against its own declaration, and a key no group declares is refused with
  the nearest declared name ("did you mean").

:func:`check` is the one place a study's values are checked: ``causaleval run`` calls it
before the kernel starts, and each study's ``check_params`` calls it first, so a plain
``papermill`` run gets the same checks in its first cell. What a schema cannot state (a
latent variable must be a node of the chosen network, ...) stays in ``check_params``.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import json
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from causaleval import paths

_SCALARS = {"int", "float", "str", "bool", "None"}
_KEYS = {"type", "min", "max", "above", "below", "not", "choices", "choices_from", "min_items", "options",
         "options_from"}


class ParameterError(ValueError):
    """A study parameter whose value does not fit its declaration."""


class ParameterNote(UserWarning):
    """A combination of values that runs, but not as written (a count clipped, a part skipped):
    a study's ``check_params`` announces it in one line naming the parameters (:func:`announce`)."""


def announce(study: str, message: str) -> None:
    """Warn with a :class:`ParameterNote` (``causaleval run`` prints it before the kernel starts)."""
    warnings.warn(f"study {study_name(study)}: {message}", ParameterNote, stacklevel=2)


# ------------------------------------------------------------------------------ types
@dataclass(frozen=True)
class Type:
    """A parsed type expression: a scalar name, ``list`` (one argument), ``dict`` (key and
    value) or ``union`` (its alternatives)."""

    kind: str
    args: tuple[Type, ...] = ()

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list[{self.args[0]}]"
        if self.kind == "dict":
            return f"dict[{self.args[0]}, {self.args[1]}]"
        if self.kind == "union":
            return " | ".join(map(str, self.args))
        return self.kind


def parse_type(text: str) -> Type:
    """``"dict[str, list[int | None]]"`` -> a :class:`Type`; raises ValueError on bad syntax."""
    text = text.strip()
    alternatives = _split_top(text, "|")
    if len(alternatives) > 1:
        return Type("union", tuple(parse_type(a) for a in alternatives))
    if text in _SCALARS or text == "null":
        return Type("None" if text == "null" else text)
    match = re.fullmatch(r"(list|dict)\[(.*)\]", text)
    if not match:
        raise ValueError(f"unknown type {text!r}; known: {', '.join(sorted(_SCALARS))}, list[T], dict[K, V], T | U")
    args = tuple(parse_type(a) for a in _split_top(match[2], ","))
    if len(args) != (1 if match[1] == "list" else 2):
        raise ValueError(f"type {text!r}: list takes one type argument, dict two")
    return Type(match[1], args)


def _split_top(text: str, sep: str) -> list[str]:
    """Split ``text`` at ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "[") - (ch == "]")
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


# ----------------------------------------------------------------------------- schema
@dataclass(frozen=True)
class Spec:
    """One parameter's declaration."""

    name: str
    type: Type
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] | None = None
    choices_from: str | None = None
    min_items: int | None = None
    above: float | None = None
    below: float | None = None
    excluded: tuple[Any, ...] = ()
    options: Mapping[str, Mapping[str, Spec]] | None = None
    options_from: str | None = None

    def option_groups(self) -> dict[str, dict[str, Spec]]:
        """The keys ``options`` and ``options_from`` (resolved now: plugins add groups) declare, by
        group; a group's bad declaration is refused naming the group."""
        groups = {group: dict(specs) for group, specs in (self.options or {}).items()}
        if self.options_from is not None:
            module, _, attr = self.options_from.partition(":")
            for group, entries in getattr(importlib.import_module(module), attr).items():
                groups[group] = {key: _spec(key, entry, Path(group)) for key, entry in entries.items()}
        return groups

    def allowed(self) -> tuple[Any, ...] | None:
        """The allowed scalars (``choices`` or ``choices_from`` resolved now, not cached: a
        registry such as ``causaleval.learn.learners:LEARNERS`` grows when plugins load), if any."""
        if self.choices is not None:
            return self.choices
        if self.choices_from is None:
            return None
        module, _, attr = self.choices_from.partition(":")
        found = getattr(importlib.import_module(module), attr)
        found = found() if callable(found) else found
        return tuple(found.keys() if isinstance(found, Mapping) else found)

    def leaf(self, kind: str) -> str:
        """A scalar type with this spec's constraints, in words: ``int >= 1``."""
        text = kind
        if kind in ("int", "float"):
            low = ("[", self.min) if self.min is not None else ("(", self.above) if self.above is not None else None
            high = ("]", self.max) if self.max is not None else (")", self.below) if self.below is not None else None
            if low and high:
                text += f" in {low[0]}{low[1]}, {high[1]}{high[0]}"
            elif low:
                text += f" {'>=' if low[0] == '[' else '>'} {low[1]}"
            elif high:
                text += f" {'<=' if high[0] == ']' else '<'} {high[1]}"
        if self.excluded:
            text += " other than " + ", ".join(map(repr, self.excluded))
        allowed = self.allowed() if kind != "None" else None
        if allowed is not None:
            text += " among " + ", ".join(map(repr, allowed))
        return text

    def describe(self, t: Type | None = None) -> str:
        """The whole expected type in words, with constraints on its scalars."""
        t = t or self.type
        if t.kind == "list":
            items = f" of at least {self.min_items} item(s)" if self.min_items else ""
            return f"list[{self.describe(t.args[0])}]{items}"
        if t.kind == "dict":
            return f"dict[{t.args[0]}, {self.describe(t.args[1])}]"
        if t.kind == "union":
            return " | ".join(self.describe(a) for a in t.args)
        return self.leaf(t.kind)


def _spec(name: str, entry: Any, source: Path) -> Spec:
    where = f"{paths.display(source)}: parameter {name}"
    if not isinstance(entry, Mapping) or "type" not in entry:
        raise ValueError(f"{where}: expected a mapping with a 'type', found {entry!r}")
    unknown = set(entry) - _KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; known: {', '.join(sorted(_KEYS))}")
    try:
        t = parse_type(str(entry["type"]))
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    choices = entry.get("choices")
    options = entry.get("options")
    if options is not None and (t.kind != "dict" or not isinstance(options, Mapping)
                                or not all(isinstance(group, Mapping) for group in options.values())):
        raise ValueError(f"{where}: 'options' is a mapping of groups to declarations, on a dict type")
    return Spec(name, t, entry.get("min"), entry.get("max"), tuple(choices) if choices is not None else None,
                entry.get("choices_from"), entry.get("min_items"), entry.get("above"), entry.get("below"),
                tuple(entry.get("not", ())),
                {group: {key: _spec(f"{name}[{key!r}]", decl, source) for key, decl in decls.items()}
                 for group, decls in options.items()} if options is not None else None,
                entry.get("options_from"))


def schema_path(study: str) -> Path:
    """``notebooks/NN_<study>.params.yaml`` (``study`` with or without its ``NN_`` prefix)."""
    notebook = paths.study_notebook(study)
    if notebook is None:
        raise ParameterError(f"unknown study {study!r}: no notebook {study}.ipynb or NN_{study}.ipynb "
                             f"in {', '.join(paths.display(d) for d in paths.study_dirs())}")
    return notebook.with_suffix(".params.yaml")


def schema(study: str) -> dict[str, Spec]:
    """The study's parameter declarations, by name."""
    path = schema_path(study)
    if not path.exists():
        raise ParameterError(f"study {study_name(study)}: no parameter schema {paths.display(path)}")
    return _load_schema(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _load_schema(path: Path, _mtime: int) -> dict[str, Spec]:
    raw = yaml.safe_load(path.read_text()) or {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{paths.display(path)}: expected a mapping of parameter names to declarations")
    return {name: _spec(name, entry, path) for name, entry in raw.items()}


def study_name(study: str) -> str:
    """``01_asia_mag_nced`` -> ``asia_mag_nced`` (the name the CLI uses)."""
    return re.sub(r"^\d\d_", "", study)


# ------------------------------------------------------------------------------ check
def check(study: str, values: Mapping[str, Any]) -> None:
    """Raise :class:`ParameterError` for the first value that does not fit the study's
    schema, naming the study, the parameter (with the position inside a list or dict),
    the value found and what was expected. Names the schema does not declare are refused.
    Only the given names are checked, so a notebook may pass a subset."""
    specs = schema(study)
    for name, value in values.items():
        if name not in specs:
            close = difflib.get_close_matches(name, list(specs), n=1)
            guess = f"; did you mean {close[0]!r}?" if close else ""
            raise ParameterError(f"study {study_name(study)}: unknown parameter {name!r}{guess} "
                                 f"(declared: {', '.join(specs)})")
        problem = _problem(specs[name], specs[name].type, value, name)
        if problem:
            where, found, expected = problem
            hint = ""
            if where == name and isinstance(found, str) and expected.startswith("list["):
                hint = f"; a single value is written as a list: -p {name} '[{found}]'"
            raise ParameterError(f"study {study_name(study)}: parameter {where} = {_short(found)} "
                                 f"({type(found).__name__}): expected {expected}{hint}")


def check_option(owner: str, name: str, declaration: Mapping[str, Any], value: Any) -> None:
    """Raise :class:`ParameterError` if ``value`` does not fit ``declaration`` (an entry of a schema,
    e.g. ``{"type": "int | None", "min": 1}``), naming ``owner``, the option, the value and what was
    expected: ``dibs option dibs_particles=0 (int): expected int >= 1``. The check a posterior method
    makes of its own options, by the same grammar as the study's parameters."""
    spec = _spec(name, declaration, Path(owner))
    problem = _problem(spec, spec.type, value, name)
    if problem:
        where, found, expected = problem
        raise ParameterError(f"{owner} option {where}={_short(found)} ({type(found).__name__}): expected {expected}")


def _problem(spec: Spec, t: Type, value: Any, where: str) -> tuple[str, Any, str] | None:
    """``(position, value, expected)`` of the first mismatch inside ``value``, or None."""
    if t.kind == "union":
        for alt in t.args:
            if _shallow(alt, value):
                return _problem(spec, alt, value, where)
        return where, value, _finite(value) + spec.describe(t)
    if not _shallow(t, value):
        return where, value, _finite(value) + spec.describe(t)
    if t.kind == "list":
        if spec.min_items is not None and len(value) < spec.min_items:
            return where, value, spec.describe(t)
        for i, item in enumerate(value):
            found = _problem(spec, t.args[0], item, f"{where}[{i}]")
            if found:
                return found
        return None
    if t.kind == "dict":
        groups = spec.option_groups() if spec.options is not None or spec.options_from else None
        declared: dict[str, Spec] = {}
        for specs in (groups or {}).values():
            for name, own in specs.items():
                declared.setdefault(name, own)  # a key several groups read: the first declaration
        for key, item in value.items():
            if not _shallow(t.args[0], key):
                return f"{where} key", key, str(t.args[0])
            if groups is not None and key not in declared:
                return f"{where} key", key, _undeclared(key, groups)
            own = declared[key] if groups is not None else spec
            found = _problem(own, own.type if groups is not None else t.args[1], item, f"{where}[{key!r}]")
            if found:
                return found
        return None
    if t.kind == "None":
        return None
    if t.kind in ("int", "float"):
        if ((spec.min is not None and value < spec.min) or (spec.max is not None and value > spec.max)
                or (spec.above is not None and value <= spec.above)
                or (spec.below is not None and value >= spec.below)):
            return where, value, spec.leaf(t.kind)
    if value in spec.excluded:
        return where, value, spec.leaf(t.kind)
    allowed = spec.allowed()
    if allowed is not None and value not in allowed:
        return where, value, spec.leaf(t.kind) + _registry_hint(spec)
    return None


def _finite(value: Any) -> str:
    """``"finite "`` before what was expected when ``value`` is an infinite or NaN float."""
    return "finite " if isinstance(value, float) and not math.isfinite(value) else ""


def _undeclared(key: str, groups: Mapping[str, Mapping[str, Spec]]) -> str:
    """What a key no group declares should have been: the nearest name, and the names by group."""
    close = difflib.get_close_matches(key, [name for specs in groups.values() for name in specs], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listed = "; ".join(f"{group}: {', '.join(specs)}" for group, specs in groups.items())
    return f"a declared option{hint}; declared: {listed}"


#: registries that plugins extend, and what a plugin registers there
_REGISTRIES = {"LEARNERS": "learner", "POSTERIORS": "posterior method", "ESTIMATORS": "estimator",
               "GRAPH_METRICS": "metric"}


def _registry_hint(spec: Spec) -> str:
    """How to add a name to a registry a plugin can extend (a learner of one's own that was not loaded)."""
    attr = (spec.choices_from or "").partition(":")[2]
    if attr not in _REGISTRIES:
        return ""
    return (f" (a {_REGISTRIES[attr]} of your own is added by its plugin: -p plugins '[path/to/file.py]' "
            "or a module name, loaded before the values are checked)")


def _shallow(t: Type, value: Any) -> bool:
    """Whether ``value`` has the outer kind of ``t`` (bool is no number, NaN no float)."""
    if t.kind == "union":
        return any(_shallow(a, value) for a in t.args)
    if t.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t.kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, {"str": str, "bool": bool, "None": type(None), "list": list, "dict": dict}[t.kind])


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- defaults
def defaults(notebook: Path) -> dict[str, Any]:
    """The values of the notebook's ``parameters`` cell (every assignment a literal), by name.
    A default that is not a Python literal is left out."""
    notebook = Path(notebook)
    return dict(_defaults(notebook, notebook.stat().st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _defaults(notebook: Path, _mtime: int) -> tuple[tuple[str, Any], ...]:
    cells = json.loads(notebook.read_text())["cells"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"{paths.display(notebook)}: expected exactly one cell tagged 'parameters', "
                         f"found {len(tagged)}")
    source = "".join(tagged[0]["source"])
    found = []
    for node in ast.parse(source).body:
        target = (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                  else getattr(node, "target", None))
        if isinstance(target, ast.Name) and node.value is not None:
            try:
                found.append((target.id, ast.literal_eval(node.value)))
            except ValueError:
                continue
    return tuple(found)


def is_default(study: str, values: Mapping[str, Any]) -> bool:
    """Whether every given value equals the committed notebook's default (True when the
    study has no notebook: there is nothing to differ from)."""
    notebook = paths.study_notebook(study)
    if notebook is None:
        return True
    declared = defaults(notebook)
    return all(name in declared and _same(values[name], declared[name]) for name in values)


def _same(a: Any, b: Any) -> bool:
    """Equality that tells a bool from a number (``True == 1`` in Python)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b
