"""``causaleval report`` (``make report``): one static HTML site for every executed study.

The site lives in ``runs/report/`` (an ``index.html``, one HTML export per notebook, the
studies' figures copied beside them) and needs no server: open ``index.html``. The front page
is built from what the studies wrote, never from prose:

* the notebook's title and its first paragraph (what it reproduces);
* the verdicts of the study's ``claims`` table (``<figures>/<study>/claims.csv``): one row per
  paper claim with a ``statement``, a ``verdict`` of :mod:`causaleval.verdicts`' vocabulary and
  its ``evidence``. The count that leads a study's section is of the evidence alone (*holds*,
  *does not hold*, *undecided*); *by construction*, *paper vs itself* and *not tested* rows are
  counted on a line of their own;
* the agreement with the paper's cells from ``agreement.csv`` when the study writes one (a
  ``status`` column whose values are counted, e.g. *matches*, *differs, explained*,
  *unexplained*);
* run time (papermill's), and provenance (the code hashes and commit of the stamps);
* the runs under ``runs/<study>/<tag>/`` (``causaleval run`` with options of one's own): each with
  its tag, its options beside the defaults, its verdict counts and provenance, and a link to its
  executed notebook.

The page opens with a dashboard (per study: evidence counts, the key figure, links) and a list
of contents; figures link to their full-size files. A user's own studies (``./studies``,
``CAUSALEVAL_STUDIES``) appear as the kit's do. A study that writes no ``claims`` or
``agreement`` table says so on the page instead of showing nothing.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from causaleval import paths, report, verdicts
from causaleval.studies import studies

VERDICT_COLUMNS = ("verdict", "holds here")


@dataclass
class StudyPage:
    """What the front page says of one study."""

    name: str
    notebook: Path
    title: str
    summary: str
    duration_s: float | None
    claims: pd.DataFrame | None
    agreement: Counter | None
    provenance: dict[str, Any] | None
    figures: list[Path] = field(default_factory=list)
    runs: list[RunEntry] = field(default_factory=list)
    variants: dict[str, pd.DataFrame] = field(default_factory=dict)  # e.g. kdl_jdk: the run on the paper's own file


@dataclass
class RunEntry:
    """One run of a study under ``runs/<study>/<tag>/``."""

    tag: str
    folder: Path
    options: dict[str, tuple[Any, Any]]  # name -> (value of the run, default)
    claims: pd.DataFrame | None
    provenance: dict[str, Any] | None
    notebook: Path | None


def study_runs(name: str, notebook: Path, runs_root: Path) -> list[RunEntry]:
    """The finished runs of a study (``runs/<study>/<tag>/parameters.yaml``; hidden, failed and the
    default tag's folders are left out), each with the options that differ from the notebook's
    defaults."""
    from causaleval import params

    defaults = params.defaults(notebook)
    entries = []
    for folder in sorted((runs_root / name).glob("*/parameters.yaml")):
        folder = folder.parent
        if folder.name.startswith(".") or folder.name.endswith(".failed") or folder.name in ("default", "inplace"):
            continue
        given = yaml.safe_load((folder / "parameters.yaml").read_text()) or {}
        options = {k: (v, defaults.get(k)) for k, v in given.items()
                   if k != "output_dir" and not params._same(v, defaults.get(k))}
        outputs = next((d for d in (folder / "figures", folder / "figures" / notebook.stem)
                        if (d / "claims.csv").exists()), folder / "figures")
        stamps = sorted(outputs.glob("*.provenance.json"))
        executed = folder / f"{notebook.stem}.html"
        entries.append(RunEntry(folder.name, folder, options, read_claims(outputs),
                                json.loads(stamps[0].read_text()) if stamps else None,
                                executed if executed.exists() else None))
    return entries


def verdict(value: Any) -> str:
    """``holds`` / ``does not hold`` / ``undecided`` / ``not tested`` from a claims table's
    verdict cell (other words are kept, in lower case)."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return "not tested"
    text = str(value).strip().lower()
    if text in ("true", "holds", "yes", "1", "1.0"):
        return "holds"
    if text in ("false", "does not hold", "does not", "no", "0", "0.0"):
        return "does not hold"
    if text in ("", "nan", "not tested", "untested", "none"):
        return "not tested"
    return text


def read_claims(folder: Path) -> pd.DataFrame | None:
    """The study's claims as ``statement``, ``verdict``, ``evidence`` (None without a table)."""
    path = folder / "claims.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    column = next((c for c in VERDICT_COLUMNS if c in table.columns), None)
    missing = [c for c in ("statement", "evidence") if c not in table.columns] + ([] if column else ["verdict"])
    if missing:
        raise ValueError(f"{paths.display(path)}: claims table lacks column(s) {missing}; "
                         f"expected statement, evidence and one of {VERDICT_COLUMNS}")
    return pd.DataFrame({"statement": table["statement"].astype(str),
                         "verdict": table[column].map(verdict),
                         "evidence": table["evidence"].fillna("").astype(str)})


def read_agreement(folder: Path) -> Counter | None:
    path = folder / "agreement.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    if "status" not in table.columns:
        raise ValueError(f"{paths.display(path)}: agreement table lacks a 'status' column")
    return Counter(table["status"].astype(str))


def study_page(name: str, notebook: Path, figures_root: Path | None = None) -> StudyPage:
    """Collect the front-page facts of one executed study notebook (its outputs in
    ``figures_root/<stem>``, by default where the study writes: :func:`causaleval.paths.study_figures`)."""
    nb = json.loads(notebook.read_text())
    title, summary = _title_and_summary(nb)
    folder = figures_root / notebook.stem if figures_root is not None else paths.study_figures(notebook)
    stamps = sorted(folder.glob("*.provenance.json"))
    return StudyPage(
        name=name, notebook=notebook, title=title, summary=summary,
        duration_s=nb.get("metadata", {}).get("papermill", {}).get("duration"),
        claims=read_claims(folder), agreement=read_agreement(folder),
        provenance=json.loads(stamps[0].read_text()) if stamps else None,
        figures=sorted(folder.glob("*.png")),
        runs=study_runs(name, notebook, paths.RUNS),
        variants={sub.name: read_claims(sub) for sub in sorted(folder.glob("*/")) if (sub / "claims.csv").exists()},
    )


def _title_and_summary(nb: dict[str, Any]) -> tuple[str, str]:
    first = next((c for c in nb["cells"] if c["cell_type"] == "markdown"), None)
    lines = "".join(first["source"]).splitlines() if first else []
    title = next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("#")), "untitled")
    body = "\n".join(ln for ln in lines if not ln.startswith("#")).strip()
    return title, _plain(body.split("\n\n")[0].strip())


