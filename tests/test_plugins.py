"""Plugins named by a study's ``plugins`` parameter: files and modules, errors that name the plugin."""

import sys

import numpy as np
import pytest

from causaleval import paths, plugins
from causaleval.learn.learners import LEARNERS, get_learner

LEARNER = '''
from causaleval.graphs import CausalGraph
from causaleval.learn.learners import register_learner

@register_learner("{name}", output="DAG")
def empty(data, *, ci_test, alpha, seed):
    return CausalGraph.empty(list(map(str, data.columns)))
'''


@pytest.fixture(autouse=True)
def fresh_plugin_record(monkeypatch):
    """Each test starts with no plugin loaded (the record would send deleted files to workers)."""
    monkeypatch.setattr(plugins, "_LOADED", {})


@pytest.fixture
def plugin_file(tmp_path):
    path = tmp_path / "my_algos.py"
    path.write_text(LEARNER.format(name="plugin_empty_learner"))
    yield path
    LEARNERS.pop("plugin_empty_learner", None)


def test_a_file_plugin_registers_its_learner_once(plugin_file):
    first = plugins.load([str(plugin_file)])
    again = plugins.load([str(plugin_file)])
    assert first[0] is again[0]
    assert get_learner("plugin_empty_learner").output == "DAG"


def test_a_module_plugin_is_imported_by_name(plugin_file, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_file.parent))
    (module,) = plugins.load(["my_algos"])
    assert module.__name__ == "my_algos"
    sys.modules.pop("my_algos")


def test_relative_paths_resolve_against_the_callers_folder(tmp_path):
    assert plugins.resolve(["lab/algos.py", "lab.algos"], tmp_path) == [
        str(tmp_path / "lab" / "algos.py"), "lab.algos"]


@pytest.mark.parametrize("given, named", [
    ("algos.py", "plugins"),                   # a string where a list is expected
    ([3], "3"),                                # not a name
    (["/no/such/algos.py"], "/no/such/algos.py"),
    (["no_such_module_xyz"], "no_such_module_xyz"),
])
def test_bad_plugins_are_refused_by_name(given, named):
    with pytest.raises(plugins.PluginError, match=named):
        plugins.load(given)


def test_a_failing_plugin_is_named_with_its_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(plugins.PluginError, match=r"broken\.py.*RuntimeError: boom"):
        plugins.load([str(path)])
    assert not [m for m in sys.modules if m.startswith("causaleval_plugin_broken")]


def test_a_plugin_cannot_silently_replace_a_builtin_learner(tmp_path):
    path = tmp_path / "shadow.py"
    path.write_text(LEARNER.format(name="pc"))
    with pytest.raises(plugins.PluginError,
                       match=r"learner 'pc' is already registered by causaleval\.learn\.learners\.pc"):
        plugins.load([str(path)])
    assert get_learner("pc").library == "causal-learn"


def test_a_plugin_metric_scores_study_1s_table_2_for_the_graph_classes_it_accepts():
    from causaleval import CausalGraph, GraphBatch
    from causaleval.metrics import get_metric
    from causaleval.studies.asia_mag_nced import table2_scores

    plugins.load([str(paths.ROOT / "tests" / "plugins" / "edge_count_metric.py")])
    truth = CausalGraph.from_edges(["a->b", "b->c"])
    dags = GraphBatch.from_graphs([CausalGraph.from_edges(["a->b"], nodes=truth.nodes),
                                   CausalGraph.from_edges(["a->b", "b->c", "a->c"], nodes=truth.nodes)])
    assert list(get_metric("edge count error").score(truth, dags)) == [1.0, 1.0]
    table = table2_scores(truth, {"hc": dags, "fci": dags}, ks=[0.2], metrics=["edge count error"])
    own = table[table["metric"] == "edge count error (lower is better)"].set_index("algorithm")
    assert own.loc["hc", "value"] == 1.0 and own.loc["hc", "graphs"] == 2
    assert np.isnan(own.loc["fci", "value"]) and own.loc["fci", "graphs"] == 0  # a PAG learner


@pytest.mark.parametrize("kwargs, message", [
    ({"graph_types": "DAG"}, "graph_types"), ({"graph_types": ("DAG", "PDAG")}, "graph_types"),
    ({"better": "smaller"}, "better"),
])
def test_bad_metric_registrations_are_refused(kwargs, message):
    from causaleval.metrics import register_metric

    with pytest.raises(ValueError, match=message):
        register_metric("bad", **kwargs)


def test_a_metric_answering_the_wrong_shape_or_nan_is_named():
    from causaleval import CausalGraph, GraphBatch
    from causaleval.metrics.custom import GraphMetric

    truth = CausalGraph.from_edges(["a->b"])
    batch = GraphBatch.from_graphs([truth])
    with pytest.raises(ValueError, match="'short' returned shape"):
        GraphMetric("short", lambda t, b: [1.0, 2.0], ("DAG",), "lower").score(truth, batch)
    with pytest.raises(ValueError, match="'nan' gave nan"):
        GraphMetric("nan", lambda t, b: [float("nan")], ("DAG",), "lower").score(truth, batch)


def test_a_plugin_that_exits_or_fails_is_named_and_leaves_nothing_registered(tmp_path):
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(plugins.PluginError, match=r"exits\.py.*SystemExit"):
        plugins.load([str(exits)])
    half = tmp_path / "half.py"
    half.write_text(LEARNER.format(name="plugin_half_learner") + "raise RuntimeError('late')\n")
    with pytest.raises(plugins.PluginError, match="late"):
        plugins.load([str(half)])
    assert "plugin_half_learner" not in LEARNERS


def test_the_fingerprint_is_of_the_code_that_ran_not_of_a_later_edit(tmp_path):
    path = tmp_path / "edited.py"
    path.write_text("A = 1\n")
    plugins.load([str(path)])
    before = plugins.fingerprint()
    path.write_text("A = 2\n")  # edited while the process keeps running the first version
    plugins.load([str(path)])
    assert plugins.fingerprint() == before


@pytest.mark.parametrize("registry", ["causaleval.effects.estimators:register_estimator:aipw",
                                      "causaleval.bayes.posteriors:register_posterior:bootstrap_pc"])
def test_plugins_cannot_replace_builtin_estimators_or_posteriors(tmp_path, registry):
    module, decorator, name = registry.split(":")
    path = tmp_path / "clash.py"
    path.write_text(f"from {module} import {decorator}\n\n@{decorator}({name!r})\n"
                    f"def {name}(*args, **kwargs):\n    return None\n")
    with pytest.raises(plugins.PluginError, match=f"'{name}' is already registered by {module}"):
        plugins.load([str(path)])
