"""``python -m causaleval``: list, run and reproduce the study notebooks through papermill.

* ``list``: the studies (``notebooks/NN_name.ipynb`` is study ``name``; a user's own studies
  are found in ``CAUSALEVAL_STUDIES`` and ``./studies``), their parameters, declared types
  (``NN_name.params.yaml``) and defaults.
* ``run STUDY [-p NAME VALUE ...] [--params-file YAML] [--tag TAG] [--force] [--quiet] [--verbose]``: check
  the values against the study's schema and its ``check_params`` (before any kernel starts), then
  execute the notebook into ``runs/<study>/<tag>/`` (the executed notebook, an HTML export,
  ``parameters.yaml``, the resolved parameters, and ``figures/``, the run's tables and figures,
  unless ``-p output_dir DIR`` says otherwise), printing its progress
  (:mod:`causaleval.app.progress`). The tag defaults to ``default`` without overrides and to the
  overrides' hash with them. ``--inplace`` executes the committed notebook itself (defaults only)
  and, as ``reproduce``, replaces ``figures/<study>/`` (``$CAUSALEVAL_FIGURES/<study>/``).
  ``runs/`` is that of the working directory (:func:`causaleval.paths.default_runs`).
* ``reproduce [--inplace]``: run every study at its defaults, replacing ``runs/<study>/default/``
  and ``figures/<study>/``.
* ``test [PATH]``: a user's studies tested as ``make test`` tests the kit's (:mod:`causaleval.app.usertest`).
* ``lab [--port N]``: JupyterLab on the kit's notebooks and the user's studies (:mod:`causaleval.app.lab`).
* ``check-figures [--strict]``: list the outputs under ``figures/`` that differ from git HEAD's,
  changed decisions apart from last-digit differences of numbers.
* ``new NAME --paper "Author et al. 2026" [--dir DIR] [--title T] [--no-run]``: start a study of
  one's own in ``DIR`` (default ``./studies``) from the kit's template
  (:mod:`causaleval.app.scaffold`) and execute its notebook in place.
* ``report [--out DIR] [--open]``: the notebook site of every study and run, ``runs/report/index.html``
  (:mod:`causaleval.app.book`, Sphinx with myst-nb).
* ``collect sqlite|postgres --subjects N --trials T --out DIR``: run (or resume) a
  factorial experiment on a real query engine (:mod:`causaleval.collect`).

Runs never mix: a run executes in a hidden folder ``runs/<study>/.<tag>.running-<pid>/``
and is renamed into place only when every cell succeeded. A run into an existing tag is
refused unless ``--force`` (which replaces the folder once the new run succeeded), and so is a
second run into a tag while the first is still running (a lock per tag). A
failed or stopped run writes nothing to ``runs/<study>/<tag>/``, ``figures/`` or the folder of
``-p output_dir DIR`` (what the kernel writes to DIR is staged in the run's folder,
:func:`causaleval.paths.staged`, and moved to DIR, its subfolders from other runs carried over,
when every cell succeeded), and says which of them it left unchanged; its executed
notebook (with the error) is kept in ``runs/<study>/<tag>.failed/``, and the error is
printed as one paragraph (``--verbose`` adds the traceback).

Values are read as YAML, so ``-p n_graphs 20``, ``-p latent '[smoke, lung]'`` and
``-p output_dir null`` work. Unknown names, wrong types and values out of range are
refused with the parameter named (papermill alone would accept anything).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from causaleval import params, paths, plugins, report
from causaleval.app.entry import Stopped, raise_stop, stop_signals
from causaleval.studies import studies

_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?:running|new|old)-(?P<pid>\d+)$")
#: the kernel's figures root in a run at the defaults; moved to figures/ when the run succeeds
_DEFAULT_FIGURES = "figures-at-defaults"
#: what a run with ``-p output_dir DIR`` writes to DIR, staged; moved to DIR when the run succeeds
_STAGED_OUTPUT = "output-staged"


class RunFailed(RuntimeError):
    """A study notebook failed; the message is the one paragraph the user sees."""

    def __init__(self, message: str, detail: str, interrupted: bool = False):
        super().__init__(message)
        self.detail = detail
        self.interrupted = interrupted


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
    """YAML-parsed ``-p NAME VALUE`` pairs, checked against the study's schema
    (:func:`causaleval.params.check`): unknown names, wrong types, values out of range.
    ``plugins`` are resolved against the current folder and imported first, so the learners
    they register are valid choices."""
    study = params.study_name(notebook.stem)
    values: dict[str, Any] = {}
    for name, text in pairs:
        if name in values:
            raise params.ParameterError(f"study {study}: parameter {name} is given twice")
        try:
            values[name] = yaml.safe_load(text)
        except yaml.YAMLError as err:
            problem = str(err).splitlines()[0]
            raise params.ParameterError(f"study {study}: parameter {name} = {text!r} is not YAML ({problem})") from None
    if "plugins" in values:  # load them first: a plugin's learners are valid choices
        params.check(study, {"plugins": values["plugins"]})
        values["plugins"] = plugins.resolve(values["plugins"], Path.cwd())  # paths from where the user stands
        plugins.load(values["plugins"])
    params.check(study, values)
    return values


def check_study(name: str, overrides: Mapping[str, Any]) -> None:
    """The study's own ``check_params`` (``causaleval.studies.<name>``, when it has one) on
    its defaults with ``overrides``, so what the schema cannot state fails before the kernel; what it
    announces (:class:`causaleval.params.ParameterNote`: a count clipped, a part skipped) is printed
    as one line each."""
    import warnings

    try:
        module = importlib.import_module(f"causaleval.studies.{name}")
    except ModuleNotFoundError as err:
        if err.name == f"causaleval.studies.{name}":
            return
        raise
    if hasattr(module, "check_params"):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", params.ParameterNote)
                module.check_params({**params.defaults(study_notebook(name)), **overrides})
        except ValueError as err:
            raise params.ParameterError(f"study {name}: {err}") from None
        for note in caught:
            if issubclass(note.category, params.ParameterNote):
                print(f"causaleval: note: {note.message}", file=sys.stderr)
            else:
                warnings.warn_explicit(note.message, note.category, note.filename, note.lineno)


def run_study(name: str, overrides: dict[str, Any], tag: str | None = None, inplace: bool = False,
              force: bool = False, quiet: bool = False, publish: bool = False) -> Path:
    """Execute one study with papermill and return the executed notebook's path (see the
    module docstring for the folders). ``publish`` (``reproduce``, ``--inplace``) lets a run at the
    defaults replace the study's ``figures/``; otherwise its tables stay in its run folder. Progress
    goes to stderr unless ``quiet`` (:mod:`causaleval.app.progress`). Raises :class:`RunFailed`
    when a cell fails."""
    import papermill

    from causaleval.app import progress as run_progress
    from causaleval.app.kernel import NAME as KERNEL, ensure_kernelspec

    notebook = study_notebook(name)
    if overrides:
        check_study(name, overrides)
    if inplace and (overrides or tag):
        raise ValueError("--inplace executes the committed notebook at its defaults; drop -p and --tag")
    tag = "inplace" if inplace else tag or ("default" if not overrides else report.parameter_hash(overrides))
    if not _TAG.match(tag):
        raise ValueError(f"--tag {tag!r}: expected letters, digits, '_' and '-' (starting with a letter or digit)")
    folder = paths.RUNS / name
    final = folder / tag
    (paths.RUNS / ".locks").mkdir(parents=True, exist_ok=True)
    lock = _lock(paths.RUNS / ".locks" / f"{name}.{tag}.lock", name, tag)
    if final.exists() and not inplace and not force:
        raise ValueError(f"{_show(final)} holds an earlier run; --force replaces it, --tag NAME picks another folder")
    _remove_stale(folder)
    _remove_stale(paths.figures_root())
    work = folder / f".{tag}.running-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    injected = dict(overrides)
    env = {"CAUSALEVAL_RUNS": str(paths.RUNS)}  # the kernel caches where this command keeps its runs
    publish = publish or inplace
    if overrides and not overrides.get("output_dir"):  # None or "" too: the run folder, never a shared one
        injected["output_dir"] = str(work / "figures")
    destination = paths.study_figures(notebook)  # where a run at the defaults writes, once it succeeded
    if not overrides:
        env["CAUSALEVAL_FIGURES"] = str(work / _DEFAULT_FIGURES)
        # figures/ (or a user's study's own figures folder) when published, else the run's own folder
        figures = destination.parent if publish else final / "figures"
    elif overrides.get("output_dir"):  # a folder of one's choice (figures/... in reproduce) is staged too
        figures = _output_folder(notebook, overrides["output_dir"])
        env["CAUSALEVAL_STAGED_OUTPUT"] = f"{figures}{os.pathsep}{work / _STAGED_OUTPUT}"
    else:
        figures = final / "figures"
    user_dirs = paths.study_dirs()[1:]
    if user_dirs:  # a user's studies, for the kernel, whose working directory is the notebook's folder
        env["CAUSALEVAL_STUDIES"] = os.pathsep.join(str(d) for d in user_dirs)
    resolved = json.loads(json.dumps({**params.defaults(notebook), **injected}, default=str))  # plain YAML types
    (work / "parameters.yaml").write_text(yaml.safe_dump(_moved(resolved, work, final), sort_keys=True))
    output = work / notebook.name
    print(f"running {_show(notebook)} -> {_show(notebook if inplace else final / notebook.name)}",
          file=sys.stderr)
    stop: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="causaleval-kernel-") as sockets, \
                run_progress.RunProgress(name, Path(sockets) / "progress.jsonl", quiet) as shown, \
                _environ({**env, **shown.environ()}), _stopping(stop):
            # Unix sockets in a private folder: no TCP port, no other user can reach the kernel
            ensure_kernelspec()  # the kit's kernel: the numerical environment fixed before numpy
            km = stop["km"] = _guarded_kernel_manager(KERNEL, ip=os.path.join(sockets, "kernel"))
            try:
                papermill.execute_notebook(
                    str(notebook), str(output), parameters=injected, cwd=str(notebook.parent),
                    kernel_name=KERNEL, progress_bar=False, km=km, engine_name=run_progress.register(),
                    progress=shown,
                )
            finally:  # papermill leaves a kernel it was given running; then the watchdog has nothing to do
                _cancel_cell_polls()
                km.stop_clients()
                if km.has_kernel:
                    km.shutdown_kernel(now=True)
                km.release_watchdog()
    except BaseException as err:  # noqa: B036 - an interrupted run is a failed run too
        if "signal" in stop and not isinstance(err, KeyboardInterrupt):  # e.g. the kernel's death it caused
            err = Stopped(stop["signal"]) if stop["signal"] != signal.SIGINT else KeyboardInterrupt()
        unchanged = (f"the committed notebook and {_show(figures)}/ are unchanged" if inplace else
                     f"{_show(final)} and {_show(figures)}/ are unchanged" if figures.parent != final else
                     f"{_show(final)} is unchanged")
        raise _failure(name, err, work, folder / f"{tag}.failed", output.name, unchanged) from err
    with _stops_held():  # the outputs are moved into place whole, then a stop that came is raised
        _finish_notebook(output, notebook, notebook if inplace else final / notebook.name, work, final)
        if not inplace:
            _export_html(output)
        if not overrides:
            made = sorted((work / _DEFAULT_FIGURES).glob("*"), key=lambda p: p.name != notebook.stem)  # its own first
            for folder_made in made:
                if publish:
                    _publish(folder_made, destination.parent / folder_made.name)
                else:  # a run of one's own at the defaults keeps its tables in its run folder, as any run
                    inside = work / "figures"
                    _replace_dir(folder_made,
                                 inside if folder_made.name == notebook.stem else inside / folder_made.name)
            shutil.rmtree(work / _DEFAULT_FIGURES, ignore_errors=True)
            figures = destination if publish else final / "figures"
        elif (work / _STAGED_OUTPUT).exists():
            _publish(work / _STAGED_OUTPUT, figures)
        shutil.rmtree(folder / f"{tag}.failed", ignore_errors=True)
        if inplace:
            shutil.move(str(output), str(notebook))
            shutil.rmtree(work)
        else:
            _replace_dir(work, final)
        done = notebook if inplace else final / notebook.name
        print(f"study {name} done: {_show(done)}; tables and figures in {_show(figures)}", file=sys.stderr)
        lock.close()
    return done


def _lock(path: Path, name: str, tag: str):
    """An exclusive lock on ``path`` for this process (released when it exits), or a refusal naming
    the run that holds it: two runs into one tag would otherwise both print "done" and one be lost."""
    import fcntl

    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise ValueError(f"study {name}: a run with tag {tag!r} is already running ({holder}); wait for it, "
                         "or pick another folder with --tag NAME") from None
    handle.truncate(0)
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


@contextlib.contextmanager
def _stopping(stop: dict[str, Any]) -> Iterator[None]:
    """SIGTERM and SIGHUP stop a run as Ctrl-C (SIGINT) does, while the run lasts; the previous
    handlers come back after it. The handler interrupts the kernel in ``stop["km"]`` at once (the
    command waits in pyzmq's poll for the kernel's reply, which holds the exception back until the
    kernel answers; interrupted, it answers within a second) and records the signal in
    ``stop["signal"]``, so the run reports it whatever error the interrupted cell raises; the kernel's
    process group is then killed as after Ctrl-C."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        stop["signal"] = signum
        provisioner = getattr(stop.get("km"), "provisioner", None)
        if getattr(provisioner, "pid", None):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(provisioner.pid, signal.SIGINT)
        raise_stop(signum)

    before = {signum: signal.signal(signum, handler) for signum in stop_signals()}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT wait while a finished run's outputs are moved into place (renames
    that a stop must not cut in half: ``reproduce`` publishes several folders); one that came is
    raised when the block ends, after the run's "done", so ``reproduce`` stops before its next study."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    before = {signum: signal.signal(signum, lambda signum, frame: came.append(signum)) for signum in stop_signals()}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
    if came:
        raise_stop(came[0])