def _plain(markdown: str) -> str:
    """Markdown of a notebook's first paragraph as plain text: link text without its target
    (links are relative to the notebook, not the site), no emphasis or code marks."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"(\*\*|\*|`)", "", text)


def build(out: Path | None = None, notebooks: dict[str, Path] | None = None,
          figures_root: Path | None = None) -> Path:
    """Write the site and return its ``index.html``. Notebooks default to the committed
    study notebooks (executed at their defaults), figures to ``figures/``."""
    from nbconvert import HTMLExporter


    out = out or paths.RUNS / "report"
    notebooks = notebooks if notebooks is not None else studies()
    if out.exists():
        shutil.rmtree(out)
    (out / "figures").mkdir(parents=True)
    pages = [study_page(name, nb, figures_root) for name, nb in notebooks.items()]
    exporter = HTMLExporter()
    for page in pages:
        body, _ = exporter.from_filename(str(page.notebook))
        (out / f"{page.notebook.stem}.html").write_text(body)
        for fig in page.figures:
            target = out / "figures" / page.notebook.stem / fig.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fig, target)
        for run in page.runs:
            if run.notebook is not None:
                target = out / "runs" / page.name / f"{run.tag}.html"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(run.notebook, target)
    index = out / "index.html"
    index.write_text(_front_page(pages))
    return index


def _front_page(pages: list[StudyPage]) -> str:
    e = html.escape
    contents = "".join(f'<li><a href="#{e(p.name)}">{e(p.title)}</a></li>' for p in pages)
    dashboard = "".join(_dashboard_row(p) for p in pages)
    sections = "\n".join(_section(p) for p in pages)
    evidence = " / ".join(verdicts.EVIDENCE)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>causaleval: reproduced studies</title>
<style>
body {{ font-family: sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; }}
table {{ border-collapse: collapse; margin: 0.5em 0; }} td, th {{ border: 1px solid #bbb; padding: 0.2em 0.5em; vertical-align: top; }}
.holds {{ color: #176117; }} .does-not-hold {{ color: #a11; }} .undecided {{ color: #8a5a00; }} .not-tested {{ color: #666; }}
.by-construction {{ color: #555; font-style: italic; }} .paper-vs-itself {{ color: #335; font-style: italic; }}
img {{ max-width: 22em; border: 1px solid #ddd; margin: 0.2em; }} .key img {{ max-width: 12em; }}
</style></head><body>
<h1>causaleval: reproduced studies</h1>
<p>{len(pages)} studies. Every verdict below is read from the tables the notebooks wrote; the counts are of
the claims the evidence decides ({evidence}); checks by construction, of the paper against itself and
claims not tested are counted apart. Figures open full size when clicked.</p>
<h2>Dashboard</h2>
<table><tr><th>study</th><th>evidence ({evidence})</th><th>not counted</th><th>cells against the paper</th>
<th>on other data</th><th>runs of one's own</th><th>key figure</th></tr>{dashboard}</table>
<h2>Contents</h2><ol>{contents}</ol>
{sections}
</body></html>
"""


