"""``causaleval report``: the report as a notebook site, built by Sphinx with myst-nb and the book theme.

Why these tools: they are what Jupyter Book 1 is made of (myst-nb renders stored notebooks, with
their outputs, as pages; ``sphinx-book-theme`` gives the navigation sidebar, per-page contents and
full-text search), so the site is one the Jupyter community already reads, built from the stored
notebooks with execution off (``nb_execution_mode = "off"``): nothing is re-run. Jupyter Book 2 is
a Node application (mystmd); staying in Sphinx keeps the build inside the kit's Python environment.

The site (default ``runs/report/``, ``index.html`` its front page) holds:

* a dashboard (``index``): per study, the claims the evidence decides (*holds*, *does not hold*,
  *undecided*) and the rest counted apart, the cells against the paper, links to the study's page
  and to each of its runs, and its key figure at the page's full width;
* one page per study notebook (the kit's ``notebooks/`` and the user's studies), as executed;
* one page per finished run under ``runs/<study>/<tag>/`` (``causaleval run``), its own executed
  notebook with its own figures and prose, beside a table of its options against the defaults.

The facts of the dashboard are read by :func:`causaleval.app.site.study_page` from what the studies
wrote (``claims.csv``, ``agreement.csv``, figures), never from prose.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from causaleval import paths, report, verdicts
from causaleval.app.site import StudyPage, study_page
from causaleval.studies import studies

CONF = '''\
project = "causaleval: reproduced studies"
author = "causaleval"
extensions = ["myst_nb"]
html_theme = "sphinx_book_theme"
html_title = "causaleval"
html_theme_options = {"show_toc_level": 2, "home_page_in_toc": True}
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 4
myst_heading_slug_func = "causaleval.app.book.jupyter_slug"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type"]
'''


def jupyter_slug(text: str) -> str:
    """The anchor Jupyter gives a heading (``Table 1`` -> ``Table-1``), which the notebooks link to."""
    return text.strip().replace(" ", "-")


def _counts(counts: Counter) -> str:
    return ", ".join(f"{n} {word}" for word, n in counts.items() if n) or "none"


def _split(claims: pd.DataFrame | None) -> tuple[Counter, Counter]:
    """The verdicts the evidence decides, and those counted apart."""
    found = Counter(claims["verdict"]) if claims is not None else Counter()
    return (Counter({v: found.get(v, 0) for v in verdicts.EVIDENCE}),
            Counter({v: n for v, n in found.items() if v not in verdicts.EVIDENCE}))


def provenance(stamp: dict[str, Any] | None) -> str:
    """The code hashes and commit of a provenance stamp, in one line."""
    code = (stamp or {}).get("code", {})
    if not code:
        return "no stamp"
    return (f"kit `{str(code.get('kit_sha256', ''))[:12]}`, notebook `{str(code.get('notebook_sha256', ''))[:12]}`, "
            f"{_commit(code, str((stamp or {}).get('study', '')))}")


def _commit(code: dict[str, Any], study: str) -> str:
    """The commit whose code made an output: this checkout's HEAD when its kit and notebook hash as
    the stamp records (:func:`causaleval.report.code_matches`), else the commit the run started
    from and the files it had changed."""
    if report.code_matches(code, study):
        head = report.head()
        return f"commit {head} (its code hashes as the stamp records)" if head else "this checkout's code (no git)"
    start, dirty = code.get("commit"), code.get("dirty")
    if not start:
        return "commit unknown (run outside git); code differs from this checkout"
    changes = f" with {len(dirty)} changed file(s): {', '.join(dirty)}" if dirty else (
        "" if dirty is not None else " (changes not recorded)")
    return f"started from commit {start}{changes}; code differs from this checkout"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def dashboard(pages: list[StudyPage]) -> str:
    """The front page in MyST Markdown: a table of every study's counts with its links, then each
    study's key figure at full width; the toctree gives the sidebar its studies and runs."""
    evidence = " / ".join(verdicts.EVIDENCE)
    lines = ["# causaleval: reproduced studies", "",
             f"{len(pages)} studies. Every count is read from the tables the notebooks wrote: the claims the "
             f"evidence decides ({evidence}), then those counted apart (by construction, the paper against "
             "itself, not tested), and the paper's cells against our runs.", "",
             f"| study | evidence ({evidence}) | counted apart | cells against the paper | on other data "
             "| runs of one's own |",
             "| --- | --- | --- | --- | --- | --- |"]
    for page in pages:
        decided, apart = _split(page.claims)
        runs = ", ".join(f"[{run.tag}](runs/{page.name}/{run.tag}.ipynb)" for run in page.runs if run.notebook)
        other = "; ".join(f"`{name}`: {_counts(_split(claims)[0])}" for name, claims in page.variants.items())
        lines.append(f"| [{_cell(page.name)}](studies/{page.notebook.stem}.ipynb) | "
                     f"{_counts(decided) if page.claims is not None else 'no claims table'} | {_counts(apart)} | "
                     f"{_counts(page.agreement) if page.agreement else 'none'} | {other or 'none'} | "
                     f"{runs or 'none'} |")
    for page in pages:
        minutes = f"{page.duration_s / 60:.1f} min" if page.duration_s is not None else "not recorded"
        lines += ["", f"## {page.title}", "",
                  f"[The notebook](studies/{page.notebook.stem}.ipynb); run time {minutes}; provenance: "
                  f"{provenance(page.provenance)}."]
        if page.figures:
            key = page.figures[0]
            lines += ["", f"```{{figure}} figures/{page.notebook.stem}/{key.name}", ":width: 100%",
                      f":alt: {key.stem}", "", f"{page.name}: {key.stem}", "```"]
    entries = [f"studies/{p.notebook.stem}" for p in pages]
    runs = [f"runs/{p.name}/{r.tag}" for p in pages for r in p.runs if r.notebook]
    lines += ["", "```{toctree}", ":hidden:", ":caption: Studies", "", *entries, "```"]
    if runs:
        lines += ["", "```{toctree}", ":hidden:", ":caption: Runs of one's own", "", *runs, "```"]
    return "\n".join(lines) + "\n"