def _cancel_cell_polls() -> None:
    """Cancel what nbclient left pending on this thread's event loop. It polls a cell's reply, its
    output and the kernel's life in three tasks; a stop raised in one leaves the others pending, and
    the kernel's shutdown, which runs the loop again, would first wait in them (blocking, with no
    timeout) for a reply the kernel sends only when the cell ends: a SIGINT that reaches the kernel
    between two cells is lost, and a cell may ignore SIGINT. The cancelled tasks are run to their end
    at once (none can block then), so none prints "Task exception was never retrieved" later. After a
    finished run nothing is pending; inside a running loop (a notebook's own) nothing is touched."""
    import asyncio

    from jupyter_core.utils import ensure_event_loop

    try:
        asyncio.get_running_loop()
        return
    except RuntimeError:
        pass
    loop = ensure_event_loop()
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _guarded_kernel_manager(kernel_name: str, ip: str) -> Any:
    """A kernel manager whose kernel's process group (the kernel and every process it starts) a
    standard-library watchdog (:mod:`causaleval.app.watchdog`) kills when this process ends, however
    it ends: ``kill -9`` included; the watchdog then removes the socket folder of ``ip`` too.
    :meth:`release_watchdog` ends the watchdog after a clean shutdown. Its clients start no heartbeat
    channel (:mod:`causaleval.app.heartless`)."""
    import subprocess

    from jupyter_client.manager import KernelManager

    from causaleval.app.heartless import WithoutHeartbeat

    class GuardedKernelManager(WithoutHeartbeat, KernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            await super()._async_launch_kernel(kernel_cmd, **kw)
            pgid = self.provisioner.pgid if self.provisioner is not None else None
            if pgid:
                script = Path(__file__).with_name("watchdog.py")
                command = [sys.executable, "-I", str(script), str(pgid), os.path.dirname(ip)]
                self._watchdog = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)

        def release_watchdog(self) -> None:
            watchdog = getattr(self, "_watchdog", None)
            if watchdog is not None:
                watchdog.stdin.close()
                watchdog.wait()
                self._watchdog = None

    return GuardedKernelManager(kernel_name=kernel_name, transport="ipc", ip=ip)