def _split(claims: pd.DataFrame | None) -> tuple[Counter, Counter]:
    counts = Counter(claims["verdict"]) if claims is not None else Counter()
    return (Counter({v: counts.get(v, 0) for v in verdicts.EVIDENCE}),
            Counter({v: n for v, n in counts.items() if v not in verdicts.EVIDENCE}))


def _dashboard_row(page: StudyPage) -> str:
    e = html.escape
    evidence, apart = _split(page.claims)
    stem = page.notebook.stem
    key = (f'<a class="key" href="figures/{e(stem)}/{e(page.figures[0].name)}"><img src="figures/{e(stem)}/'
           f'{e(page.figures[0].name)}" alt="{e(page.figures[0].stem)}"></a>' if page.figures else "none")
    return (f'<tr><td><a href="#{e(page.name)}">{e(page.name)}</a> (<a href="{e(stem)}.html">notebook</a>)</td>'
            f"<td>{_counts(evidence) if page.claims is not None else 'no claims table'}</td>"
            f"<td>{_counts(apart) or 'none'}</td><td>{_counts(page.agreement) if page.agreement else 'none'}</td>"
            f"<td>{'; '.join(f'{e(n)}: {_counts(_split(c)[0])}' for n, c in page.variants.items()) or 'none'}</td>"
            f"<td>{len(page.runs)}</td><td>{key}</td></tr>")


