"""``python -m causaleval``: list, run and reproduce the study notebooks through papermill.

* ``list``: the studies (``notebooks/NN_name.ipynb`` is study ``name``) and their parameters.
* ``run STUDY [-p NAME VALUE ...] [--tag TAG]``: execute one study into
  ``runs/<study>/<tag>/`` (the executed notebook, an HTML export and ``parameters.yaml``).
  At its defaults a run rewrites the study's tables and figures under ``figures/<study>/``;
  with overrides they go to ``runs/<study>/<tag>/figures/`` so ``figures/`` keeps matching
  the committed notebooks. ``--inplace`` executes the committed notebook itself (defaults only).
* ``reproduce [--inplace]``: run every study at its defaults.
* ``collect sqlite|postgres --subjects N --trials T --out DIR``: run (or resume) a
  factorial experiment on a real query engine (:mod:`causaleval.collect`).

Values are read as YAML, so ``-p n_graphs 20``, ``-p latent '[smoke, lung]'`` and
``-p output_dir null`` work. Unknown parameter names are refused (papermill would
silently accept a misspelled one).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from causaleval import paths, report

_NOTEBOOK = re.compile(r"^\d\d_(?P<name>\w+)\.ipynb$")


def studies() -> dict[str, Path]:
    """Study name -> notebook path, from the files in ``notebooks/``."""
    found = {}
    for path in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        match = _NOTEBOOK.match(path.name)
        if match:
            found[match["name"]] = path
    return found


def study_notebook(name: str) -> Path:
    known = studies()
    if name not in known:
        raise ValueError(f"unknown study {name!r}; known: {', '.join(known) or 'none'}")
    return known[name]


def declared_parameters(notebook: Path) -> dict[str, Any]:
    """Names, defaults and comments of the notebook's ``parameters`` cell."""
    import papermill

    return papermill.inspect_notebook(str(notebook))


def parse_overrides(notebook: Path, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """YAML-parsed ``-p NAME VALUE`` pairs, refusing names the notebook does not declare."""
    declared = declared_parameters(notebook)
    unknown = [name for name, _ in pairs if name not in declared]
    if unknown:
        raise ValueError(
            f"{notebook.name}: unknown parameter(s) {unknown}; declared: {', '.join(declared)}"
        )
    return {name: yaml.safe_load(value) for name, value in pairs}


def run_study(name: str, overrides: dict[str, Any], tag: str | None = None, inplace: bool = False) -> Path:
    """Execute one study with papermill and return the executed notebook's path."""
    import papermill

    notebook = study_notebook(name)
    if inplace and overrides:
        raise ValueError("--inplace executes the committed notebook at its defaults; drop the -p overrides")
    if inplace:
        output = notebook
    else:
        tag = tag or ("default" if not overrides else report.parameter_hash(overrides))
        folder = paths.RUNS / name / tag
        if overrides and "output_dir" not in overrides:
            overrides = {**overrides, "output_dir": str(folder / "figures")}
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "parameters.yaml").write_text(yaml.safe_dump(overrides, sort_keys=True))
        output = folder / notebook.name
    print(f"running {paths.display(notebook)} -> {paths.display(output)}", file=sys.stderr)
    papermill.execute_notebook(
        str(notebook), str(output), parameters=overrides, cwd=str(paths.NOTEBOOKS),
        kernel_name="python3", progress_bar=True,
    )
    _relative_paths(output)
    if not inplace:
        _export_html(output)
    return output


def _relative_paths(notebook: Path) -> None:
    """Store papermill's input and output paths relative to the project root, so the
    executed notebook names no folder of the machine it ran on."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    meta = nb.metadata.get("papermill", {})
    for key in ("input_path", "output_path"):
        if meta.get(key):
            meta[key] = paths.display(Path(meta[key]))
    nbformat.write(nb, notebook)


def _export_html(notebook: Path) -> None:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_filename(str(notebook))
    notebook.with_suffix(".html").write_text(body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="causaleval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the studies and their parameters")
    run = sub.add_parser("run", help="run one study notebook")
    run.add_argument("study")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    run.add_argument("--tag", help="name of the run folder under runs/<study>/")
    run.add_argument("--inplace", action="store_true", help="execute the committed notebook itself")
    rep = sub.add_parser("reproduce", help="run every study at its defaults")
    rep.add_argument("--inplace", action="store_true", help="execute the committed notebooks themselves")
    col = sub.add_parser("collect", help="collect a software-system domain (resumes when interrupted)")
    col.add_argument("domain", choices=["sqlite", "postgres"])
    col.add_argument("--subjects", type=int, default=50, help="number of queries (subjects)")
    col.add_argument("--trials", type=int, default=1, help="repetitions of the full design")
    col.add_argument("--out", help="output folder (default runs/collect/<domain>)")
    col.add_argument("--seed", type=int, default=0, help="fixes the database and the workload")
    col.add_argument("--scale", type=float, default=1.0, help="database size (1: 40,000 posts)")
    col.add_argument("--timeout", type=float, help="seconds before a run counts as timed out")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for name, path in studies().items():
                print(f"{name}  ({paths.display(path)})")
                for pname, spec in declared_parameters(path).items():
                    print(f"    {pname} = {spec['default']}  {spec.get('help', '')}")
        elif args.command == "run":
            notebook = study_notebook(args.study)
            run_study(args.study, parse_overrides(notebook, args.parameter), args.tag, args.inplace)
        elif args.command == "collect":
            from causaleval.collect import collect_domain

            out = args.out or paths.RUNS / "collect" / args.domain
            try:
                collect_domain(args.domain, subjects=args.subjects, trials=args.trials, out=out,
                               seed=args.seed, scale=args.scale, timeout_s=args.timeout)
            except KeyboardInterrupt:
                print(f"causaleval: collection interrupted; the finished runs are in {out}; "
                      "rerun the same command to resume", file=sys.stderr)
                return 130
        else:
            for name in studies():
                run_study(name, {}, inplace=args.inplace)
    except (ValueError, RuntimeError, FileNotFoundError) as err:
        print(f"causaleval: {err}", file=sys.stderr)
        return 2
    return 0
