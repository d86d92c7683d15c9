"""Collection at tiny scale on the real engines: layout, determinism, failures, resumption."""

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import types

import pandas as pd
import pytest

from causaleval.app import cli
from causaleval.collect import collect_domain, runner, stackdb, workload
from causaleval.collect.engine import QueryFailed
from causaleval.collect.sqlite import SqliteEngine
from causaleval.datasets.software import load_collected

TINY = {"subjects": 4, "trials": 2, "scale": 0.05, "progress": False}


def _settings(**changes):
    base = {"subjects": 4, "trials": 2, "seed": 0, "scale": 0.05, "timeout_s": 10.0}
    return runner.collection_settings("sqlite", **{**base, **changes})


@pytest.fixture(scope="module")
def tiny_sqlite(tmp_path_factory):
    return collect_domain("sqlite", out=tmp_path_factory.mktemp("sqlite"), **TINY)


def test_sqlite_collection_layout_and_loader(tiny_sqlite):
    manifest = json.loads((tiny_sqlite / "manifest.json").read_text())
    assert manifest["runs"] == 4 * 2 * 24 and manifest["finished"]
    assert manifest["status_counts"]["ok"] == manifest["runs"]
    assert manifest["versions"]["sqlite"] and manifest["settings"]["seed"] == 0
    assert not (tiny_sqlite / "runs.csv").exists() and not (tiny_sqlite / ".work").exists()
    data = load_collected("sqlite", path=tiny_sqlite)
    assert data.treatments == ("cache_size", "index_level", "statistics", "temp_store")
    assert data.levels["index_level"] == (0, 1, 2)
    assert data.missing_cells().empty
    # every (trial, subject, cell) exactly once, and each trial in its own shuffled order
    keys = data.frame[["trial", "subject", *data.treatments]]
    assert not keys.duplicated().any()
    # the answer does not depend on the treatment: rows returned equal the rows covariate
    assert (data.frame["rows_returned"] == data.frame["rows"]).all()
    binary = load_collected("sqlite", path=tiny_sqlite, binary=True)
    assert binary.levels["index_level"] == (0, 1) and len(binary.frame) == 4 * 2 * 16


def test_same_seed_same_subjects_and_order(tiny_sqlite, tmp_path):
    again = collect_domain("sqlite", out=tmp_path, **{**TINY, "trials": 1})
    first = pd.read_csv(tiny_sqlite / "subjects.csv.gz")
    pd.testing.assert_frame_equal(first, pd.read_csv(again / "subjects.csv.gz"))
    order = list(runner.run_order(3, [{}] * 2, 2, seed=5))
    assert order == list(runner.run_order(3, [{}] * 2, 2, seed=5))
    assert order[:6] != sorted(order[:6]) or order[6:] != sorted(order[6:])


def test_covariates_from_sql_text():
    sql = ("SELECT t.name, count(*) FROM tags t JOIN post_tags pt ON pt.tag_id = t.id "
           "JOIN posts p ON p.id = pt.post_id WHERE lower(p.title) LIKE '%join from%' "
           "AND p.score BETWEEN 1 AND 5 GROUP BY t.name")
    got = workload.query_covariates(sql, {"tags": 10, "post_tags": 30, "posts": 20})
    assert got == {"num_ref_tables": 3, "total_ref_rows": 60, "num_joins": 2, "num_group_by": 1,
                   "num_subqueries": 0, "num_predicates": 2, "length_chars": len(sql)}
    with pytest.raises(ValueError, match=r"unknown table\(s\) \['nope'\]"):
        workload.query_covariates("SELECT 1 FROM nope", {})


def test_index_levels_nest():
    zero, one, two = (set(stackdb.index_statements(level)) for level in (0, 1, 2))
    assert not zero and one < two
    with pytest.raises(ValueError, match="index level"):
        stackdb.index_statements(3)