def _options_cell(page: StudyPage, tag: str) -> str:
    """A Markdown cell titling the run's page and listing its options against the study's defaults."""
    run = next(r for r in page.runs if r.tag == tag)
    rows = "\n".join(f"| `{name}` | `{_cell(value)}` | `{_cell(default)}` |"
                     for name, (value, default) in run.options.items())
    table = f"| option | this run | default |\n| --- | --- | --- |\n{rows}" if rows else "At the defaults."
    decided, apart = _split(run.claims)
    claims = (f"{_counts(decided)}; counted apart: {_counts(apart)}" if run.claims is not None
              else "no claims table")
    return (f"# {page.name}: run {tag}\n\nThe run's folder: `{paths.shown(run.folder)}`. Claims: {claims}. "
            f"Provenance: {provenance(run.provenance)}.\n\n{table}")


def build(out: Path | None = None, notebooks: dict[str, Path] | None = None,
          figures_root: Path | None = None) -> Path:
    """Build the site into ``out`` (default ``runs/report``, replaced whole) and return its
    ``index.html``. Notebooks default to every study's (the kit's and the user's), figures to where
    each study writes (or ``figures_root/<stem>``). Raises RuntimeError when Sphinx fails."""
    import nbformat
    from sphinx.cmd.build import build_main

    out = (out or paths.RUNS / "report").resolve()
    notebooks = notebooks if notebooks is not None else studies()
    pages = [study_page(name, nb, figures_root) for name, nb in notebooks.items()]
    with tempfile.TemporaryDirectory(prefix="causaleval-book-") as tmp:
        src = Path(tmp) / "src"
        (src / "studies").mkdir(parents=True)
        (src / "conf.py").write_text(CONF)
        (src / "index.md").write_text(dashboard(pages))
        for page in pages:
            shutil.copyfile(page.notebook, src / "studies" / page.notebook.name)
            for fig in page.figures[:1]:
                (src / "figures" / page.notebook.stem).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(fig, src / "figures" / page.notebook.stem / fig.name)
            for run in page.runs:
                if run.notebook is None:
                    continue
                nb = nbformat.read(run.notebook, as_version=4)
                nb.cells.insert(0, nbformat.v4.new_markdown_cell(_options_cell(page, run.tag)))
                target = src / "runs" / page.name / f"{run.tag}.ipynb"
                target.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, target)
        log = Path(tmp) / "sphinx.log"
        staged = Path(tmp) / "html"
        status = build_main(["-b", "html", "-Q", "-w", str(log), "-d", str(Path(tmp) / "doctrees"),
                             str(src), str(staged)])
        if status != 0:
            raise RuntimeError(f"report: Sphinx failed ({status}): {log.read_text()[-2000:]}")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), str(out))
    return out / "index.html"
