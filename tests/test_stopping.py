"""Stopping a run stops everything: SIGTERM, SIGHUP and kill -9 of ``causaleval run``, and Ctrl-C
(SIGINT to its process group), leave no process of the run alive after 10 s, no kernel socket folder,
a non-zero exit, and nothing changed in ``figures/`` or ``runs/<study>/<tag>``; a run stopped after
writing into a figures folder of ``-p output_dir`` leaves it byte-identical. A real run of study 2 with two joblib
workers, its process tree collected before the signal."""

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
ARGS = ["run", "software_tvd", "-p", "n_dags", "40", "-p", "n_sensitivity", "0", "-p", "n_jobs", "2"]


def _tree(root: int) -> set[int]:
    """``root`` and every descendant, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def _cmdline(pid: int) -> str:
    """``pid``'s command line; empty for a process that ended since it was listed (a short-lived
    helper of the kernel's start: reading its /proc entry then raises ProcessLookupError)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


@pytest.fixture
def short_tmp(tmp_path):
    """A short TMPDIR (``tmp_path/tmp`` links to it), removed afterwards: the kernel's Unix socket
    path must stay under 108 bytes, which pytest-xdist's nested temporary folders exceed."""
    short = Path(tempfile.mkdtemp(prefix="ce-"))
    (tmp_path / "tmp").symlink_to(short)
    yield short
    shutil.rmtree(short, ignore_errors=True)


def _start(tmp_path: Path, short: Path, tag: str) -> subprocess.Popen:
    env = {**os.environ, "CAUSALEVAL_RUNS": str(tmp_path / "runs"), "CAUSALEVAL_CACHE": str(tmp_path / "cache"),
           "CAUSALEVAL_FIGURES": str(tmp_path / "figures"), "TMPDIR": str(short), "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen([sys.executable, "-m", "causaleval", *ARGS, "--tag", tag], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_die_with_pytest)


def _exit_code(proc: subprocess.Popen, timeout: float = 180) -> int:
    """The stopped run's exit code; a few seconds alone (the handler interrupts the kernel at once),
    ``timeout`` under the load of make test. A run still alive then is aborted (SIGABRT: with
    ``PYTHONFAULTHANDLER`` set, Python prints every thread's stack) and the test fails with its stderr."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        pytest.fail(f"the run did not stop within {timeout} s of the signal; its stderr and stacks:\n{err[-6000:]}")


def _die_with_pytest() -> None:
    """SIGTERM to the run when pytest dies (a stopped ``make test``): it has a session of its own,
    so nothing else would reach it."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _wait_for_workers(proc: subprocess.Popen, timeout: float = 300) -> set[int]:
    """The run's processes once its kernel has started two loky workers: seconds alone; more than 120 s
    once, when make test ran beside two other heavy jobs, hence the generous ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tree = _tree(proc.pid)
        commands = " ".join(_cmdline(p) for p in _alive(tree))
        if commands.count("LokyProcess") >= 2:
            return tree
        if proc.poll() is not None:
            pytest.fail(f"the run ended before its workers started: {proc.stderr.read()[-2000:]}")
        time.sleep(0.5)
    pytest.fail(f"no loky workers within {timeout} s of the start")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGKILL", "SIGINT to the group"])
def test_a_stopped_run_leaves_no_process_and_no_output(tmp_path, short_tmp, how):
    proc = _start(tmp_path, short_tmp, how.split()[0].lower())
    tree = _wait_for_workers(proc)
    if how == "SIGINT to the group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, getattr(signal, how))
    code = _exit_code(proc)
    deadline = time.monotonic() + 10
    while _alive(tree) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(tree), f"{how}: processes of the run still alive 10 s later: {sorted(_alive(tree))}"
    assert not list((tmp_path / "tmp").glob("causaleval-kernel-*")), f"{how}: the kernel's socket folder is left"
    assert code != 0
    err = proc.stderr.read()
    if how in ("SIGTERM", "SIGHUP"):
        assert f"was stopped ({how})" in err, err[-2000:]
    if how == "SIGINT to the group":
        assert "was interrupted" in err, err[-2000:]
    tag = how.split()[0].lower()
    assert not (tmp_path / "runs" / "software_tvd" / tag).exists()  # no partial run folder
    assert not (tmp_path / "figures").exists() or not any((tmp_path / "figures").rglob("*.csv"))


@pytest.mark.skipif(shutil.which("setpriv") is None or shutil.which("make") is None,
                    reason="needs setpriv (util-linux) and make")
def test_make_gives_its_long_commands_a_parent_death_signal():
    """GNU make does not pass SIGTERM on to its commands, and a kill -9 of make reaches nothing: the
    study runs of ``make reproduce`` and the pytest of ``make test`` die with make (SIGTERM), and
    a run stopped by SIGTERM stops its kernel and workers (the tests above)."""
    root = Path(__file__).resolve().parents[1]
    plan = subprocess.run(["make", "-n", "-C", str(root), "-o", ".venv/.installed", "-o", "system-packages",
                           "reproduce", "test"], capture_output=True, text=True, check=True).stdout
    long_commands = [line for line in plan.splitlines() if "causaleval reproduce" in line or "-m pytest" in line]
    assert len(long_commands) == 2, plan
    for line in long_commands:
        assert "exec setpriv --pdeathsig TERM " in line, line


# ----------------------------------------------------------------- a run into a figures folder
def _writing_study(folder: Path, cells: tuple[str, ...] = (
        "import time\nimport pandas as pd\nfrom causaleval import report\n"
        "report.save_table(pd.DataFrame({'n': [n]}), 't', study='01_slow', params=dict(n=n), out=output_dir)",
        "if n == 2:\n    time.sleep(120)")) -> None:
    """A user's study ``slow`` of ``cells`` after its parameters: by default it writes its table, then
    (n = 2) waits in a later cell, so a signal stops it after it has written into its output folder."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    first = nbformat.v4.new_code_cell("n = 1\noutput_dir = None")
    first.metadata["tags"] = ["parameters"]
    nb.cells = [first, *(nbformat.v4.new_code_cell(code) for code in cells)]
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "01_slow.ipynb")
    (folder / "01_slow.params.yaml").write_text("n: {type: int}\noutput_dir: {type: 'str | None'}\n")