def _check_failures(engine, cell):
    """A cross join past its timeout is a ``timeout``; a bad column an ``error`` naming it."""
    with pytest.raises(QueryFailed) as failed:
        engine.run("SELECT count(*) FROM votes a, votes b, votes c", cell, timeout_s=0.2)
    assert failed.value.status == "timeout"
    with pytest.raises(QueryFailed) as failed:
        engine.run("SELECT nope FROM users", cell, timeout_s=5)
    assert failed.value.status == "error" and "nope" in str(failed.value)
    assert engine.run("SELECT id FROM users WHERE id = 3", cell, timeout_s=5)["rows_returned"] == 1


def test_engine_records_timeouts_and_errors(tmp_path):
    engine = SqliteEngine(stackdb.generate(0, 0.05), tmp_path)
    _check_failures(engine, {"index_level": 0, "cache_size": 0, "temp_store": 0, "statistics": 0})
    engine.close()


class _Flaky(SqliteEngine):
    """Fails every run of index level 1 and stops the process after ``stop_after`` runs."""

    stop_after = None

    def __init__(self, db, workdir):
        super().__init__(db, workdir)
        self.count = 0

    def run(self, sql, cell, timeout_s, max_vm_steps=None):
        self.count += 1
        if self.stop_after is not None and self.count > self.stop_after:
            raise KeyboardInterrupt
        if cell["index_level"] == 1:
            raise QueryFailed("error", "simulated failure, with a comma")
        return super().run(sql, cell, timeout_s, max_vm_steps)


def test_interrupted_collection_resumes_without_loss_or_duplicates(tmp_path):
    settings = _settings()
    _Flaky.stop_after = 50
    with pytest.raises(KeyboardInterrupt):
        runner.collect(_Flaky, settings, tmp_path, progress=False)
    log = tmp_path / "runs.csv"
    assert len(pd.read_csv(log)) == 50
    with open(log, "a") as fh:
        fh.write("51,0,3,0,")  # a torn line, as from a kill in mid-write
    _Flaky.stop_after = None
    runner.collect(_Flaky, settings, tmp_path, progress=False)
    runs = pd.read_csv(tmp_path / "runs.csv.gz")
    assert len(runs) == 4 * 2 * 24 and runs["seq"].is_unique
    assert not runs[["trial", "subject", "index_level", "cache_size", "temp_store", "statistics"]].duplicated().any()
    failed = runs[runs["status"] == "error"]
    assert (failed["index_level"] == 1).all() and len(failed) == 4 * 2 * 8
    assert failed["runtime_ms"].isna().all() and failed["error"].str.contains("with a comma").all()
    data = load_collected("sqlite", path=tmp_path)
    assert set(data.missing_cells()["reason"]) == {"error"}
    assert data.complete().frame.empty  # every subject lost its level-1 cells


def test_collection_seconds_count_the_interrupted_part_and_the_resumed_one(tmp_path, monkeypatch):
    clock = itertools.count(0, 100)  # the runner's clock: each reading 100 s after the last
    monkeypatch.setattr(runner, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    _Flaky.stop_after = 50
    with pytest.raises(KeyboardInterrupt):
        runner.collect(_Flaky, _settings(), tmp_path, progress=False)
    first = json.loads((tmp_path / "manifest.json").read_text())["collection_seconds"]
    assert first == 200  # from the start to the interruption: two readings later
    _Flaky.stop_after = None
    runner.collect(_Flaky, _settings(), tmp_path, progress=False)
    assert json.loads((tmp_path / "manifest.json").read_text())["collection_seconds"] == first + 300


def test_killed_collection_stops_cleanly_and_resumes(tmp_path):
    args = ["--subjects", "20", "--trials", "2", "--scale", "0.05", "--out", str(tmp_path)]
    proc = subprocess.Popen([sys.executable, "-m", "causaleval", "collect", "sqlite", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = tmp_path / "runs.csv"
    deadline = time.monotonic() + 120
    while not (log.exists() and log.read_text().count("\n") > 50) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "rerun the same command to resume" in err
    assert not (tmp_path / ".work").exists()  # engines closed on the way out
    assert cli.main(["collect", "sqlite", *args]) == 0
    runs = pd.read_csv(tmp_path / "runs.csv.gz")
    assert len(runs) == 20 * 2 * 24 and runs["seq"].is_unique


def test_resuming_with_other_settings_or_twice_at_once_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"settings": _settings(trials=1)}))
    with pytest.raises(ValueError, match="holds a collection with settings"):
        runner.collect(SqliteEngine, _settings(), tmp_path, progress=False)
    with runner._lock(tmp_path), pytest.raises(RuntimeError, match="another collection"):
        runner.collect(SqliteEngine, _settings(trials=1), tmp_path, progress=False)
    with pytest.raises(ValueError, match="unknown collection domain"):
        collect_domain("mysql", subjects=1, trials=1, out=tmp_path)