def _section(page: StudyPage) -> str:
    e = html.escape
    stem = page.notebook.stem
    minutes = f"{page.duration_s / 60:.1f} min" if page.duration_s is not None else "not recorded"
    if page.claims is None:
        claims = "<p>This study writes no claims table (<code>claims.csv</code>).</p>"
    else:
        evidence, apart = _split(page.claims)
        rows = "".join(
            f"<tr><td>{e(r.statement)}</td><td class=\"{_css(r.verdict)}\">{e(r.verdict)}</td><td>{e(r.evidence)}</td></tr>"
            for r in page.claims.itertuples())
        claims = (f"<p>Claims tested against the evidence: {_counts(evidence)}.</p>"
                  f"<p>Not counted as evidence: {_counts(apart) or 'none'}.</p><table><tr><th>claim</th><th>verdict</th>"
                  f"<th>evidence</th></tr>{rows}</table>")
    agreement = (f"<p>Cells against the paper: {_counts(page.agreement)}.</p>" if page.agreement
                 else "<p>Cells against the paper: this study writes no agreement table "
                      "(<code>agreement.csv</code>).</p>")
    figures = "".join(f'<a href="figures/{e(stem)}/{e(f.name)}"><img src="figures/{e(stem)}/{e(f.name)}" '
                      f'alt="{e(f.stem)}"></a>' for f in page.figures)
    return f"""<section id="{e(page.name)}">
<h2><a href="{e(stem)}.html">{e(page.title)}</a></h2>
<p>{e(page.summary)}</p>
<p>Study <code>{e(page.name)}</code>; run time {minutes}; provenance: {_provenance(page.provenance)}.</p>
{claims}
{agreement}
<div>{figures}</div>
{_variants(page)}
{_runs(page)}
</section>"""


def _variants(page: StudyPage) -> str:
    """The committed runs of the study on other data (``figures/<study>/<variant>/``, e.g. ``kdl_jdk``:
    the paper's own JDK file), each with its claims' verdicts."""
    e = html.escape
    parts = []
    for name, claims in page.variants.items():
        evidence, apart = _split(claims)
        rows = "".join(f"<tr><td>{e(r.statement)}</td><td class=\"{_css(r.verdict)}\">{e(r.verdict)}</td>"
                       f"<td>{e(r.evidence)}</td></tr>" for r in claims.itertuples())
        parts.append(f"<h3>On other data: <code>{e(name)}</code></h3><p>Claims tested against the evidence: "
                     f"{_counts(evidence)}; not counted: {_counts(apart) or 'none'}.</p><table><tr><th>claim</th>"
                     f"<th>verdict</th><th>evidence</th></tr>{rows}</table>")
    return "\n".join(parts)


def _provenance(stamp: dict[str, Any] | None) -> str:
    e = html.escape
    code = (stamp or {}).get("code", {})
    if not code:
        return "no stamp"
    return (f"kit {e(str(code.get('kit_sha256', ''))[:12])}, notebook {e(str(code.get('notebook_sha256', ''))[:12])}, "
            f"{e(_commit(code, str((stamp or {}).get('study', ''))))}")


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


def _runs(page: StudyPage) -> str:
    e = html.escape
    if not page.runs:
        return (f"<p>Runs of one's own: none under <code>runs/{e(page.name)}/</code> "
                f"(<code>causaleval run {e(page.name)} -p NAME VALUE --tag TAG</code>).</p>")
    rows = []
    for run in page.runs:
        options = "; ".join(f"{e(k)} = {e(str(v))} (default {e(str(d))})" for k, (v, d) in run.options.items())
        evidence, apart = _split(run.claims)
        link = (f'<a href="runs/{e(page.name)}/{e(run.tag)}.html">notebook</a>' if run.notebook else "no export")
        rows.append(f"<tr><td><code>{e(run.tag)}</code> ({link})</td><td>{options or 'the defaults'}</td>"
                    f"<td>{_counts(evidence) if run.claims is not None else 'no claims table'}"
                    f"{'; ' + _counts(apart) if sum(apart.values()) else ''}</td>"
                    f"<td>{_provenance(run.provenance)}</td></tr>")
    return (f"<h3>Runs of one's own ({len(page.runs)})</h3><table><tr><th>tag</th><th>options</th>"
            f"<th>claims</th><th>provenance</th></tr>{''.join(rows)}</table>")


def _counts(counts: Counter) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def _css(text: str) -> str:
    return re.sub(r"[^a-z]+", "-", text.lower()).strip("-")