def _committed_outputs(figures: Path) -> dict[str, bytes]:
    """A figures folder as a study's earlier runs left it: the run's folder ``variant/`` with a
    subfolder of another run, and a sibling folder; returned as bytes by relative path."""
    (figures / "01_slow" / "variant" / "other_data").mkdir(parents=True)
    (figures / "01_slow" / "sibling").mkdir(parents=True)
    (figures / "01_slow" / "variant" / "t.csv").write_text(",n\n0,7\n")
    (figures / "01_slow" / "variant" / "stale.md").write_text("from an earlier run\n")
    (figures / "01_slow" / "variant" / "other_data" / "t.csv").write_text(",n\n0,8\n")
    (figures / "01_slow" / "sibling" / "t.csv").write_text(",n\n0,9\n")
    return _snapshot(figures)


def _snapshot(figures: Path) -> dict[str, bytes]:
    return {str(p.relative_to(figures)): p.read_bytes() for p in sorted(figures.rglob("*")) if p.is_file()}


def _run_slow(tmp_path: Path, n: int, output_dir: str) -> subprocess.Popen:
    env = {**os.environ, "CAUSALEVAL_RUNS": str(tmp_path / "runs"), "CAUSALEVAL_CACHE": str(tmp_path / "cache"),
           "CAUSALEVAL_FIGURES": str(tmp_path / "figures"), "CAUSALEVAL_STUDIES": str(tmp_path / "studies"),
           "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen([sys.executable, "-m", "causaleval", "run", "slow", "-p", "n", str(n), "-p", "output_dir",
                             output_dir, "--tag", f"n{n}"], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_die_with_pytest)


@pytest.mark.parametrize("output_dir", ["../figures/01_slow/variant", "{tmp}/figures/01_slow/variant"])
def test_a_run_stopped_while_writing_into_a_figures_folder_leaves_it_byte_identical(tmp_path, output_dir):
    """The make-reproduce runs write into ``figures/<study>/<folder>`` with ``-p output_dir`` (relative
    to the notebook's folder, as the kernel reads it): stopped after writing there, the folder is as it
    was, byte for byte, and the message names it as unchanged."""
    _writing_study(tmp_path / "studies")
    before = _committed_outputs(tmp_path / "figures")
    proc = _run_slow(tmp_path, 2, output_dir.format(tmp=tmp_path))
    deadline = time.monotonic() + 120
    while not list((tmp_path / "runs" / "slow").glob(".n2.running-*/output-staged/t.provenance.json")):
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        assert time.monotonic() < deadline, "the run wrote no table within the time limit"
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGTERM)
    code = _exit_code(proc)
    err = proc.stderr.read()
    assert code != 0 and "study slow was stopped (SIGTERM)" in err, err[-2000:]
    assert "figures/01_slow/variant/ are unchanged" in err, err[-2000:]  # printed from where the user stands
    assert _snapshot(tmp_path / "figures") == before
    assert not (tmp_path / "runs" / "slow" / "n2").exists()


