"""Plugins named by a study's ``plugins`` parameter: files and modules, errors that name the plugin."""

import sys

import pytest

from causaleval import plugins
from causaleval.learners import LEARNERS, get_learner

LEARNER = '''
from causaleval.graphs import CausalGraph
from causaleval.learners import register_learner

@register_learner("{name}", output="DAG")
def empty(data, *, ci_test, alpha, seed):
    return CausalGraph.empty(list(map(str, data.columns)))
'''


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
