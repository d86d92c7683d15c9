"""No study decides a verdict by hand or types a paper's number: verdict words come from
:mod:`causaleval.verdicts`, paper values from ``data/paper_values/``. A scan of every study
module's syntax tree (docstrings are prose and are left out)."""

import ast
import re
import io
import math
from pathlib import Path

import pandas as pd
import pytest

from causaleval import paths, verdicts

STUDIES = Path(__file__).resolve().parents[1] / "lib" / "causaleval" / "studies"
WORDS = set(verdicts.VERDICTS) | set(verdicts.AGREEMENT) | {"explained", "unexplained", "holds here"}
#: constants of method, not of any paper (levels, thresholds of tests, plotting)
METHOD_CONSTANTS = {0.0, 0.5, 1.0, 0.05, 0.95, 0.025, 0.975, 0.01, 0.99, 0.1, 0.9, 0.001, 0.25, 0.75, 0.2, 0.8}


def _modules() -> list[Path]:
    return sorted(p for p in STUDIES.rglob("*.py"))


def _paper_numbers() -> set[float]:
    found: set[float] = set()
    for path in (paths.DATA / "paper_values").glob("*.csv"):
        text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("#"))
        frame = pd.read_csv(io.StringIO(text))
        for column in frame.select_dtypes("number"):
            found.update(float(v) for v in frame[column].dropna() if not float(v).is_integer())
    return {v for v in found if math.isfinite(v)} - METHOD_CONSTANTS


def _constants(tree: ast.AST):
    """Every constant but docstrings and the values of module-level UPPER_CASE names (a named
    constant of method, whose comment says what it is, is not a typed result)."""
    named = {id(c) for node in getattr(tree, "body", [])
             if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets)
             and isinstance(node.value, (ast.Constant, ast.Tuple))
             for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docstrings | named:
            yield node


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(STUDIES)))
def test_no_verdict_word_is_typed_in_a_study(module):
    typed = [f"line {node.lineno}: {node.value!r}" for node in _constants(ast.parse(module.read_text()))
             if isinstance(node.value, str) and node.value.strip().lower() in WORDS]
    assert not typed, f"{module.name} types verdict words (use causaleval.verdicts): {typed}"


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(STUDIES)))
def test_no_verdict_is_decided_by_a_literal(module):
    """``verdict=True`` / ``{"verdict": False}`` decide by hand."""
    tree = ast.parse(module.read_text())
    typed = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("verdict", "holds") and isinstance(node.value, ast.Constant):
            typed.append(node.value.lineno)
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if (isinstance(key, ast.Constant) and key.value in ("verdict", "holds", "holds here", "status")
                        and isinstance(value, ast.Constant)):
                    typed.append(value.lineno)
    assert not typed, f"{module.name} decides verdicts by literal at lines {typed}"


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(STUDIES)))
def test_no_paper_number_is_typed_in_a_study(module):
    numbers = _paper_numbers()
    typed = [f"line {node.lineno}: {node.value!r}" for node in _constants(ast.parse(module.read_text()))
             if isinstance(node.value, float) and node.value in numbers]
    assert not typed, f"{module.name} types numbers equal to paper values (read them from data/paper_values): {typed}"


# ---------------------------------------------------------------- the notebooks' typed text (issue 35)
NOTEBOOKS = sorted(paths.ROOT.joinpath("notebooks").glob("[0-9][0-9]_*.ipynb"))
#: verdict words that are also plain English ("the DAG holds the covariate", "an edge differs"): in
#: running text they are left to the reader; in a heading they are refused like the others
ENGLISH = {verdicts.HOLDS, verdicts.MATCHES, verdicts.DIFFERS}
#: words by which a heading asserts a result instead of saying what the section shows
ASSERTING = {"why", "hold", "holds", "reverses", "better", "worse", "fails", "wrong", "miss", "misses", "agree",
             "agrees", "differ", "differs"}
#: package versions and section numbers are not results
_NOT_RESULTS = re.compile(r"\bSecs?\.\s*[\d.,\- and]+|"
                          r"\b(?:DoWhy|pgmpy|causal-learn|gadjid|causallib|numpy|scipy)\s+\d+(?:\.\d+)+")


def _markdown(notebook: Path) -> list[tuple[int, str]]:
    import nbformat

    return [(i, c.source) for i, c in enumerate(nbformat.read(notebook, as_version=4).cells)
            if c.cell_type == "markdown"]


def _running_text(source: str) -> str:
    """A markdown cell without code, emphasis (the kit writes a vocabulary word it defines as *holds*),
    quotations and headings."""
    text = re.sub(r"```.*?```|`[^`]*`|\*[^*]+\*|\"[^\"\n]*\"", " ", source.replace("**", ""), flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _words(text: str, words: set[str]) -> list[str]:
    return [w for w in sorted(words) if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text, re.I)]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_headings_say_what_a_section_shows(notebook):
    found = [f"cell {i}: {line.strip()!r}" for i, source in _markdown(notebook) for line in source.splitlines()
             if line.lstrip().startswith("#") and _words(line, WORDS | ASSERTING)]
    assert not found, f"{notebook.name}: headings that assert a result or a verdict: {found}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_verdict_is_typed_in_a_notebooks_text(notebook):
    """A verdict in running text is computed (a code cell's output), never typed into a markdown cell;
    a definition writes the word as emphasis (*undecided*)."""
    found = [f"cell {i}: {_words(_running_text(source), WORDS - ENGLISH)}" for i, source in _markdown(notebook)
             if _words(_running_text(source), WORDS - ENGLISH)]
    assert not found, f"{notebook.name}: verdict words typed in markdown: {found}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_paper_number_is_typed_in_a_notebooks_text(notebook):
    from causaleval.studies.software_tvd.figure2 import STRONG, WEAK

    numbers = _paper_numbers() - {STRONG, WEAK}  # the kit's reading of "strong" and "weak", stated as such
    found = []
    for i, source in _markdown(notebook):
        text = _NOT_RESULTS.sub(" ", re.sub(r"```.*?```|`[^`]*`|\([^()]*#[^()]*\)", " ", source, flags=re.S))
        found += [f"cell {i}: {m.group()}" for m in re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\w.])", text)
                  if float(m.group()) in numbers]
    assert not found, f"{notebook.name}: numbers equal to paper values typed in markdown: {found}"