def test_a_finished_run_moves_its_outputs_into_the_figures_folder_keeping_other_runs_subfolders(tmp_path):
    _writing_study(tmp_path / "studies")
    before = _committed_outputs(tmp_path / "figures")
    proc = _run_slow(tmp_path, 1, "../figures/01_slow/variant")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    after = _snapshot(tmp_path / "figures")
    assert after["01_slow/variant/t.csv"] == b",n\n0,1\n"  # the new table
    assert "01_slow/variant/stale.md" not in after  # the folder is replaced whole ...
    for kept in ("01_slow/variant/other_data/t.csv", "01_slow/sibling/t.csv"):  # ... other runs' outputs stay
        assert after[kept] == before[kept]
    provenance = (tmp_path / "figures" / "01_slow" / "variant" / "t.provenance.json").read_text()
    assert "output-staged" not in provenance and "running" not in provenance
    assert not list((tmp_path / "runs" / "slow").glob(".*"))  # no staging folder left


def test_a_run_whose_cell_ignores_the_interrupt_still_stops_at_once(tmp_path):
    """The kernel may miss the interrupt: a SIGINT that reaches it between two cells is lost (the
    CI run of 2026-11-26 hung so), and a user's cell may ignore SIGINT. The run must not wait for
    the cell's reply then: nbclient's pending polls of the cell are cancelled and the kernel killed."""
    folder = tmp_path / "studies"
    _writing_study(folder, ("import pathlib, signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                            "pathlib.Path('ignoring').touch()\ntime.sleep(120)",))
    proc = _run_slow(tmp_path, 2, "../figures/01_slow/variant")
    deadline = time.monotonic() + 120
    while not (folder / "ignoring").exists():
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        assert time.monotonic() < deadline, "the cell did not start within the time limit"
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGTERM)
    code = _exit_code(proc)  # the cell sleeps 120 s
    err = proc.stderr.read()
    assert code != 0 and "study slow was stopped (SIGTERM)" in err, err[-2000:]
    assert "Task exception was never retrieved" not in err and "Task was destroyed" not in err, err[-2000:]
    assert not (tmp_path / "runs" / "slow" / "n2").exists()


@pytest.mark.parametrize("launcher", ["python -m causaleval", "causaleval"])
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_a_command_stopped_before_its_run_begins_says_so_and_exits_130(tmp_path, launcher, how):
    """Outside a run's own handling (here: reading ``--params-file``, a FIFO that the test holds open
    without writing) SIGTERM stops ``causaleval`` as Ctrl-C does: the kit's message and exit 130, not
    Python's default action (exit -15, nothing said) or a traceback; both launchers (``python -m`` and
    the console script) alike."""
    fifo = tmp_path / "params.yaml"
    os.mkfifo(fifo)
    env = {**os.environ, "CAUSALEVAL_RUNS": str(tmp_path / "runs"), "PYTHONFAULTHANDLER": "1"}
    command = ([sys.executable, "-m", "causaleval"] if launcher.startswith("python")
               else [str(Path(sys.executable).parent / "causaleval")])
    proc = subprocess.Popen([*command, "run", "software_tvd", "--params-file", str(fifo)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_die_with_pytest)
    deadline = time.monotonic() + 180
    while True:  # a non-blocking open for writing succeeds once the command has opened the FIFO to read
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            assert proc.poll() is None, proc.stderr.read()[-2000:]
            assert time.monotonic() < deadline, "the command did not open its --params-file within the time limit"
            time.sleep(0.1)
    try:
        time.sleep(0.2)  # the command now waits in its read
        os.kill(proc.pid, how)
        code = _exit_code(proc)
    finally:
        os.close(writer)
    err = proc.stderr.read()
    assert code == 130 and f"causaleval: stopped ({how.name})" in err, (code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]


def test_a_stop_while_outputs_are_moved_into_place_waits_for_the_move():
    """A stop that comes while a finished run's outputs are published is raised once they are in
    place (a SIGTERM to ``reproduce`` then stops it before its next study, not halfway through a
    folder); a SIGHUP inherited as ignored (``nohup``) stays ignored."""
    from causaleval.app import cli, entry

    moved = []
    with pytest.raises(entry.Stopped, match="SIGTERM"), cli._stops_held():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)
        moved.append("all")
    assert moved == ["all"]
    assert signal.SIGHUP in entry.stop_signals()
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        assert entry.stop_signals() == (signal.SIGTERM, signal.SIGINT)
    finally:
        signal.signal(signal.SIGHUP, before)