def _failure(name: str, err: BaseException, work: Path, failed: Path, notebook_name: str,
             unchanged: str) -> RunFailed:
    """Keep the failed run's folder as ``failed`` and say in one paragraph what went wrong."""
    import papermill

    _replace_dir(work, failed)
    kept = failed / notebook_name
    where = (f"The executed notebook, with the error, is kept in {_show(kept)}" if kept.exists()
             else f"The run's folder is kept in {_show(failed)}")
    if isinstance(err, papermill.PapermillExecutionError):
        message = " ".join(f"{err.ename}: {err.evalue}".split())
        what = f"failed in cell In [{err.exec_count}]: {message}"
        detail = str(err)
    elif isinstance(err, Stopped):
        what, detail = f"was stopped ({err.signal})", ""
    elif isinstance(err, KeyboardInterrupt):
        what, detail = "was interrupted", ""
    else:
        what = f"failed: {type(err).__name__}: {' '.join(str(err).split())}"
        detail = "".join(traceback.format_exception(err))
    return RunFailed(f"study {name} {what.rstrip('.')}. {where}; {unchanged}. "
                     "Run with --verbose for the traceback.", detail, isinstance(err, KeyboardInterrupt))


def _moved(values: dict[str, Any], work: Path, final: Path) -> dict[str, Any]:
    """``values`` with the temporary run folder replaced by the final one in strings."""
    return {k: v.replace(str(work), str(final)) if isinstance(v, str) else v for k, v in values.items()}


