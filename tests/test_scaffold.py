"""``causaleval new`` and the newcomer's path: in a folder of one's own, a BIF network, a plugin
learner and a new study; the new study and study 1 run with them; the report shows both runs; the
kit's hash does not change."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from causaleval import paths
from causaleval.app import scaffold

LEARNER = '''"""A newcomer's learner: hill climbing that may add no edge into its first column."""
from causaleval.learn.learners import learn, register_learner


@register_learner("my_hc", output="DAG", constant_columns=True)
def my_hc(data, *, ci_test, alpha, seed):
    graph = learn("hc", data, ci_test=ci_test, alpha=alpha, seed=seed)
    first = graph.nodes[0]
    return graph.__class__.from_edges([e for e in graph.edges() if not e.endswith(f"-> {first}")], nodes=graph.nodes,
                                      name="my_hc")
'''


def _kit_hash(env) -> str:
    code = "from causaleval import report; print(report.kit_hash())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def _cli(args, cwd, env, timeout=600) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "causaleval", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"causaleval {' '.join(args)} failed:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture
def newcomer(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(paths.DATA / "examples" / "sprinkler.bif", work / "net.bif")
    (work / "my_learner.py").write_text(LEARNER)
    ours = ("CAUSALEVAL_FIGURES", "CAUSALEVAL_STUDIES", "CAUSALEVAL_CALLER_CWD")
    env = {k: v for k, v in os.environ.items() if k not in ours}
    env.update(CAUSALEVAL_RUNS=str(tmp_path / "runs"), CAUSALEVAL_CACHE=str(tmp_path / "cache"))
    return work, env, tmp_path


def test_a_newcomer_adapts_the_kit_without_touching_it(newcomer):
    work, env, tmp_path = newcomer
    before = _kit_hash(env)
    _cli(["new", "my_study", "--paper", "Newcomer et al. 2026"], work, env)
    folder = work / "studies"
    notebook = next(folder.glob("[0-9][0-9]_my_study.ipynb"))
    assert not list(paths.KIT.rglob("*my_study*"))  # nothing inside the kit
    assert "Newcomer et al. 2026" in (folder / "REFERENCES.md").read_text()
    assert "@misc{my_study" in (folder / "references.bib").read_text()
    cells = json.loads(notebook.read_text())["cells"]
    assert all(c.get("outputs") for c in cells if "nbval-check-output" in c["metadata"]["tags"])
    assert (folder / "figures" / notebook.stem / "claims.csv").is_file()  # written beside the study

    plugin = ["-p", "plugins", "[my_learner.py]"]
    _cli(["run", "my_study", "-p", "network", "net.bif", "-p", "learners", "[hc, my_hc]", *plugin,
          "--tag", "mine"], work, env)
    _cli(["run", "asia_mag_nced", "-p", "network", "net.bif", "-p", "latent", "[cloudy]",
          "-p", "algorithms", "[hc, pc, fci, my_hc]", *plugin, "--tag", "mine"], work, env)
    _cli(["report"], work, env)

    assert _kit_hash(env) == before
    table = pd.read_csv(tmp_path / "runs" / "my_study" / "mine" / "figures" / "table1.csv")
    assert "my_hc" in set(table["learner"])
    learned = " ".join(p.read_text() for p in (tmp_path / "runs" / "asia_mag_nced" / "mine" / "figures").glob("*.csv"))
    assert "my_hc" in learned
    index = (tmp_path / "runs" / "report" / "index.html").read_text()
    assert 'id="my_study"' in index and "<code>mine</code>" in index and "net.bif" in index
    assert str(tmp_path) not in learned  # network names as given, never absolute paths

    tested = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
                             "-p", "no:xdist", str(folder / "test_my_study.py")],
                            cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert tested.returncode == 0, tested.stdout[-3000:]


def test_a_second_run_into_a_running_tag_is_refused(newcomer):
    work, env, tmp_path = newcomer
    lock = tmp_path / "runs" / ".locks" / "asia_mag_nced.busy.lock"
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); fcntl.flock(f, fcntl.LOCK_EX); "
        "f.write('pid 1234'); f.flush(); print('locked', flush=True); time.sleep(60)"), str(lock)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        done = subprocess.run([sys.executable, "-m", "causaleval", "run", "asia_mag_nced", "-p", "n_graphs", "2",
                               "--tag", "busy"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode != 0 and "a run with tag 'busy' is already running (pid 1234)" in done.stderr
    assert not (tmp_path / "runs" / "asia_mag_nced" / "busy").exists()


def test_run_takes_a_params_file_and_minus_p_wins(newcomer, monkeypatch):
    from causaleval.app import cli

    work, env, tmp_path = newcomer
    file = work / "mine.yaml"
    file.write_text("n_graphs: 3\nlatent: [smoke]\n")
    seen = {}
    monkeypatch.setattr(cli, "run_study", lambda name, overrides, *a: seen.update(overrides))
    assert cli.main(["run", "asia_mag_nced", "--params-file", str(file), "-p", "n_graphs", "2"]) == 0
    assert seen == {"n_graphs": 2, "latent": ["smoke"]}
    file.write_text("- not a mapping\n")
    assert cli.main(["run", "asia_mag_nced", "--params-file", str(file)]) == 2


@pytest.mark.parametrize("name, paper, message", [
    ("Demo", "A 2026", "lowercase"),
    ("1demo", "A 2026", "lowercase"),
    ("demo", "  ", "--paper"),
    ("asia_mag_nced", "A 2026", "exists already"),
])
def test_bad_new_study_requests_are_refused(tmp_path, name, paper, message):
    with pytest.raises(ValueError, match=message):
        scaffold.new_study(name, paper, folder=tmp_path / "studies")
    assert not (tmp_path / "studies").exists()


def test_a_study_is_never_written_inside_the_kit():
    with pytest.raises(ValueError, match="outside the kit's package"):
        scaffold.new_study("demo", "A 2026", folder=paths.KIT / "studies")


def test_existing_files_are_never_overwritten(tmp_path):
    folder = tmp_path / "studies"
    folder.mkdir()
    (folder / "test_demo.py").write_text("# mine\n")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        scaffold.new_study("demo", "A 2026", folder=folder)
    assert (folder / "test_demo.py").read_text() == "# mine\n" and not list(folder.glob("*.ipynb"))


def test_percent_cells_keep_their_kind_and_tags():
    nb = scaffold.notebook_from_percent('# %% [markdown]\n# # Title\n\n# %% tags=["parameters"]\nx = 1\n')
    assert [(c.cell_type, c.source, c.metadata["tags"]) for c in nb.cells] == [
        ("markdown", "# Title", []), ("code", "x = 1", ["parameters"])]


def test_a_user_study_may_not_take_a_kit_studys_name(tmp_path, monkeypatch):
    from causaleval.studies import studies

    (tmp_path / "01_asia_mag_nced.ipynb").write_text("{}")
    monkeypatch.setenv("CAUSALEVAL_STUDIES", str(tmp_path))
    with pytest.raises(ValueError, match="defined twice"):
        studies()
    assert Path(paths.NOTEBOOKS).is_dir()