def test_cli_collect_and_gzip_without_timestamps(tmp_path, capsys):
    assert cli.main(["collect", "sqlite", "--subjects", "2", "--trials", "1", "--scale", "0.05",
                     "--out", str(tmp_path)]) == 0
    assert len(pd.read_csv(tmp_path / "runs.csv.gz")) == 2 * 24
    assert (tmp_path / "runs.csv.gz").read_bytes()[4:8] == bytes(4)  # gzip header mtime field
    assert cli.main(["collect", "sqlite", "--subjects", "2", "--trials", "1", "--scale", "0.05",
                     "--out", str(tmp_path)]) == 0
    assert "already complete" in capsys.readouterr().out


# PostgreSQL: `make test` installs the server, and sets CAUSALEVAL_REQUIRE_POSTGRES=1 so
# that a missing server fails these tests instead of skipping them.
def _postgres_available() -> bool:
    from causaleval.collect.postgres import find_bindir

    try:
        find_bindir()
        return True
    except RuntimeError:
        return False


needs_postgres = pytest.mark.skipif(
    not _postgres_available() and not os.environ.get("CAUSALEVAL_REQUIRE_POSTGRES"),
    reason="PostgreSQL server binaries not installed (make installs them)")


@needs_postgres
def test_postgres_collection_matches_sqlite_answers(tiny_sqlite, tmp_path):
    out = collect_domain("postgres", out=tmp_path, **{**TINY, "trials": 1})
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["runs"] == 4 * 27 and manifest["status_counts"]["ok"] == 4 * 27
    assert "PostgreSQL" in manifest["versions"]["postgres"]
    data = load_collected("postgres", path=out)
    assert data.treatments == ("index_level", "memory_level", "page_cost")
    assert (data.frame["rows_returned"] == data.frame["rows"]).all()
    # the same workload as the sqlite domain, from the same seed
    pd.testing.assert_frame_equal(pd.read_csv(out / "subjects.csv.gz"),
                                  pd.read_csv(tiny_sqlite / "subjects.csv.gz"))


@needs_postgres
def test_postgres_server_lifecycle_and_timeout(tmp_path):
    from causaleval.collect.postgres import PIDFILE, PostgresEngine

    engine = PostgresEngine(stackdb.generate(0, 0.05), tmp_path)
    datadir = engine.server.datadir
    try:
        assert (tmp_path / PIDFILE).exists()
        _check_failures(engine, {"index_level": 0, "page_cost": 0, "memory_level": 0})
    finally:
        engine.close()
    assert not datadir.parent.exists() and not (tmp_path / PIDFILE).exists()


def test_missing_server_binaries_are_named(tmp_path, monkeypatch):
    from causaleval.collect import postgres

    monkeypatch.setattr(postgres, "DEBIAN_ROOT", tmp_path)
    monkeypatch.setenv("CAUSALEVAL_PG_BINDIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="no PostgreSQL server binaries.*postgresql"):
        postgres.find_bindir()