def _finish_notebook(output: Path, source: Path, destination: Path, work: Path, final: Path) -> None:
    """Name the input and output relative to the project root (so the executed notebook names
    no folder of the machine it ran on) and the final run folder instead of the temporary one."""
    import nbformat

    nb = nbformat.read(output, as_version=4)
    meta = nb.metadata.get("papermill", {})
    meta["input_path"], meta["output_path"] = paths.display(source), paths.display(destination)
    if meta.get("parameters"):
        meta["parameters"] = _moved(meta["parameters"], work, final)
    for cell in nb.cells:
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell.source = cell.source.replace(str(work), str(final))
    nbformat.write(nb, output)


def _export_html(notebook: Path) -> None:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_filename(str(notebook))
    notebook.with_suffix(".html").write_text(body)


def _output_folder(notebook: Path, output_dir: str) -> Path:
    """The folder ``output_dir`` names for the kernel, whose working directory is the notebook's folder."""
    folder = Path(output_dir)
    return (folder if folder.is_absolute() else notebook.parent / folder).resolve()


def _publish(made: Path, destination: Path) -> None:
    """Move a finished run's outputs ``made`` to ``destination`` (the outputs' subfolders that other
    runs wrote there carried over, :func:`_keep_variants`)."""
    _keep_variants(destination, made)
    _replace_dir(made, destination)


def _keep_variants(old: Path, new: Path) -> None:
    """Carry the subfolders of a study's previous outputs (its runs on other data, e.g. ``kdl_jdk/`` on
    the paper's own file, written by other runs) into the new outputs, which replace the folder whole."""
    if old.is_dir():
        for sub in sorted(p for p in old.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if not (new / sub.name).exists():
                shutil.copytree(sub, new / sub.name)


def _replace_dir(src: Path, dst: Path) -> None:
    """Put folder ``src`` at ``dst``, replacing what was there; ``dst`` is missing only
    between two renames (``src`` is first moved beside ``dst`` when on another disk)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    staged = dst.parent / f".{dst.name}.new-{os.getpid()}"
    old = dst.parent / f".{dst.name}.old-{os.getpid()}"
    shutil.move(str(src), str(staged))
    if dst.exists():
        os.rename(dst, old)
    os.rename(staged, dst)
    shutil.rmtree(old, ignore_errors=True)


def _remove_stale(folder: Path) -> None:
    """Remove the temporary folders (``.<name>.running-<pid>`` and the like) of processes gone."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        match = _TEMPORARY.match(entry.name)
        if match and not report.process_alive(int(match["pid"])):
            shutil.rmtree(entry, ignore_errors=True)


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the kernel papermill starts, restoring them after."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _show(path: Path) -> str:
    """A path as the user can type it from where they stand (:func:`causaleval.paths.shown`)."""
    return paths.shown(path)


def check_figures(strict: bool) -> int:
    """Print the outputs that differ from git HEAD's ``figures/``, changed decisions apart from
    last-digit differences (:func:`causaleval.report.compare_figures`); 1 with ``strict`` when
    any output changed, is missing or is new (last digits alone pass)."""
    import subprocess

    try:
        rows, compared = report.compare_figures()
    except (OSError, subprocess.CalledProcessError) as err:
        problem = (getattr(err, "stderr", None) or str(err)).strip()
        raise RuntimeError(f"check-figures needs git and the project's repository: {problem}") from None
    root = _show(paths.figures_root())
    order = ("changed", "missing", "new", "last digits")
    for status, name in sorted(rows, key=lambda row: (order.index(row[0]), row[1])):
        print(f"  {status:11} {name}")
    count = {status: sum(s == status for s, _ in rows) for status in order}
    print(f"check-figures: of the {compared} outputs committed at HEAD, {root}/ has {count['changed']} changed "
          f"(a verdict, count, order, graph, printed cell or figure), {count['missing']} missing and "
          f"{count['last digits']} differing only in the last digits (numbers within relative {report.RTOL:g}); "
          f"{count['new']} new (provenance sidecars not compared)")
    return 1 if strict and count["changed"] + count["missing"] + count["new"] else 0


def _paper_data_runs() -> list[tuple[str, dict[str, Any], str]]:
    """The runs of :data:`causaleval.studies.PAPER_DATA_RUNS` whose data file is present, writing
    into ``figures/<study>/<folder>/`` (given relative to the notebook's folder, where its kernel
    runs, so no path of this machine is recorded); one line names those skipped and how to get the file."""
    from causaleval.datasets.kdl import kdl_path
    from causaleval.studies import PAPER_DATA_RUNS

    runs, skipped = [], []
    for name, folder, overrides, domain in PAPER_DATA_RUNS:
        notebook = study_notebook(name)
        if kdl_path(domain).exists():
            out = os.path.relpath(paths.study_figures(notebook) / folder, notebook.parent)
            runs.append((name, {**overrides, "output_dir": out}, f"paper-data-{folder}"))
        else:
            skipped.append(f"{name} ({paths.display(kdl_path(domain))})")
    if skipped:
        print(f"causaleval: skipped the runs on the papers' own files, which are not here: {', '.join(skipped)}; "
              "put the KDL files under data/kdl/ or point CAUSALEVAL_KDL_DIR at their folder (README, "
              "'Software-system data')", file=sys.stderr)
    return runs


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, but a key given twice in one mapping is refused (YAML keeps the last one
    silently, so a parameter written twice would run with the value a reader may not see)."""


def _unique_mapping(loader: _UniqueKeys, node: yaml.MappingNode, deep: bool = False) -> dict:
    """The mapping of ``node``, refusing a scalar key written twice (a merge key ``<<`` is left to YAML)."""
    seen: set[tuple[str, str]] = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key {key_node.value!r} given twice",
                                                        key_node.start_mark)
            seen.add(key)
    return loader.construct_mapping(node, deep)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def _params_file(path: Path) -> list[tuple[str, str]]:
    """``-p`` pairs from a YAML mapping of parameter names to values (refused otherwise, naming the file;
    a name given twice is refused with its line)."""
    try:
        values = yaml.load(path.read_text(), Loader=_UniqueKeys)
    except (OSError, yaml.YAMLError) as err:
        raise ValueError(f"--params-file {path}: cannot be read as YAML ({err})") from None
    if not isinstance(values, dict) or not all(isinstance(k, str) for k in values):
        raise ValueError(f"--params-file {path}: expected a mapping of parameter names to values, "
                         f"got {type(values).__name__}")
    return [(k, yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip())
            for k, v in values.items()]


def _list() -> None:
    import logging

    logging.getLogger("papermill").setLevel(logging.ERROR)  # its parser's notes on comments are not ours
    for name, path in studies().items():
        print(f"{name}  ({paths.display(path)})")
        specs = params.schema(name) if params.schema_path(name).exists() else {}
        for pname, info in declared_parameters(path).items():
            kind = specs[pname].describe() if pname in specs else info.get("inferred_type_name", "")
            print(f"    {pname}: {kind} = {info['default']}  {info.get('help', '')}")


def _parser() -> argparse.ArgumentParser:
    """The command line: every subcommand with a description (``causaleval SUBCOMMAND --help``)."""
    parser = argparse.ArgumentParser(
        prog="causaleval", description=__doc__.splitlines()[0],
        epilog="Runs, caches and the report go to ./runs of the folder you run in (the kit's runs/ inside "
               "the kit's clone); CAUSALEVAL_RUNS names another folder. `causaleval SUBCOMMAND --help` "
               "describes each subcommand.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    def command(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=summary, description=f"{summary}. {description}")

    command("list", "list the studies and their parameters",
            "Each study (the kit's notebooks/, ./studies, CAUSALEVAL_STUDIES) with its notebook, and each "
            "parameter with its declared type, default and comment.")
    run = command("run", "run one study notebook",
                  "Checks the values against the study's schema before any kernel starts, then executes the "
                  "notebook with papermill into runs/<study>/<tag>/ (the executed notebook, its HTML, "
                  "parameters.yaml and figures/ with the run's tables and figures). The progress of the cells "
                  "and trials goes to stderr.")
    run.add_argument("study", help="the study's name (see `list`), e.g. asia_mag_nced")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                     help="set one parameter of the notebook's parameters cell; VALUE is YAML "
                          "(-p n_graphs 5, -p latent '[smoke]'); repeat for more")
    run.add_argument("--params-file", type=Path, metavar="YAML",
                     help="a YAML mapping of parameters (e.g. notebooks/params/06.paper.yaml); -p values win")
    run.add_argument("--tag", help="name of the run folder under runs/<study>/ (default: 'default', or the "
                                   "parameters' hash)")
    run.add_argument("--force", action="store_true", help="replace an earlier run of the same tag")
    run.add_argument("--inplace", action="store_true",
                     help="execute the committed notebook itself at its defaults (rewrites its figures/)")
    run.add_argument("--quiet", action="store_true", help="print no progress, only the result")
    run.add_argument("--verbose", action="store_true", help="print the traceback of a failure")
    rep = command("reproduce", "run every study at its defaults",
                  "Every study notebook of the kit, at its defaults, replacing runs/<study>/default/ and the "
                  "kit's figures/ (the only command that changes figures/), then the runs on the papers' own "
                  "files when present.")
    rep.add_argument("--inplace", action="store_true", help="execute the committed notebooks themselves")
    rep.add_argument("--quiet", action="store_true", help="print no progress, only the results")
    rep.add_argument("--verbose", action="store_true", help="print the traceback of a failure")
    new = command("new", "start a new study from the kit's template",
                  "Writes a notebook, its parameter schema, its pipeline module, a placeholder for the paper's "
                  "values and a test into DIR (default ./studies), then executes the notebook in place.")
    new.add_argument("name", help="the study's name: lowercase letters, digits and _")
    new.add_argument("--paper", required=True, help='short citation of the paper, e.g. "Author et al. 2026"')
    new.add_argument("--title", help="the notebook's title (default: from the name)")
    new.add_argument("--no-run", action="store_true", help="write the files without executing the notebook")
    new.add_argument("--dir", type=Path, help="the folder of your studies (default ./studies); never inside the kit")
    new.add_argument("--quiet", action="store_true", help="print no progress while the notebook runs")
    tst = command("test", "test your studies as `make test` tests the kit's",
                  "pytest over PATH: its test_*.py and nbval (lax mode, the kit's output masks) of its "
                  "notebooks; tables and figures go to a temporary folder, never over the study's figures/.")
    tst.add_argument("path", nargs="?", type=Path, help="the folder of your studies (default ./studies)")
    tst.add_argument("--jobs", type=int, default=1, help="pytest-xdist workers (make test uses 2; default 1)")
    out = command("report", "build the report, a notebook site of every study and run",
                  "A Sphinx + myst-nb site of every study (the kit's and yours) and every run under runs/: a "
                  "dashboard of verdict counts and key figures, a page per executed notebook, navigation and "
                  "search; built from the stored notebooks without running them.")
    out.add_argument("--out", type=Path, help="the report's folder (default runs/report of the runs folder)")
    out.add_argument("--open", action="store_true", help="open the front page in a web browser")
    lab = command("lab", "JupyterLab on the kit's notebooks and your studies",
                  "Serves kit/ (the kit's notebooks) and studies/ (./studies, CAUSALEVAL_STUDIES) on 127.0.0.1 "
                  "with a random token, in the kit's kernel; prints the URL once the server answers.")
    lab.add_argument("--port", type=int, default=8888, help="port on 127.0.0.1 (default 8888)")
    chk = command("check-figures", "list outputs in figures/ that differ from git HEAD's",
                  "Changed decisions (a verdict, count, graph, printed cell or figure) apart from numbers that "
                  "differ only in the last digits.")
    chk.add_argument("--strict", action="store_true", help="exit 1 when any output differs")
    col = command("collect", "collect a software-system domain (resumes when interrupted)",
                  "A factorial experiment on a real query engine: every subject under every treatment "
                  "combination, appended to its log as it runs.")
    col.add_argument("domain", choices=["sqlite", "postgres"])
    col.add_argument("--subjects", type=int, default=50, help="number of queries (subjects)")
    col.add_argument("--trials", type=int, default=1, help="repetitions of the full design")
    col.add_argument("--out", help="output folder (default runs/collect/<domain>)")
    col.add_argument("--seed", type=int, default=0, help="fixes the database and the workload")
    col.add_argument("--scale", type=float, default=1.0, help="database size (1: 40,000 posts)")
    col.add_argument("--timeout", type=float, help="seconds before a run counts as timed out")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    os.environ["CAUSALEVAL_CALLER_CWD"] = os.getcwd()  # relative file parameters are the caller's
    try:
        if args.command == "list":
            _list()
        elif args.command == "run":
            given = {name for name, _ in args.parameter}
            pairs = [(name, value) for name, value in (_params_file(args.params_file) if args.params_file else [])
                     if name not in given] + args.parameter
            overrides = _with_file_named(lambda: parse_overrides(study_notebook(args.study), pairs),
                                         args.params_file, given)
            run_study(args.study, overrides, args.tag, args.inplace, args.force, quiet=args.quiet)
        elif args.command == "reproduce":
            failed = []
            runs = [(name, {}, None) for name in studies()] + _paper_data_runs()
            for name, overrides, tag in runs:
                try:
                    run_study(name, overrides, tag, inplace=args.inplace and not overrides, force=True,
                              quiet=args.quiet, publish=True)
                except RunFailed as err:
                    _print_failure(err, args.verbose)
                    if err.interrupted:
                        return 130
                    failed.append(name if tag is None else f"{name} ({tag})")
            if failed:
                print(f"causaleval: {len(failed)} of {len(studies())} studies failed: {', '.join(failed)}",
                      file=sys.stderr)
                return 1
        elif args.command == "check-figures":
            return check_figures(args.strict)
        elif args.command == "new":
            from causaleval.app.scaffold import new_study

            made = new_study(args.name, args.paper, args.title, args.dir)
            for role, path in made.items():
                print(f"{role}: {_show(path)}", file=sys.stderr)
            if not args.no_run:
                run_study(args.name, {}, inplace=True, quiet=args.quiet)
        elif args.command == "test":
            from causaleval.app.usertest import run_tests

            return run_tests(args.path, args.jobs)
        elif args.command == "report":
            return _report(args.out, args.open)
        elif args.command == "lab":
            from causaleval.app.lab import check_port, serve

            return serve(check_port(args.port))
        else:
            from causaleval.collect import collect_domain

            out = args.out or paths.RUNS / "collect" / args.domain
            try:
                collect_domain(args.domain, subjects=args.subjects, trials=args.trials, out=out,
                               seed=args.seed, scale=args.scale, timeout_s=args.timeout)
            except KeyboardInterrupt:
                print(f"causaleval: collection interrupted; the finished runs are in {_show(Path(out))}; "
                      "rerun the same command to resume", file=sys.stderr)
                return 130
    except RunFailed as err:
        _print_failure(err, getattr(args, "verbose", False))
        return 130 if err.interrupted else 1
    except (ValueError, RuntimeError, FileNotFoundError) as err:
        print(f"causaleval: {err}", file=sys.stderr)
        return 2
    return 0


def _with_file_named(parse: Any, params_file: Path | None, given: set[str]) -> dict[str, Any]:
    """``parse()``, a refusal of a parameter that came from ``--params-file`` naming the file."""
    try:
        return parse()
    except params.ParameterError as err:
        named = re.findall(r"parameter '?(\w+)", str(err))
        if params_file is not None and named and named[0] not in given:
            raise params.ParameterError(f"--params-file {_show(params_file)}: {err}") from None
        raise


def _report(out: Path | None, open_browser: bool) -> int:
    """Build the report into ``out`` (default ``runs/report``), print its front page, open it if asked.
    An ``out`` that holds files but no earlier report is refused (the build replaces the folder)."""
    from causaleval.app.book import build

    if out is not None and out.is_dir() and any(out.iterdir()) and not (out / "index.html").exists():
        raise ValueError(f"report --out {_show(out)}: the folder holds files but no earlier report; "
                         "the build replaces the folder, so name an empty or new one")
    index = build(out.resolve() if out is not None else None)
    print(f"report: {_show(index)}", file=sys.stderr)
    if open_browser:
        import webbrowser

        webbrowser.open(index.resolve().as_uri())
    return 0


def _print_failure(err: RunFailed, verbose: bool) -> None:
    if verbose and err.detail:
        print(err.detail, file=sys.stderr)
    print(f"causaleval: {err}", file=sys.stderr)
